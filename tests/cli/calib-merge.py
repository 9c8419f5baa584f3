#!/usr/bin/env python3
"""tests/cli/calib-merge.py WORK - fixtures of tests/cli/calib-merge.sh:
a small model (MatMul, Relu, MatMul) and 6 samples, as one folder (all)
and split in two (p1: 2 samples, p2: 4)."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper, numpy_helper

w = sys.argv[1]
r = np.random.RandomState(11)


def vi(name, shape):
    return helper.make_tensor_value_info(name, T.FLOAT, shape)


def init(name, *shape):
    return numpy_helper.from_array(r.randn(*shape).astype(np.float32), name)


g = helper.make_graph(
    [helper.make_node("MatMul", ["x", "w1"], ["h"], name="fc1"),
     helper.make_node("Relu", ["h"], ["hr"], name="relu"),
     helper.make_node("MatMul", ["hr", "w2"], ["y"], name="fc2")],
    "g", [vi("x", [3, 8])], [vi("y", [3, 4])],
    [init("w1", 8, 6), init("w2", 6, 4)])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
m.ir_version = 8
onnx.save(m, os.path.join(w, "one.onnx"))

# Each sample's range differs, so a merge that took one part's amax
# (or a min) would not give the whole's.
x = (r.randn(6, 3, 8) * np.arange(1, 7).reshape(6, 1, 1)).astype(np.float32)
for i in range(6):
    for part in ("all", "p1" if i < 2 else "p2"):
        d = os.path.join(w, part, "s%02d" % i)
        os.makedirs(d)
        np.save(os.path.join(d, "x.npy"), x[i])
