#!/usr/bin/env python3
"""tests/cli/calib-method-gen.py: the model with an activation outlier of
tests/cli/calib-method.sh, its samples, and its INT8 Q/DQ form.

  calib-method-gen.py model OUT.onnx          x[16,256] -> MatMul -> Relu
                                              -> MatMul -> y[16,10]
  calib-method-gen.py samples DIR N SEED      N samples (DIR/NNN/input_0.pb):
                                              x ~ N(0, 1), and in one sample
                                              in 8 one element at +-40 (a
                                              rare spike, as real
                                              activations have)
  calib-method-gen.py qdq MODEL CALIB OUT     every activation the file
                                              lists behind INT8 Q/DQ,
                                              scale = amax / 127, zero
                                              point 0 (the int8 pass's form)
  calib-method-gen.py big DIR N SEED          N samples of x[16,256] with
                                              no spike (the memory check)
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

D, B, C = 256, 16, 10


def model(path):
    rng = np.random.default_rng(7)
    w1 = (rng.standard_normal((D, D)) / np.sqrt(D)).astype(np.float32)
    w2 = (rng.standard_normal((D, C)) / np.sqrt(D)).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h"], name="mm1"),
             helper.make_node("Relu", ["h"], ["r"], name="relu"),
             helper.make_node("MatMul", ["r", "w2"], ["y"], name="mm2")]
    g = helper.make_graph(
        nodes, "outlier",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [B, D])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [B, C])],
        [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.save(m, path)


def samples(out, n, seed, spikes=True):
    rng = np.random.default_rng(seed)
    for s in range(n):
        x = rng.standard_normal((B, D)).astype(np.float32)
        if spikes and s % 8 == 3:
            x[rng.integers(B), rng.integers(D)] = 40 * rng.choice([-1, 1])
        d = os.path.join(out, "%03d" % s)
        os.makedirs(d, exist_ok=True)
        t = numpy_helper.from_array(x, "x")
        with open(os.path.join(d, "input_0.pb"), "wb") as f:
            f.write(t.SerializeToString())


def qdq(src, calib, out):
    m = onnx.load(src)
    tensors = json.load(open(calib))["tensors"]
    g = m.graph
    for name, t in tensors.items():
        scale = np.float32(t["amax"] / 127)
        q, dq = name + "_q", name + "_dq"
        g.initializer.extend([
            numpy_helper.from_array(np.array(scale, np.float32), name + "_s"),
            numpy_helper.from_array(np.array(0, np.int8), name + "_z")])
        for n in g.node:
            for i, v in enumerate(n.input):
                if v == name:
                    n.input[i] = dq
        g.node.extend([
            helper.make_node("QuantizeLinear", [name, name + "_s", name + "_z"],
                             [q]),
            helper.make_node("DequantizeLinear", [q, name + "_s", name + "_z"],
                             [dq])])
    # topological order: each Q/DQ pair right after its producer
    order, done = [], {i.name for i in g.input} | {i.name for i in g.initializer}
    pending = list(g.node)
    while pending:
        for n in pending:
            if all(v in done for v in n.input):
                order.append(n)
                done.update(n.output)
                pending.remove(n)
                break
        else:
            sys.exit("calib-method-gen.py: cycle")
    del g.node[:]
    g.node.extend(order)
    onnx.save(m, out)


def main():
    cmd = sys.argv[1]
    if cmd == "model":
        model(sys.argv[2])
    elif cmd in ("samples", "big"):
        samples(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),
                cmd == "samples")
    elif cmd == "qdq":
        qdq(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
