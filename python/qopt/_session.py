"""One qopt_session (include/qopt/session.h) for one call: settings,
the pipeline, hooks, and every status checked, its messages given to
Python (_diag)."""
import ctypes
import os

from . import _capi, _locate
from ._diag import Diagnostics, error

# Settings a list may give more than once (qopt_session_set appends).
_REPEATABLE = ("plugin_dir", "load")


def _setting_text(key, value):
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, (int, float, str)):
        return str(value)
    raise TypeError("qopt: setting '%s' must be a str, number or bool, not %s"
                    % (key, type(value).__name__))


class Session:
    """Use as a context manager: freed on exit."""

    def __init__(self, settings):
        self.lib = _capi.lib()
        self.diags = Diagnostics()
        self._keep = []         # ctypes objects libqopt holds pointers to
        self._s = self.lib.qopt_session_new()
        if not self._s:
            raise MemoryError("qopt_session_new: out of memory")
        self.lib.qopt_session_set_diag(self._s, self.diags.fn, None)
        try:
            if _locate.builtin_dir() and "builtin_dir" not in settings:
                settings = dict(settings, builtin_dir=_locate.builtin_dir())
            for key, value in settings.items():
                values = (value if key in _REPEATABLE and
                          isinstance(value, (list, tuple)) else [value])
                for v in values:
                    self.check(self.lib.qopt_session_set(
                        self._s, _capi.cstr(key),
                        _capi.cstr(_setting_text(key, v))),
                        "setting '%s'" % key)
        except BaseException:
            self.close()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self._s:
            self.lib.qopt_session_free(self._s)
            self._s = None
            self.diags.flush()

    @property
    def handle(self):
        return self._s

    def keep(self, obj):
        """Keeps obj alive as long as the session (a callback, a struct)."""
        self._keep.append(obj)
        return obj

    def check(self, status, what):
        """Hands out the call's messages; raises qopt.Error when status
        is not QOPT_OK."""
        errors = self.diags.flush()
        if status:
            failed = None
            if self._s and self._has("qopt_session_failed_pass"):
                failed = _capi.text(self.lib.qopt_session_failed_pass(self._s))
            raise error(status, what, errors, failed)

    def _has(self, name):
        try:
            getattr(self.lib, name)
            return True
        except Exception:
            return False

    def report(self):
        """The last run's report (--stats-json's content) as text."""
        out = ctypes.c_void_p()
        self.check(self.lib.qopt_session_report_json(self._s,
                                                     ctypes.byref(out)),
                   "the run's report")
        try:
            return ctypes.string_at(out.value).decode("utf-8")
        finally:
            self.lib.qopt_free(out)
