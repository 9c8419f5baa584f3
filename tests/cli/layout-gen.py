#!/usr/bin/env python3
# tests/cli/layout-gen.py OUT.onnx [external] - a model for
# tests/cli/layout.sh: Y = X[1,256] @ W[256,1024] + B[1024] (W 1 MiB,
# B 4 KiB, both FLOAT), its initializers in external data
# (OUT.onnx.data) when asked, else inline. Prints nothing.
import sys
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

out = sys.argv[1]
ext = len(sys.argv) > 2 and sys.argv[2] == "external"
rng = np.random.default_rng(7)
w = numpy_helper.from_array(rng.standard_normal((256, 1024)).astype(np.float32), "W")
b = numpy_helper.from_array(rng.standard_normal(1024).astype(np.float32), "B")
g = helper.make_graph(
    [helper.make_node("MatMul", ["X", "W"], ["XW"]),
     helper.make_node("Add", ["XW", "B"], ["Y"])],
    "layout",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 256])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 1024])],
    [w, b])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
m.ir_version = 8
if ext:
    onnx.save_model(m, out, save_as_external_data=True,
                    all_tensors_to_one_file=True,
                    location=out.rsplit("/", 1)[-1] + ".data",
                    size_threshold=0)
else:
    onnx.save_model(m, out)
