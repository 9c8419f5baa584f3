"""qopt.plan: what `qopt plan` chooses, in process."""
import ctypes
import json
import os
import tempfile

from . import _capi, _model, _runner, _samples
from ._calibrate import _dims_text
from ._session import Session


class Plan:
    """A finished plan: .ini (the INI text `qopt plan -o` writes) and
    .report (what --json writes, as a dict; .report_json the text)."""

    def __init__(self, ini, report_json):
        self.ini = ini
        self.report_json = report_json
        self.report = json.loads(report_json) if report_json else None

    def __repr__(self):
        return "Plan(%d INI lines)" % len(self.ini.splitlines())


def plan(model, samples=None, formats=("nvfp4", "fp8", "none"),
         effective_bits=None, max_loss=None, autocast=None,
         max_float_layers=None, random=None, seed=0, dims=None, **settings):
    """Measures each layer's formats on model over samples (as
    qopt.calibrate's) and picks one per layer under effective_bits or
    max_loss (docs/plan.md). formats: a list, or "fp8,nvfp4,none"."""
    who = "qopt.plan"
    if (samples is None) == (random is None):
        raise TypeError("%s: give samples or random=N, one of them" % who)
    if (effective_bits is None) == (max_loss is None):
        raise TypeError("%s: give effective_bits or max_loss, one of them"
                        % who)
    if not isinstance(formats, str):
        formats = ",".join(formats)
    with tempfile.TemporaryDirectory(prefix="qopt-py-") as tmp:
        src = _model.input_path(model, tmp, who)
        o = _capi.PlanOpts()
        o.size = ctypes.sizeof(o)
        o.samples = _capi.cstr(_samples.folder(samples, tmp, who)
                               if samples is not None else None)
        o.random = int(random or 0)
        o.seed = int(seed)
        o.dims = _capi.cstr(_dims_text(dims))
        o.formats = _capi.cstr(formats)
        o.effective_bits = float(effective_bits or 0)
        o.max_loss = float(max_loss or 0)
        o.autocast = _capi.cstr(autocast)
        o.max_float_layers = -1 if max_float_layers is None else \
            int(max_float_layers)
        with Session(settings) as s:
            runner = _runner.Runner()
            out = ctypes.c_void_p()
            st = s.lib.qopt_session_plan(s.handle, _capi.cstr(src),
                                          ctypes.byref(o), runner.fn, None,
                                          ctypes.byref(out))
            runner.reraise()
            s.check(st, "planning %s" % (
                    os.fspath(model) if isinstance(model, (str, os.PathLike))
                    else "the model"))
            try:
                return Plan(_capi.text(s.lib.qopt_plan_ini(out)),
                            _capi.text(s.lib.qopt_plan_report_json(out)))
            finally:
                s.lib.qopt_plan_free(out)
