"""qopt: prepare ONNX models for low-precision inference, in process.

    import qopt
    m = qopt.run("model.onnx", passes="fp8", calibration_data=[{"x": x}])

A ctypes binding of libqopt (include/qopt/session.h, calib.h, plan.h);
the reference is docs/python.md in qopt's source tree."""
from ._calibrate import calibrate
from ._hooks import SKIP, PassEvent
from ._passes import Option, Pass, passes
from ._plan import Plan, plan
from ._run import run
from ._version import __version__
from .errors import Error, QoptWarning

__all__ = ["run", "calibrate", "plan", "passes", "Error", "QoptWarning",
           "Plan", "Pass", "Option", "PassEvent", "SKIP", "library_version",
           "__version__"]


def library_version():
    """The loaded libqopt's version text and plugin ABI (major, minor)."""
    from . import _capi
    lib = _capi.lib()
    return _capi.text(lib.qopt_version()), lib.abi
