#!/usr/bin/env python3
"""tests/cli/plan-hostile.py WORK - fixtures of tests/cli/plan-hostile.sh:
small models whose names or numbers break naive plans, and samples.

- collide.onnx: layers X and Y (MatMul, constant weights) and an
  attention-like MatMul (activation x activation) whose output value is
  named X: an include glob "X" also matches that node (by its output).
- names.onnx: a layer whose name (150 bytes) is full of * ? [ ], a plain
  one, and layers left out (float): one named with a ',' (no INI list
  holds it), one with no name.
- nan.onnx: layer "good" and layer "bad", whose NVFP4 weight turns a
  small positive column sum negative: Sqrt then gives NaN.
Samples: DIR/sK/x.npy (x of [4, 16]); nan/ holds ones, bad/ one good
sample and one malformed .npy.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper, numpy_helper

w = sys.argv[1]
r = np.random.RandomState(7)


def save(path, nodes, inits, outputs):
    g = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", T.FLOAT, [4, 16])],
        [helper.make_tensor_value_info(o, T.FLOAT, None) for o in outputs],
        [numpy_helper.from_array(a, n) for n, a in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 19)])
    m.ir_version = 9
    onnx.save(onnx.shape_inference.infer_shapes(m), path)


def weight():
    return r.randn(16, 16).astype(np.float32) * 0.3


save(w + "/collide.onnx", [
    helper.make_node("MatMul", ["x", "wx"], ["a"], name="X"),
    helper.make_node("MatMul", ["a", "wy"], ["b"], name="Y"),
    helper.make_node("Transpose", ["b"], ["bt"], name="T"),
    # activation x activation, its output named like layer X
    helper.make_node("MatMul", ["a", "bt"], ["X"], name="attention"),
], {"wx": weight(), "wy": weight()}, ["X"])

star = ("*?[]" * 38)[:150]
open(w + "/star.txt", "w").write(star)
save(w + "/names.onnx", [
    helper.make_node("MatMul", ["x", "w1"], ["h1"], name=star),
    helper.make_node("MatMul", ["h1", "w2"], ["h2"], name="plain"),
    helper.make_node("MatMul", ["h2", "w3"], ["h3"], name="a,b"),
    helper.make_node("MatMul", ["h3", "w4"], ["y"]),   # no name
], {"w%d" % k: weight() for k in range(1, 5)}, ["y"])

# bad's columns: 6 then fifteen -0.39 sum to 0.15 in float; NVFP4 (the
# block's amax 6 on E2M1's 6) rounds -0.39 to -0.5: 6 - 7.5 < 0
bad = np.full((16, 16), -0.39, np.float32)
bad[0, :] = 6.0
save(w + "/nan.onnx", [
    helper.make_node("MatMul", ["x", "wg"], ["yg"], name="good"),
    helper.make_node("MatMul", ["x", "wb"], ["s"], name="bad"),
    helper.make_node("Sqrt", ["s"], ["yb"], name="sqrt"),
], {"wg": weight(), "wb": bad}, ["yg", "yb"])


def sample(folder, k, x):
    d = os.path.join(w, folder, "s%d" % k)
    os.makedirs(d, exist_ok=True)
    np.save(d + "/x.npy", x)


for k in range(3):
    sample("data", k, r.randn(4, 16).astype(np.float32))
    sample("nan", k, np.ones((4, 16), np.float32))
sample("bad", 0, r.randn(4, 16).astype(np.float32))
os.makedirs(w + "/bad/s1", exist_ok=True)
open(w + "/bad/s1/x.npy", "wb").write(b"\x93NUMPY not a header")
