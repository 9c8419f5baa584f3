"""The calibration runner (qopt/calib.h's qopt_calib_runner): libqopt
writes a probe model and a job file and asks the runner to run it; this
one runs the ONNX Runtime launcher qopt installs with node, as the qopt
program does (qopt-plan-ort for the plan's measurements, the jobs that
list "candidates"; qopt-calibrate-ort for the others), and waits at most the bound libqopt gives. Past it the
child's process group gets SIGTERM, then SIGKILL, and is reaped."""
import json
import os
import signal
import subprocess

from . import _capi, _locate

_GRACE_S = 5
_TAIL = 900             # bytes of the script's stderr kept for a message


def _fail(err, code, message):
    if err:
        raw = message.encode("utf-8", "surrogateescape")[:1023]
        err.contents.code = code
        err.contents.msg = raw         # a char array: NUL-terminated
    return code


def _end(p):
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            return
        try:
            p.wait(_GRACE_S)
            return
        except subprocess.TimeoutExpired:
            continue
    p.wait()


def _kind(job):
    try:
        with open(job, encoding="utf-8") as f:
            return "PLAN" if "candidates" in json.load(f) else "CALIBRATE"
    except (OSError, ValueError, TypeError):
        return "CALIBRATE"      # the script says what is wrong with it


def run_job(job, timeout_s):
    """Runs one job; returns (status, message)."""
    kind = _kind(job)
    node, script = _locate.node(), _locate.launcher(kind)
    if not node:
        return _capi.ENOTFOUND, ("node not found: install it (Debian: "
                                 "apt-get install nodejs) or set QOPT_NODE")
    if not script:
        return _capi.ENOTFOUND, ("qopt-%s-ort not found: install qopt, or "
                                 "set QOPT_%s_ORT" % (kind.lower(), kind))
    try:
        p = subprocess.Popen([node, script, job], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, start_new_session=True)
    except OSError as e:
        return _capi.EIO, "cannot run %s %s: %s" % (node, script, e)
    try:
        _, err = p.communicate(timeout=timeout_s if timeout_s > 0 else None)
    except subprocess.TimeoutExpired:
        _end(p)
        return _capi.EINTERRUPTED, (
            "%s %s ran past its bound of %g s and was ended (the bound: "
            "QOPT_ORT_TIMEOUT)" % (node, script, timeout_s))
    except BaseException:
        _end(p)
        raise
    if p.returncode:
        tail = err[-_TAIL:].decode("utf-8", "replace").strip()
        how = ("ended by signal %d" % -p.returncode if p.returncode < 0
               else "exit status %d" % p.returncode)
        return _capi.EINVALID, "%s %s: %s%s" % (
            node, script, how, ": " + tail if tail else "")
    return _capi.OK, None


class Runner:
    """.fn is the RUNNER_FN to hand libqopt (keep the Runner alive while
    libqopt may call it); .raised the first exception that ended a job
    (a KeyboardInterrupt while ONNX Runtime ran), for the caller to
    raise once libqopt has returned."""

    def __init__(self):
        self.raised = None
        self.fn = _capi.RUNNER_FN(self._run)

    def _run(self, _arg, job, _result, timeout_s, err):
        try:
            code, message = run_job(_capi.text(job), timeout_s)
        except BaseException as e:      # never let an exception reach C
            if self.raised is None:
                self.raised = e
            code, message = _capi.EINTERRUPTED, "runner: %s" % (
                e or type(e).__name__)
        return _fail(err, code, message) if code else _capi.OK

    def reraise(self):
        if self.raised is not None:
            raise self.raised
