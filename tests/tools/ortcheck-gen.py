#!/usr/bin/env python3
"""tests/tools/ortcheck-gen.py WORK - fixtures of tests/tools/ortcheck-compare.sh:
pairs of models whose outputs qopt-ort-check must tell apart or not
(strings, int64 beyond 2^53, infinities), models with symbolic dims and
their samples, and a model for the lossy-pipeline bisect recipe."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper, numpy_helper

w = sys.argv[1]
r = np.random.RandomState(7)


def save(name, nodes, inputs, outputs, inits=()):
    g = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, os.path.join(w, name))


def vi(name, shape, t=T.FLOAT):
    return helper.make_tensor_value_info(name, t, shape)


def const(out, tensor):
    return helper.make_node("Constant", [], [out], value=tensor)


ident = helper.make_node("Identity", ["X"], ["Y"])
# a second output that is a constant of another type
for name, t, val in [("str_a", T.STRING, [b"cat"]), ("str_b", T.STRING, [b"dog"]),
                     ("i64_a", T.INT64, [2 ** 60]), ("i64_b", T.INT64, [2 ** 60 + 1]),
                     ("u64_a", T.UINT64, [2 ** 63 + 2]), ("u64_b", T.UINT64, [2 ** 63 + 3]),
                     ("bool_a", T.BOOL, [True, False]), ("bool_b", T.BOOL, [True, True])]:
    save(name + ".onnx", [ident, const("C", helper.make_tensor("c", t, [len(val)], val))],
         [vi("X", [1, 4])], [vi("Y", [1, 4]), vi("C", [len(val)], t)])
# X / 0: +-Inf wherever X is not 0
save("inf.onnx", [const("Z", numpy_helper.from_array(np.zeros((1, 4), np.float32))),
                  helper.make_node("Div", ["X", "Z"], ["Y"])],
     [vi("X", [1, 4])], [vi("Y", [1, 4])])
save("id.onnx", [ident], [vi("X", [1, 4])], [vi("Y", [1, 4])])
# symbolic dims
save("seq.onnx", [ident], [vi("X", [1, "seq"])], [vi("Y", [1, "seq"])])
save("two.onnx", [helper.make_node("Add", ["A", "B"], ["Y"])],
     [vi("A", [1, "seq"]), vi("B", [1, "seq"])], [vi("Y", [1, "seq"])])
for d, arrays in [("seqs/s0", {"X": (1, 3)}), ("seqs/s1", {"X": (1, 5)}),
                  ("disagree/s0", {"A": (1, 3), "B": (1, 5)})]:
    os.makedirs(os.path.join(w, d), exist_ok=True)
    for k, shape in arrays.items():
        np.save(os.path.join(w, d, k + ".npy"), r.randn(*shape).astype(np.float32))
# small weights (0.01): nvfp4-weights mode=fake costs a little accuracy,
# t-perturb's +1 on one weight a lot
save("lossy.onnx", [helper.make_node("MatMul", ["X", "W"], ["Y"])],
     [vi("X", [4, 16])], [vi("Y", [4, 16])],
     [numpy_helper.from_array((0.01 * r.randn(16, 16)).astype(np.float32), "W")])
