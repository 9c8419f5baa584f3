"""The session's diagnostic callback: libqopt's structured messages kept
during a call, then handed to Python when the call returns: warnings as
warnings.warn(QoptWarning), info and debug to the `qopt` logger, errors
into the qopt.Error the call raises. Nothing is raised inside the C
callback (an exception cannot cross it)."""
import logging
import warnings

from . import _capi
from .errors import Error, QoptWarning

log = logging.getLogger("qopt")


class Diagnostic:
    """One message: severity (0 error .. 3 debug), code, pass_name,
    node, tensor, message."""
    __slots__ = ("severity", "code", "pass_name", "node", "tensor",
                 "message")

    def __init__(self, d):
        self.severity = d.severity
        self.code = d.code
        self.pass_name = _capi.text(d.pass_)
        self.node = _capi.text(d.node)
        self.tensor = _capi.text(d.tensor)
        self.message = _capi.text(d.message) or ""

    def __str__(self):
        return ("%s: %s" % (self.pass_name, self.message) if self.pass_name
                else self.message)


class Diagnostics:
    """Collects one call's messages; .fn is what libqopt calls (kept
    alive as long as the session)."""

    def __init__(self):
        self.pending = []
        self.fn = _capi.DIAG_FN(self._take)

    def _take(self, _arg, d):
        try:
            self.pending.append(Diagnostic(d.contents))
        except Exception:       # never let an exception reach C
            pass

    def flush(self, stacklevel=4):
        """Gives out what came since the last flush; returns the errors."""
        got, self.pending = self.pending, []
        errors = []
        for d in got:
            if d.severity == _capi.LOG_ERROR:
                errors.append(d)
            elif d.severity == _capi.LOG_WARN:
                warnings.warn(QoptWarning(str(d), d.pass_name, d.node,
                                          d.tensor), stacklevel=stacklevel)
            elif d.severity == _capi.LOG_INFO:
                log.info("%s", d)
            else:
                log.debug("%s", d)
        return errors


def error(status, what, errors, failed_pass=None):
    """The qopt.Error for a failed call: `what` failed with `status`,
    the messages in errors (Diagnostic)."""
    name = _capi.lib().status_name(status)
    first = errors[0] if errors else None
    pass_name = failed_pass or next(
        (d.pass_name for d in errors if d.pass_name), None)
    node = next((d.node for d in errors if d.node), None)
    tensor = next((d.tensor for d in errors if d.tensor), None)
    messages = [str(d) for d in errors]
    if first:
        text = "; ".join(messages)
        # libqopt's message may name what failed itself
        message = text if text.startswith(what) else "%s: %s" % (what, text)
    else:
        message = "%s: %s" % (what, name)
    if pass_name and not (first and first.pass_name):
        message += " (pass '%s')" % pass_name
    return Error(message, status, name, pass_name, node, tensor, messages)
