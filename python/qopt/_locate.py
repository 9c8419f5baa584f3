"""Where libqopt and the ONNX Runtime launchers are.

Searched in order, so that a source tree's tests, `make install` and a
pip install each find their own (docs/python.md, "Finding libqopt"):
the environment ($QOPT_LIBRARY, $QOPT_BUILTIN_DIR; $QOPT_CALIBRATE_ORT,
$QOPT_PLAN_ORT and $QOPT_NODE, which the qopt program honours too), then the paths
`make install` wrote into _paths.py, then the package's own folder, then
the dynamic loader's and PATH's search.
"""
import os
import shutil

# The plugin ABI major this package binds (libqopt's soname).
ABI_MAJOR = 4
SONAME = "libqopt.so.%d" % ABI_MAJOR

try:
    from . import _paths
except ImportError:     # pip's copy from the source tree: no _paths.py
    _paths = None


def _installed(name):
    value = getattr(_paths, name, None) if _paths else None
    return value if value and value != "no" else None


def library():
    """The libqopt to load: a path, or the soname for the loader."""
    env = os.environ.get("QOPT_LIBRARY")
    if env:
        return env
    inst = _installed("LIBRARY")
    if inst and os.path.isfile(inst):
        return inst
    beside = os.path.join(os.path.dirname(os.path.abspath(__file__)), SONAME)
    if os.path.isfile(beside):
        return beside
    return SONAME


def builtin_dir():
    """$QOPT_BUILTIN_DIR: the folder of built-in passes a session uses
    instead of the installed one (a build tree's passes/.libs), or None."""
    return os.environ.get("QOPT_BUILTIN_DIR") or None


def launcher(kind):
    """qopt-calibrate-ort or qopt-plan-ort (kind "CALIBRATE" / "PLAN"),
    or None when none is found."""
    env = os.environ.get("QOPT_%s_ORT" % kind)
    if env:
        return env
    inst = _installed("%s_ORT" % kind)
    if inst and os.path.isfile(inst):
        return inst
    return shutil.which("qopt-%s-ort" % kind.lower())


def node():
    """node, or None when none is found."""
    env = os.environ.get("QOPT_NODE")
    if env:
        return env
    inst = _installed("NODE")
    if inst and os.path.isfile(inst):
        return inst
    return shutil.which("node")
