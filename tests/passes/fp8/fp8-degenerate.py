#!/usr/bin/env python3
"""tests/passes/fp8/fp8-degenerate.py - helpers of fp8-degenerate.sh.

  model OUT.onnx        x -> Conv(w_tiny) -> a and x -> Conv(w) -> y,
                        w_tiny all 1e-44 (its FLOAT scale 1e-44/448
                        rounds to 0)
  amax IN.json OUT.json NAME VALUE   the file with NAME's amax set
  float MODEL.onnx NODE  exit 0 when neither input of NODE comes from a
                        DequantizeLinear (the layer stayed float)
  fp8 MODEL.onnx NODE    exit 0 when both inputs do
"""
import json
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper, numpy_helper


def model(path):
    r = np.random.RandomState(3)
    tiny = np.full((4, 2, 3, 3), 1e-44, np.float32)
    w = r.randn(4, 2, 3, 3).astype(np.float32)
    g = helper.make_graph(
        [helper.make_node("Conv", ["x", "w_tiny"], ["a"], name="ct", pads=[1] * 4),
         helper.make_node("Conv", ["x", "w"], ["y"], name="cw", pads=[1] * 4)],
        "deg", [helper.make_tensor_value_info("x", T.FLOAT, [1, 2, 4, 4])],
        [helper.make_tensor_value_info("a", T.FLOAT, [1, 4, 4, 4]),
         helper.make_tensor_value_info("y", T.FLOAT, [1, 4, 4, 4])],
        [numpy_helper.from_array(tiny, "w_tiny"), numpy_helper.from_array(w, "w")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, path)


def set_amax(src, dst, name, value):
    with open(src) as f:
        doc = json.load(f)
    doc["tensors"][name]["amax"] = float(value)
    with open(dst, "w") as f:
        json.dump(doc, f)


def dq_inputs(path, node):
    g = onnx.load(path).graph
    by_out = {o: n for n in g.node for o in n.output}
    n = [k for k in g.node if k.name == node]
    if len(n) != 1:
        sys.exit("no node %s" % node)
    return [i in by_out and by_out[i].op_type == "DequantizeLinear"
            for i in n[0].input[:2]]


def main():
    cmd = sys.argv[1]
    if cmd == "model":
        model(sys.argv[2])
    elif cmd == "amax":
        set_amax(*sys.argv[2:6])
    elif cmd == "float":
        sys.exit(0 if not any(dq_inputs(sys.argv[2], sys.argv[3])) else 1)
    elif cmd == "fp8":
        sys.exit(0 if all(dq_inputs(sys.argv[2], sys.argv[3])) else 1)
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
