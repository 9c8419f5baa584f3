#!/usr/bin/env python3
"""bench/calib-gen.py - the calibration benchmark model (make bench-scale):
NWEIGHTS independent MatMuls x[1,K] @ W_i[K,N], FLOAT, every weight in
external data (OUT.onnx.data), adding up to TOTAL_MIB; a Relu after each
so fp8 has activations to measure besides x.

    calib-gen.py OUT.onnx TOTAL_MIB NWEIGHTS
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

K = 4096


def main():
    if len(sys.argv) != 4:
        sys.stderr.write("usage: calib-gen.py OUT.onnx TOTAL_MIB NWEIGHTS\n")
        return 2
    out, mib, nw = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    n = max(1, (mib << 20) // (nw * K * 4))
    data = os.path.basename(out) + ".data"
    rng = np.random.default_rng(1)
    # one block of weights, written NWEIGHTS times: its values do not
    # matter to the timing, its size does
    w = (rng.standard_normal((K, n), dtype=np.float32) / 64).tobytes()
    inits, nodes, outs = [], [], []
    with open(os.path.join(os.path.dirname(out) or ".", data), "wb") as f:
        for i in range(nw):
            off = f.tell()
            f.write(w)
            t = TensorProto()
            t.name = "w%d" % i
            t.data_type = TensorProto.FLOAT
            t.dims.extend([K, n])
            t.data_location = TensorProto.EXTERNAL
            for k, v in (("location", data), ("offset", str(off)),
                         ("length", str(len(w)))):
                e = t.external_data.add()
                e.key, e.value = k, v
            inits.append(t)
            nodes.append(helper.make_node("MatMul", ["x", "w%d" % i],
                                          ["m%d" % i], name="mm%d" % i))
            nodes.append(helper.make_node("Relu", ["m%d" % i], ["y%d" % i],
                                          name="relu%d" % i))
            outs.append(helper.make_tensor_value_info(
                "y%d" % i, TensorProto.FLOAT, [1, n]))
    g = helper.make_graph(nodes, "calib_bench",
                          [helper.make_tensor_value_info(
                              "x", TensorProto.FLOAT, [1, K])],
                          outs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    with open(out, "wb") as f:
        f.write(m.SerializeToString())
    return 0


if __name__ == "__main__":
    sys.exit(main())
