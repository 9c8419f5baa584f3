"""qopt.plan: what `qopt plan` chooses, in process."""
import ctypes
import json
import os
import tempfile

from . import _capi, _model, _runner, _samples
from ._session import Session, one_run


class Plan:
    """A finished plan: .ini (the INI text `qopt plan -o` writes),
    .calibration (the calibration files the INI names beside it: a dict
    of file name to text), .report (what --json writes, as a dict;
    .report_json the text) and .summary (the closing line)."""

    def __init__(self, ini, report_json, calibration=None, summary=None):
        self.ini = ini
        self.report_json = report_json
        self.report = json.loads(report_json) if report_json else None
        self.calibration = dict(calibration or {})
        self.summary = summary

    def __repr__(self):
        return "Plan(%d INI lines)" % len(self.ini.splitlines())

    def write(self, path):
        """Writes the INI at path and its calibration files beside it
        (the names it gives them), as `qopt plan -o path` does."""
        folder = os.path.dirname(os.fspath(path)) or "."
        for name, text in self.calibration.items():
            _write_text(os.path.join(folder, name), text)
        _write_text(path, self.ini)


def _write_text(path, text):
    tmp = "%s.tmp-%d" % (path, os.getpid())
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def _result(lib, out):
    calib = {}
    for i in range(lib.qopt_plan_ncalib(out)):
        name, text = ctypes.c_char_p(), ctypes.c_char_p()
        lib.qopt_plan_calib_at(out, i, ctypes.byref(name), ctypes.byref(text))
        calib[_capi.text(name.value)] = _capi.text(text.value)
    return Plan(_capi.text(lib.qopt_plan_ini(out)),
                _capi.text(lib.qopt_plan_report_json(out)), calib,
                _capi.text(lib.qopt_plan_summary(out)))


def plan(model, samples, formats=("nvfp4", "fp8", "none"),
         effective_bits=None, max_loss=None, autocast=None,
         max_float_layers=None, output=None, save_model=None, **settings):
    """Measures each layer's formats on model over samples (a folder, or
    a list of dicts of NumPy arrays, as qopt.calibrate's) and picks one
    per layer under effective_bits or max_loss (docs/plan.md). formats:
    a list, or "fp8,nvfp4,none". output: the INI's path the calibration
    files are named after (nothing is written; Plan.write does);
    save_model: where the plan's model is written."""
    who = "qopt.plan"
    if samples is None:
        raise TypeError("%s: samples are required: the layers are "
                        "measured on them" % who)
    if (effective_bits is None) == (max_loss is None):
        raise TypeError("%s: give effective_bits or max_loss, one of them"
                        % who)
    if not isinstance(formats, str):
        formats = ",".join(formats)
    with tempfile.TemporaryDirectory(prefix="qopt-py-") as tmp:
        src = _model.input_path(model, tmp, who)
        o = _capi.PlanOpts()
        o.size = ctypes.sizeof(o)
        o.samples = _capi.cstr(_samples.folder(samples, tmp, who))
        o.formats = _capi.cstr(formats)
        o.effective_bits = -1.0 if effective_bits is None else \
            float(effective_bits)
        o.max_loss = -1.0 if max_loss is None else float(max_loss)
        o.autocast = _capi.cstr(autocast)
        o.max_float_layers = -1 if max_float_layers is None else \
            int(max_float_layers)
        o.output = _capi.cstr(None if output is None else os.fspath(output))
        o.save_model = _capi.cstr(None if save_model is None
                                  else os.fspath(save_model))
        with Session(settings) as s:
            runner = _runner.Runner()
            out = ctypes.c_void_p()
            with one_run(who):
                st = s.lib.qopt_session_plan(s.handle, _capi.cstr(src),
                                              ctypes.byref(o), runner.fn,
                                              None, ctypes.byref(out))
            runner.reraise()
            s.check(st, "planning %s" % (
                    os.fspath(model) if isinstance(model, (str, os.PathLike))
                    else "the model"))
            try:
                return _result(s.lib, out)
            finally:
                s.lib.qopt_plan_free(out)
