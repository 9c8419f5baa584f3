#!/usr/bin/python3
"""examples/make-mlp.py - writes examples/mlp.onnx, the example model.

A 2-layer MLP (opset 13, so opset-check has an upgrade to do) built to
give every built-in pass some work:
  x[batch,64] -> MatMul(W1, an initializer) -> Add(b1) -> Relu
    -> QuantizeLinear/DequantizeLinear (uint8) -> Cast(FLOAT16)
    -> Cast(FLOAT) -> QuantizeLinear/DequantizeLinear (uint8)
    -> MatMul(W2, from a Constant node) -> Add(b2) -> y[batch,64]
- DQ -> Cast(FLOAT16) and Cast(FLOAT) -> Q are the two shapes cast-fold
  rewrites (once the opset is 19 or more);
- W1 and W2 are [64, 64] FLOAT weights for nvfp4-weights (K = 64: four
  blocks of 16), one stored as an initializer, one in a Constant node.
Values are seeded: running it again gives the same bytes.

Usage: /usr/bin/python3 examples/make-mlp.py [OUT.onnx]
(needs python3-onnx and numpy; the `python3` of a pyenv may lack them).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

D = 64


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "mlp.onnx")
    rng = np.random.default_rng(20240601)
    w1 = (rng.standard_normal((D, D)) / np.sqrt(D)).astype(np.float32)
    b1 = (rng.standard_normal(D) * 0.1).astype(np.float32)
    w2 = (rng.standard_normal((D, D)) / np.sqrt(D)).astype(np.float32)
    b2 = (rng.standard_normal(D) * 0.1).astype(np.float32)

    inits = [
        numpy_helper.from_array(w1, "W1"),
        numpy_helper.from_array(b1, "b1"),
        numpy_helper.from_array(b2, "b2"),
        numpy_helper.from_array(np.array(0.02, np.float32), "h_scale"),
        numpy_helper.from_array(np.array(0, np.uint8), "h_zero"),
        numpy_helper.from_array(np.array(0.02, np.float32), "h16_scale"),
        numpy_helper.from_array(np.array(0, np.uint8), "h16_zero"),
    ]
    nodes = [
        helper.make_node("MatMul", ["x", "W1"], ["fc1"], name="fc1"),
        helper.make_node("Add", ["fc1", "b1"], ["fc1_bias"], name="fc1_bias"),
        helper.make_node("Relu", ["fc1_bias"], ["h"], name="relu"),
        helper.make_node("QuantizeLinear", ["h", "h_scale", "h_zero"],
                         ["h_q"], name="h_quant"),
        helper.make_node("DequantizeLinear", ["h_q", "h_scale", "h_zero"],
                         ["h_dq"], name="h_dequant"),
        helper.make_node("Cast", ["h_dq"], ["h16"], name="to_half",
                         to=TensorProto.FLOAT16),
        helper.make_node("Cast", ["h16"], ["h32"], name="to_float",
                         to=TensorProto.FLOAT),
        helper.make_node("QuantizeLinear", ["h32", "h16_scale", "h16_zero"],
                         ["h2_q"], name="h2_quant"),
        helper.make_node("DequantizeLinear", ["h2_q", "h16_scale", "h16_zero"],
                         ["h2"], name="h2_dequant"),
        helper.make_node("Constant", [], ["W2"], name="W2_const",
                         value=numpy_helper.from_array(w2, "W2")),
        helper.make_node("MatMul", ["h2", "W2"], ["fc2"], name="fc2"),
        helper.make_node("Add", ["fc2", "b2"], ["y"], name="fc2_bias"),
    ]
    graph = helper.make_graph(
        nodes, "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", D])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", D])],
        initializer=inits)
    model = helper.make_model(
        graph, producer_name="qopt-examples", producer_version="1",
        opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, out)
    print("%s: %d bytes" % (out, os.path.getsize(out)))


if __name__ == "__main__":
    main()
