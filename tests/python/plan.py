"""tests/python/plan.sh's checks: qopt.plan against qopt plan on a
three-layer MLP. argv: WORKDIR QOPT."""
import json
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from checks import check

import qopt

work, QOPT = sys.argv[1:3]
rng = np.random.default_rng(3)
inits, nodes, prev = [], [], "x"
for i, (k, n) in enumerate([(32, 64), (64, 32), (32, 16)]):
    inits.append(numpy_helper.from_array(
        rng.standard_normal((k, n)).astype(np.float32) / 8, "w%d" % i))
    nodes.append(helper.make_node("MatMul", [prev, "w%d" % i], ["h%d" % i],
                                  name="mm%d" % i))
    prev = "h%d" % i
g = helper.make_graph(
    nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 32])],
    [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [4, 16])], inits)
mp = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
mp.ir_version = 8
m = os.path.join(work, "m.onnx")
onnx.save(mp, m)
samples = [{"x": rng.standard_normal((4, 32)).astype(np.float32)}
           for _ in range(3)]
data = os.path.join(work, "d")
for i, s in enumerate(samples):
    os.makedirs(os.path.join(data, "s%d" % i))
    np.save(os.path.join(data, "s%d" % i, "x.npy"), s["x"])

# formats without calibration: the INI names no file beside it
p = subprocess.run([QOPT, "plan", "-q", m, "--data", data, "--formats",
                    "nvfp4,mxfp8,none", "--effective-bits", "7", "-o",
                    os.path.join(work, "p.ini"), "--json",
                    os.path.join(work, "p.json")], capture_output=True)
if p.returncode:
    print("  qopt plan: " + p.stderr.decode())
with open(os.path.join(work, "p.ini")) as f:
    want_ini = f.read()
with open(os.path.join(work, "p.json")) as f:
    want = json.load(f)

got = qopt.plan(m, data, formats=["nvfp4", "mxfp8", "none"],
                effective_bits=7)
check("qopt.plan(folder) gives the INI of qopt plan --data folder",
      got.ini == want_ini, got.ini)
chosen = {l["node"]: l["chosen"] for l in want["layers"]}
check("its report chooses as qopt plan's (%s)" % ", ".join(
      "%s %s" % kv for kv in sorted(chosen.items())),
      {l["node"]: l["chosen"] for l in got.report["layers"]} == chosen and
      got.report["effective_bits"] == want["effective_bits"])

got = qopt.plan(mp, samples, formats="nvfp4,mxfp8,none", effective_bits=7)


def body(ini):      # less the comment naming the model and the samples
    lines = ini.splitlines()
    return lines[lines.index("#   qopt -p THIS.ini MODEL.onnx -o OUT.onnx"):]


check("qopt.plan(ModelProto, NumPy samples) gives the same INI, less the "
      "line naming the model and samples", body(got.ini) == body(want_ini),
      got.ini)
p = subprocess.run([QOPT, "-q", "-p", os.path.join(work, "p.ini"), m, "-o",
                    os.path.join(work, "cli.onnx")], capture_output=True)
check("the plan's INI runs in qopt.run as in the qopt program",
      p.returncode == 0 and qopt.run(m, pipeline=got.ini) ==
      onnx.load(os.path.join(work, "cli.onnx")))

# fp8 reads a calibration file: the INI names it after the output given,
# and the plan hands its text over (Plan.calibration), as qopt plan -o
# writes it beside the INI
p = subprocess.run([QOPT, "plan", "-q", m, "--data", data, "--formats",
                    "fp8,none", "--effective-bits", "12", "-o",
                    os.path.join(work, "f.ini")], capture_output=True)
with open(os.path.join(work, "f.ini")) as f:
    want_ini = f.read()
with open(os.path.join(work, "f.calib.json")) as f:
    want_calib = f.read()
got = qopt.plan(m, data, formats="fp8,none", effective_bits=12,
                output=os.path.join(work, "g.ini"))
check("a calibrated plan: qopt.plan's INI is qopt plan's but for the "
      "calibration file's name (g.calib.json for output g.ini)",
      p.returncode == 0 and
      got.ini == want_ini.replace("f.calib.json", "g.calib.json"), got.ini)
check("its calibration file is qopt plan's, under that name",
      got.calibration == {"g.calib.json": want_calib},
      sorted(got.calibration))
got.write(os.path.join(work, "g.ini"))
p = subprocess.run([QOPT, "-q", "-p", os.path.join(work, "g.ini"), m, "-o",
                    os.path.join(work, "g.onnx")], capture_output=True)
q = subprocess.run([QOPT, "-q", "-p", os.path.join(work, "f.ini"), m, "-o",
                    os.path.join(work, "f.onnx")], capture_output=True)
check("Plan.write's INI and calibration file run in qopt -p as qopt plan's "
      "do, to the same model",
      p.returncode == 0 and q.returncode == 0 and
      onnx.load(os.path.join(work, "g.onnx")) ==
      onnx.load(os.path.join(work, "f.onnx")), p.stderr.decode())

# bad options are qopt.Error with the usage code, naming what is wrong
def raised_by(**kw):
    """The qopt.Error qopt.plan(m, data, **kw) raises, or None."""
    try:
        qopt.plan(m, data, **kw)
    except qopt.Error as e:
        return e
    return None


raised = raised_by(formats="fp8,fp9", effective_bits=9)
check("an unknown format raises qopt.Error (usage) naming it",
      raised is not None and raised.code == qopt._capi.EUSAGE and "fp9" in str(raised),
      repr(raised))
raised = raised_by(formats="nvfp4", effective_bits=3)
check("a budget below the cheapest format raises qopt.Error",
      raised is not None and "below the cheapest" in str(raised),
      repr(raised))
