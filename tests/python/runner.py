"""tests/python/runner.sh's checks: the calibration runner
(python/qopt/_runner.py) through its C signature, with stand-ins for
node and the launchers. argv: WORKDIR."""
import ctypes
import json
import os
import time

from checks import check

from qopt import _capi
from qopt._runner import Runner

work = os.path.abspath(__import__("sys").argv[1])


def script(name, body):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body)
    os.chmod(path, 0o755)
    return path


# The stand-in for node runs the launcher with sh; each launcher writes
# which one it is and its job to a log.
os.environ["QOPT_NODE"] = script("node", 'exec /bin/sh "$@"\n')
log = os.path.join(work, "log")
os.environ["QOPT_CALIBRATE_ORT"] = script(
    "calibrate", 'echo "calibrate $1" >>%s\n' % log)
os.environ["QOPT_PLAN_ORT"] = script("plan", 'echo "plan $1" >>%s\n' % log)


def job(name, content):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        json.dump(content, f)
    return path


def call(jobfile, timeout_s=0.0):
    r = Runner()
    err = _capi.QirError()
    st = r.fn(None, jobfile.encode(), b"result", timeout_s, ctypes.byref(err))
    return st, err.code, _capi.text(err.msg)


c, p = job("c.json", {"model": "m.onnx", "data": "d"}), \
    job("p.json", {"model": "m.onnx", "candidates": []})
r1, r2 = call(c), call(p)
with open(log) as f:
    ran = f.read().split("\n")
check("a calibration job runs qopt-calibrate-ort, a plan job (it lists "
      "candidates) qopt-plan-ort, each with node and the job",
      r1[0] == r2[0] == 0 and ran[:2] == ["calibrate " + c, "plan " + p],
      (r1, r2, ran))

os.environ["QOPT_CALIBRATE_ORT"] = script(
    "fail", 'echo "qopt-calibrate: the sample x.npy is bad" >&2\nexit 3\n')
st, code, msg = call(c)
check("a launcher that fails: its status, and err says the exit status "
      "and its last error line", st == code == _capi.EINVALID and
      "exit status 3" in msg and "x.npy is bad" in msg, (st, code, msg))

# Deaf to SIGTERM, with a child of its own: both ended at the bound
# (SIGTERM, then SIGKILL after the grace), nothing left running.
pids = os.path.join(work, "pids")
os.environ["QOPT_CALIBRATE_ORT"] = script(
    "deaf", "trap '' TERM\nsleep 300 &\necho $$ $! >%s\nwait\n" % pids)
t0 = time.monotonic()
st, code, msg = call(c, 1.0)
took = time.monotonic() - t0


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open("/proc/%d/stat" % pid) as f:     # a zombie is gone too
        return f.read().split(") ")[-1][0] != "Z"


# SIGKILL reaches the group at once, but a grandchild dies (and is
# reaped by init) a moment later: poll, generously.
with open(pids) as f:
    group = [int(x) for x in f.read().split()]
for _ in range(100):
    left = [pid for pid in group if alive(pid)]
    if not left:
        break
    time.sleep(0.1)
check("a launcher deaf to SIGTERM is ended at the bound with its process "
      "group, and err says so (%.1f s)" % took,
      st == _capi.EINTERRUPTED and "bound of 1 s" in msg and not left and
      took < 120, (st, msg, left))

os.environ["QOPT_NODE"] = os.path.join(work, "no-node")
st, code, msg = call(c)
check("node that cannot run: the runner's status and err name it",
      st != 0 and "no-node" in msg, (st, msg))
del os.environ["QOPT_CALIBRATE_ORT"]
os.environ["PATH"] = work + "/empty"
os.environ["QOPT_NODE"] = script("node", 'exec /bin/sh "$@"\n')
st, code, msg = call(c)
check("no launcher found: QOPT_CALIBRATE_ORT named in err",
      st == _capi.ENOTFOUND and "QOPT_CALIBRATE_ORT" in msg, (st, msg))
