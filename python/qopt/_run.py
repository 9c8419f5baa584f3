"""qopt.run: a pipeline over a model, in process."""
import json
import os
import tempfile

from . import _capi, _model, _runner, _samples
from ._hooks import Hooks
from ._pipeline import set_pipeline
from ._session import Session


def run(model, passes=None, pipeline=None, calibration_data=None,
        output=None, hooks=None, report=False, **settings):
    """Runs a pipeline over model (an onnx.ModelProto, bytes or a path).

    passes: the pass list as --passes takes it ("fp8,cast-fold"), or a
    list of names and (name, {option: value}) pairs; or pipeline: INI
    text or an INI file's path. calibration_data: a list of dicts
    {input name: NumPy array} (one per sample), or a folder (or .npz /
    .npy) as `qopt calibrate --data` reads; each pass that reads a
    calibration file is calibrated on the model as it is when it runs.
    output: a path to write (atomically, big tensors as external data
    as the qopt program writes them), and its path is returned; else the
    result comes back as an onnx.ModelProto. hooks: see qopt.PassEvent.
    report=True: returns (that, the run's report as a dict: what qopt
    --stats-json writes, each pass's counters and records).
    settings: verbosity, strict, verify_each, threads, device,
    plugin_dir, load (qopt_session_set). Warnings are QoptWarning
    warnings; a failure raises qopt.Error."""
    who = "qopt.run"
    if output is not None and not isinstance(output, (str, os.PathLike)):
        raise TypeError("%s: output must be a path, not %s" %
                        (who, type(output).__name__))
    with tempfile.TemporaryDirectory(prefix="qopt-py-") as tmp:
        src = _model.input_path(model, tmp, who)
        runner = _runner.Runner()
        with Session(settings) as s:
            set_pipeline(s, passes, pipeline, who)
            if calibration_data is not None:
                data = _samples.folder(calibration_data, tmp, who)
                s.check(s.lib.qopt_session_calibration(
                    s.handle, _capi.cstr(data), runner.fn, None),
                    "calibration data %s" % data)
            h = Hooks(s, hooks, who)
            dst = os.fspath(output) if output is not None else \
                os.path.join(tmp, "out.onnx")
            st = s.lib.qopt_session_run_file(s.handle, _capi.cstr(src),
                                             _capi.cstr(dst))
            try:
                s.check(st, os.fspath(model) if isinstance(
                    model, (str, os.PathLike)) else "the model")
            except Exception as e:
                runner.reraise()
                if h.raised is not None:
                    raise h.raised from e
                raise
            runner.reraise()
            if h.raised is not None:
                raise h.raised
            stats = json.loads(s.report()) if report else None
        result = dst if output is not None else _model.load_output(dst)
        return (result, stats) if report else result
