#!/usr/bin/env python3
"""tests/passes/typecheck/models.py - models a strongly typed builder
refuses.

  models.py mixed OUT    Add(x FLOAT16, c FLOAT) -> y: mixed float inputs
  models.py qscale OUT   QuantizeLinear(x FLOAT16, scale FLOAT) -> DQ
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def save(g, path, opset):
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 9
    onnx.save(m, path)


def mixed(path):
    c = np.ones((4,), np.float32)
    g = helper.make_graph(
        [helper.make_node("Add", ["x", "c"], ["y"], name="add_mixed")],
        "mixed",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT16, [4])],
        [numpy_helper.from_array(c, "c")])
    save(g, path, 17)


def qscale(path):
    s = np.array(0.5, np.float32)
    g = helper.make_graph(
        [helper.make_node("QuantizeLinear", ["x", "s"], ["q"], name="q_mixed"),
         helper.make_node("DequantizeLinear", ["q", "s16"], ["y"], name="dq")],
        "qscale",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT16, [4])],
        [numpy_helper.from_array(s, "s"),
         numpy_helper.from_array(s.astype(np.float16), "s16")])
    save(g, path, 19)


if __name__ == "__main__":
    {"mixed": mixed, "qscale": qscale}[sys.argv[1]](sys.argv[2])
