#!/usr/bin/env python3
"""tests/cli/calib-subgraph.py WORK - fixtures of calib-subgraph.sh.

sib.onnx: If 'gate' whose two branches both name a tensor 'h' (then:
Relu(x), else: Neg(x)), each read by a MatMul (weights wt, we); samples
in WORK/sib.cal (4 taking each branch) and their NumPy amax per branch
in WORK/sib.want.json.
dup.onnx: two such Ifs, both named 'gate'.
ifloop.onnx: a Loop of 2 iterations whose body holds If 'alt' taking
the then branch on even iterations only (then: MatMul(Relu(x), wl)),
then a MatMul 'tail' of the stacked outputs.
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper, numpy_helper

w = sys.argv[1]
r = np.random.RandomState(11)
vi = helper.make_tensor_value_info


def save(g, name):
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(w, name))


def branch(name, op, wname, out):
    return helper.make_graph(
        [helper.make_node(op, ["x"], ["h"], name=name + "_act"),
         helper.make_node("MatMul", ["h", wname], [out], name=name + "_fc")],
        name, [], [vi(out, T.FLOAT, [2, 3])])


wt = r.randn(4, 3).astype(np.float32)
we = r.randn(4, 3).astype(np.float32)
save(helper.make_graph(
    [helper.make_node("If", ["c"], ["y"], name="gate",
                      then_branch=branch("then", "Relu", "wt", "yt"),
                      else_branch=branch("else", "Neg", "we", "ye"))],
    "sib", [vi("x", T.FLOAT, [2, 4]), vi("c", T.BOOL, [])],
    [vi("y", T.FLOAT, [2, 3])],
    [numpy_helper.from_array(wt, "wt"), numpy_helper.from_array(we, "we")]),
    "sib.onnx")
want = {"then": 0.0, "else": 0.0}
for i in range(8):
    d = os.path.join(w, "sib.cal", "s%d" % i)
    os.makedirs(d)
    x = (r.randn(2, 4) * (1 + i)).astype(np.float32)
    c = i % 2 == 0
    np.save(os.path.join(d, "x.npy"), x)
    np.save(os.path.join(d, "c.npy"), np.array(c))
    if c:
        want["then"] = max(want["then"], float(np.abs(np.maximum(x, 0)).max()))
    else:
        want["else"] = max(want["else"], float(np.abs(-x).max()))
json.dump(want, open(os.path.join(w, "sib.want.json"), "w"))

# dup.onnx: two Ifs both named 'gate' (node names need not be unique),
# each with a tensor 'h' in each branch: the scoped keys still collide.
save(helper.make_graph(
    [helper.make_node("If", ["c"], ["y1"], name="gate",
                      then_branch=branch("then", "Relu", "wt", "yt"),
                      else_branch=branch("else", "Neg", "we", "ye")),
     helper.make_node("If", ["c"], ["y2"], name="gate",
                      then_branch=branch("then", "Relu", "wt", "yt"),
                      else_branch=branch("else", "Neg", "we", "ye"))],
    "dup", [vi("x", T.FLOAT, [2, 4]), vi("c", T.BOOL, [])],
    [vi("y1", T.FLOAT, [2, 3]), vi("y2", T.FLOAT, [2, 3])],
    [numpy_helper.from_array(wt, "wt"), numpy_helper.from_array(we, "we")]),
    "dup.onnx")

wl = r.randn(4, 4).astype(np.float32)
i64 = lambda n, v: numpy_helper.from_array(np.array(v, np.int64), n)
then_g = helper.make_graph(
    [helper.make_node("Relu", ["x"], ["rx"], name="alt_relu"),
     helper.make_node("MatMul", ["rx", "wl"], ["o1"], name="alt_fc")],
    "then", [], [vi("o1", T.FLOAT, [2, 4])])
else_g = helper.make_graph(
    [helper.make_node("Identity", ["x"], ["o2"], name="alt_id")],
    "else", [], [vi("o2", T.FLOAT, [2, 4])])
body = helper.make_graph(
    [helper.make_node("Mod", ["i", "two"], ["m"], name="mod"),
     helper.make_node("Equal", ["m", "zero"], ["even"], name="even"),
     helper.make_node("If", ["even"], ["o"], name="alt",
                      then_branch=then_g, else_branch=else_g),
     helper.make_node("Identity", ["cin"], ["cout"], name="keep")],
    "body", [vi("i", T.INT64, []), vi("cin", T.BOOL, [])],
    [vi("cout", T.BOOL, []), vi("o", T.FLOAT, [2, 4])],
    [i64("two", 2), i64("zero", 0)])
save(helper.make_graph(
    [helper.make_node("Loop", ["n", "t"], ["ys"], name="loop", body=body),
     helper.make_node("MatMul", ["ys", "wl"], ["z"], name="tail")],
    "ifloop", [vi("x", T.FLOAT, [2, 4])], [vi("z", T.FLOAT, [2, 2, 4])],
    [i64("n", 2), numpy_helper.from_array(np.array(True), "t"),
     numpy_helper.from_array(wl, "wl")]), "ifloop.onnx")
d = os.path.join(w, "ifloop.cal")
os.makedirs(d)
np.save(os.path.join(d, "x.npy"), r.randn(2, 4).astype(np.float32))
