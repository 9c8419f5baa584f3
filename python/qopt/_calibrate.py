"""qopt.calibrate: what `qopt calibrate` measures, in process."""
import ctypes
import json
import os
import tempfile

from . import _capi, _model, _runner, _samples
from ._pipeline import set_pipeline
from ._session import Session


def _dims_text(dims):
    if dims is None or isinstance(dims, str):
        return dims
    return ",".join("%s=%d" % (k, v) for k, v in dims.items())


def calibrate(model, samples=None, passes="fp8-mha", pipeline=None,
              method=None, percentile=None, random=None, seed=0, dims=None,
              **settings):
    """Measures the ranges the pipeline's passes will read (passes= or
    pipeline= as for qopt.run; default fp8-mha) on model, over samples
    (a list of {input name: array} or a folder, as qopt.run's
    calibration_data), or over `random` seeded random samples (a smoke
    test; dims: {symbolic dimension: value}). Returns the calibration
    file's content (docs/calibration.md) as a dict."""
    who = "qopt.calibrate"
    if (samples is None) == (random is None):
        raise TypeError("%s: give samples or random=N, one of them" % who)
    if pipeline is not None:
        passes = None
    with tempfile.TemporaryDirectory(prefix="qopt-py-") as tmp:
        src = _model.input_path(model, tmp, who)
        data = (_samples.folder(samples, tmp, who) if samples is not None
                else None)
        o = _capi.CalibOpts()
        o.size = ctypes.sizeof(o)
        o.samples = _capi.cstr(data)
        o.random = int(random or 0)
        o.seed = int(seed)
        o.dims = _capi.cstr(_dims_text(dims))
        o.method = _capi.cstr(method)
        o.percentile = float(percentile or 0)
        with Session(settings) as s:
            set_pipeline(s, passes, pipeline, who)
            runner = _runner.Runner()
            out = ctypes.c_void_p()
            st = s.lib.qopt_session_calibrate(s.handle, _capi.cstr(src),
                                          ctypes.byref(o), runner.fn, None,
                                          ctypes.byref(out))
            runner.reraise()
            s.check(st, "calibrating %s" % (
                    os.fspath(model) if isinstance(model, (str, os.PathLike))
                    else "the model"))
            try:
                text = ctypes.c_void_p()
                err = _capi.QirError()
                if s.lib.qopt_calib_text(out, ctypes.byref(text), None,
                                         ctypes.byref(err)):
                    s.check(err.code or _capi.ENOMEM, "the ranges' text: %s"
                            % _capi.text(err.msg))
                try:
                    raw = ctypes.string_at(text.value)
                finally:
                    s.lib.qopt_free(text)
            finally:
                s.lib.qopt_calib_free(out)
        return json.loads(raw.decode("utf-8", "surrogateescape"))
