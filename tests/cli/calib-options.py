#!/usr/bin/env python3
"""tests/cli/calib-options.py OUT.onnx - fixture of calib-options.sh: a
MatMul whose input x has the symbolic dimension 'seq' ([seq, 4] x [4, 3]),
so that --random without --dim says once that seq is 1."""
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper, numpy_helper

w = np.random.RandomState(1).randn(4, 3).astype(np.float32)
g = helper.make_graph(
    [helper.make_node("MatMul", ["x", "w"], ["y"], name="fc")], "seq",
    [helper.make_tensor_value_info("x", T.FLOAT, ["seq", 4])],
    [helper.make_tensor_value_info("y", T.FLOAT, ["seq", 3])],
    [numpy_helper.from_array(w, "w")])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
m.ir_version = 8
onnx.save(m, sys.argv[1])
