#!/usr/bin/env python3
"""tests/cli/calib-messages.py WORK - fixtures of tests/cli/calib-messages.sh:
models whose names or runs make qopt calibrate say something (a tensor
name holding a terminal escape, two inputs sharing a symbolic dim, a
Reshape that fails inside ORT) and their samples."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper, numpy_helper

w = sys.argv[1]
r = np.random.RandomState(5)


def save(path, nodes, inputs, outputs, inits):
    g = helper.make_graph(nodes, "g", inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, path)


def w_(name, shape):
    return numpy_helper.from_array(r.randn(*shape).astype(np.float32), name)


def vi(name, shape):
    return helper.make_tensor_value_info(name, T.FLOAT, shape)


def sample(name, **arrays):
    d = os.path.join(w, name, "s")
    os.makedirs(d, exist_ok=True)
    for k, v in arrays.items():
        np.save(os.path.join(d, k + ".npy"), v.astype(np.float32))


# MatMul -> Relu (output named act_XX) -> MatMul; act_XX patched to
# "a" ESC "[2Jx" (same length) in the bytes, as protobuf would refuse
# nothing here but a shell here-doc would.
save(w + "/plain.onnx",
     [helper.make_node("MatMul", ["x", "w1"], ["h"], name="fc1"),
      helper.make_node("Relu", ["h"], ["act_XX"], name="relu"),
      helper.make_node("MatMul", ["act_XX", "w2"], ["y"], name="fc2")],
     [vi("x", [3, 8])], [vi("y", [3, 4])], [w_("w1", (8, 6)), w_("w2", (6, 4))])
raw = open(w + "/plain.onnx", "rb").read()
assert raw.count(b"act_XX") >= 2
open(w + "/esc.onnx", "wb").write(raw.replace(b"act_XX", b"a\x1b[2Jx"))
# x finite, the Relu output overflows to Inf: the script names it
sample("huge", x=np.full((3, 8), 3e38))
sample("good", x=r.randn(3, 8))

# a and b share the symbolic dim 'seq'
save(w + "/two.onnx",
     [helper.make_node("Add", ["a", "b"], ["s"], name="add"),
      helper.make_node("MatMul", ["s", "w1"], ["y"], name="fc")],
     [vi("a", [2, "seq"]), vi("b", [2, "seq"])], [vi("y", [2, 6])],
     [w_("w1", (3, 6))])
sample("disagree", a=r.randn(2, 3), b=r.randn(2, 5))

# a Reshape to a shape the data cannot take: ORT fails while running
save(w + "/reshape.onnx",
     [helper.make_node("MatMul", ["x", "w1"], ["h"], name="fc1"),
      helper.make_node("Reshape", ["h", "shape"], ["y"], name="bad")],
     [vi("x", [3, 8])], [vi("y", [5, 5])],
     [w_("w1", (8, 6)),
      numpy_helper.from_array(np.array([5, 5], np.int64), "shape")])

# K = 16: nvfp4-weights quantizes w1 (FLOAT4E2M1, which ORT cannot run)
save(w + "/wide.onnx",
     [helper.make_node("MatMul", ["x", "w1"], ["y"], name="fc1")],
     [vi("x", [2, 16])], [vi("y", [2, 16])], [w_("w1", (16, 16))])
sample("wide", x=r.randn(2, 16))
