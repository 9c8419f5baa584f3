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


def body(ini):      # less the lines naming the model and the samples
    return [l for l in ini.splitlines() if not l.startswith("#   qopt plan:")]


check("qopt.plan(ModelProto, NumPy samples) gives the same INI, less the "
      "line naming the model and samples", body(got.ini) == body(want_ini),
      got.ini)
p = subprocess.run([QOPT, "-q", "-p", os.path.join(work, "p.ini"), m, "-o",
                    os.path.join(work, "cli.onnx")], capture_output=True)
check("the plan's INI runs in qopt.run as in the qopt program",
      p.returncode == 0 and qopt.run(m, pipeline=got.ini) ==
      onnx.load(os.path.join(work, "cli.onnx")))
