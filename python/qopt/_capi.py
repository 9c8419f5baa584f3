"""ctypes declarations of libqopt's public C API (include/qopt/session.h,
calib.h, plan.h, status.h, version.h), loaded once.

Every struct here is caller-allocated or read with the size libqopt
reports; each carries its `size` field first, as the headers' size rule
asks (docs/plugin-abi.md), so a later libqopt that appends fields still
reads these."""
import ctypes
import os
from ctypes import (CFUNCTYPE, POINTER, Structure, c_char, c_char_p,
                    c_double, c_int, c_long, c_size_t, c_uint, c_uint64,
                    c_void_p)

from . import _locate
from .errors import Error

# include/qopt/status.h, include/qopt/pass.h
OK = 0
EIO, EPARSE, EINVALID, ENOMEM, EUNSAFE, EUSAGE = 1, 2, 3, 4, 5, 6
EVERIFY, EUNSUPPORTED, EDEVICE, EPLUGIN, EPOLICY = 7, 8, 9, 10, 11
ESKIPPED, ESTRICT, EINTERRUPTED, ENOTFOUND, EPASS = 12, 13, 14, 15, 16
LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG = 0, 1, 2, 3
OPT_TYPES = {1: "bool", 2: "int", 3: "float", 4: "string", 5: "list",
             6: "enum"}
OPT_HAS_MIN, OPT_HAS_MAX = 1, 2


class QirError(Structure):
    _fields_ = [("code", c_int), ("msg", c_char * 1024)]


class Diag(Structure):
    _fields_ = [("size", c_uint), ("severity", c_int), ("code", c_int),
                ("pass_", c_char_p), ("node", c_char_p),
                ("tensor", c_char_p), ("message", c_char_p)]


class PassEvent(Structure):
    _fields_ = [("size", c_uint), ("index", c_size_t), ("pass_", c_char_p),
                ("pipeline", c_char_p), ("changed", c_int),
                ("status", c_int)]


DIAG_FN = CFUNCTYPE(None, c_void_p, POINTER(Diag))
HOOK_FN = CFUNCTYPE(c_int, c_void_p, POINTER(PassEvent), c_void_p)
RUNNER_FN = CFUNCTYPE(c_int, c_void_p, c_char_p, c_char_p, c_double,
                      POINTER(QirError))


class Hook(Structure):
    _fields_ = [("size", c_uint), ("before", HOOK_FN), ("after", HOOK_FN),
                ("arg", c_void_p)]


class OptionSpec(Structure):
    _fields_ = [("name", c_char_p), ("type", c_int),
                ("default_value", c_char_p), ("help", c_char_p),
                ("choices", POINTER(c_char_p)), ("flags", c_uint),
                ("min", c_double), ("max", c_double)]


class PassDesc(Structure):
    _fields_ = [("size", c_uint), ("name", c_char_p), ("summary", c_char_p),
                ("plugin", c_char_p), ("options", POINTER(OptionSpec)),
                ("noptions", c_size_t)]


class CalibOpts(Structure):
    _fields_ = [("size", c_uint), ("samples", c_char_p), ("random", c_long),
                ("seed", c_uint64), ("dims", c_char_p), ("method", c_char_p),
                ("percentile", c_double)]


class PlanOpts(Structure):
    _fields_ = [("size", c_uint), ("samples", c_char_p),
                ("formats", c_char_p), ("effective_bits", c_double),
                ("max_loss", c_double), ("autocast", c_char_p),
                ("max_float_layers", c_long), ("output", c_char_p),
                ("save_model", c_char_p)]


_S = c_void_p           # qopt_session *
_PROTOS = {
    "qopt_version": (c_char_p, []),
    "qopt_abi_version": (None, [POINTER(c_uint), POINTER(c_uint)]),
    "qopt_status_str": (c_char_p, [c_int]),
    "qopt_session_new": (_S, []),
    "qopt_session_free": (None, [_S]),
    "qopt_session_set_diag": (None, [_S, DIAG_FN, c_void_p]),
    "qopt_session_set": (c_int, [_S, c_char_p, c_char_p]),
    "qopt_session_pipeline_ini": (c_int, [_S, c_char_p, c_char_p]),
    "qopt_session_pipeline_file": (c_int, [_S, c_char_p]),
    "qopt_session_pipeline_passes": (c_int, [_S, c_char_p]),
    "qopt_session_add_pass": (c_int, [_S, c_char_p, POINTER(c_char_p)]),
    "qopt_session_add_hook": (c_int, [_S, POINTER(Hook), POINTER(c_int)]),
    "qopt_session_remove_hook": (c_int, [_S, c_int]),
    "qopt_session_calibration": (c_int, [_S, c_char_p, RUNNER_FN, c_void_p]),
    "qopt_session_run_file": (c_int, [_S, c_char_p, c_char_p]),
    "qopt_session_failed_pass": (c_char_p, [_S]),
    "qopt_session_npasses": (c_size_t, [_S]),
    "qopt_session_pass_at": (c_int, [_S, c_size_t, POINTER(PassDesc)]),
    "qopt_session_report_json": (c_int, [_S, POINTER(c_void_p)]),
    "qopt_free": (None, [c_void_p]),
    "qopt_session_calibrate": (c_int, [_S, c_char_p, POINTER(CalibOpts),
                                       RUNNER_FN, c_void_p,
                                       POINTER(c_void_p)]),
    "qopt_calib_text": (c_int, [c_void_p, POINTER(c_void_p),
                                POINTER(c_size_t), POINTER(QirError)]),
    "qopt_calib_free": (None, [c_void_p]),
    "qopt_session_plan": (c_int, [_S, c_char_p, POINTER(PlanOpts),
                                  RUNNER_FN, c_void_p, POINTER(c_void_p)]),
    "qopt_plan_ini": (c_char_p, [c_void_p]),
    "qopt_plan_report_json": (c_char_p, [c_void_p]),
    "qopt_plan_summary": (c_char_p, [c_void_p]),
    "qopt_plan_ncalib": (c_size_t, [c_void_p]),
    "qopt_plan_calib_at": (c_int, [c_void_p, c_size_t, POINTER(c_char_p),
                                   POINTER(c_char_p)]),
    "qopt_plan_free": (None, [c_void_p]),
}


class _Lib:
    """libqopt, with each function of _PROTOS typed on first use; a
    function this libqopt lacks is an Error naming it and the file."""

    def __init__(self, where):
        self.path = where
        try:
            self._dll = ctypes.CDLL(where)
        except OSError as e:
            raise Error("cannot load libqopt (%s): %s; set QOPT_LIBRARY to "
                        "its path, or install qopt (docs/python.md)"
                        % (where, e), EPLUGIN, "plugin cannot be loaded")
        major, minor = c_uint(), c_uint()
        self.qopt_abi_version(ctypes.byref(major), ctypes.byref(minor))
        if major.value != _locate.ABI_MAJOR:
            raise Error("%s has the plugin ABI %d.%d; this package binds "
                        "ABI %d" % (where, major.value, minor.value,
                                    _locate.ABI_MAJOR), EPLUGIN)
        self.abi = (major.value, minor.value)

    def __getattr__(self, name):
        restype, argtypes = _PROTOS[name]
        try:
            fn = getattr(self._dll, name)
        except AttributeError:
            raise Error("%s has no %s(): this libqopt is older than the "
                        "Python package (docs/python.md)" % (self.path, name),
                        EUNSUPPORTED) from None
        fn.restype, fn.argtypes = restype, argtypes
        setattr(self, name, fn)
        return fn

    def status_name(self, code):
        return self.qopt_status_str(code).decode("utf-8", "replace")


_lib = None


def lib():
    """libqopt, loaded on first use."""
    global _lib
    if _lib is None:
        _lib = _Lib(_locate.library())
    return _lib


def text(b):
    """A borrowed C string as str (bytes that are not UTF-8 kept as
    surrogate escapes, so a name round-trips through os.fsencode)."""
    return None if b is None else b.decode("utf-8", "surrogateescape")


def cstr(s):
    """str / PathLike / bytes -> bytes for a const char * argument."""
    if s is None:
        return None
    if isinstance(s, bytes):
        return s
    return os.fsencode(s)
