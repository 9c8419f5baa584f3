#!/usr/bin/env python3
"""tests/passes/fp8/int8-gen.py - small models for
tests/passes/fp8/int8.sh (the pass int8), and the models that let
ONNX Runtime check its weight codes.

  int8-gen.py model KIND OUT.onnx      KIND: gemm11, nanconv, asym, mixed
  int8-gen.py samples KIND DIR N SEED  N sample folders (x.npy)
  int8-gen.py ortq ORIG OUT DIR        DIR/q.onnx: ONNX QuantizeLinear
                                       (INT8, OUT's scales and axes) of
                                       ORIG's weights; DIR/codes.onnx:
                                       OUT's stored INT8 codes; both with
                                       one unused input x, for
                                       tests/ort/run-compare.js --exact

gemm11   opset 11: Conv -> Relu -> Flatten -> Gemm (transB = 1) ->
         MatMul [K, N] (the pass raises the opset to 13 for per-axis DQ)
nanconv  Conv -> Relu -> Conv whose second weight holds a NaN
mixed    two MatMuls, the second's weight with an outlier per column (a
         plan over int8,fp8 takes int8 for one, fp8 for the other)
asym     Q/DQ UINT8 (zero point 128) -> Conv, and Q/DQ INT8 (zero point 3)
         -> Conv: inputs already quantized, not as TensorRT's INT8
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
vi = helper.make_tensor_value_info


def init(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


def save(g, path, opset, ir=None):
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="int8-gen")
    m.ir_version = ir or (7 if opset < 19 else 9)
    if ir is None:    # an older onnx's checker knows no later IR
        onnx.checker.check_model(m)
    onnx.save(m, path)


def conv(x, w, out, name):
    return helper.make_node("Conv", [x, w], [out], name=name, pads=[1, 1, 1, 1])


def gemm11(path, r):
    ws = {"wc": r.randn(8, 4, 3, 3) * 0.3, "wg": r.randn(16, 8 * 6 * 6) * 0.05,
          "bg": r.randn(16) * 0.1, "wm": r.randn(16, 10) * 0.2}
    nodes = [conv("x", "wc", "c", "conv"),
             helper.make_node("Relu", ["c"], ["r"], name="relu"),
             helper.make_node("Flatten", ["r"], ["f"], name="flat"),
             helper.make_node("Gemm", ["f", "wg", "bg"], ["g"], name="gemm",
                              transB=1),
             helper.make_node("MatMul", ["g", "wm"], ["y"], name="matmul")]
    g = helper.make_graph(nodes, "gemm11", [vi("x", F, [1, 4, 6, 6])],
                          [vi("y", F, [1, 10])],
                          [init(k, v.astype(np.float32)) for k, v in ws.items()])
    save(g, path, 11)


def nanconv(path, r):
    wb = (r.randn(4, 4, 3, 3) * 0.3).astype(np.float32)
    wb[1, 2, 0, 0] = np.nan
    nodes = [conv("x", "wa", "a", "ca"),
             helper.make_node("Relu", ["a"], ["ar"], name="relu"),
             conv("ar", "wb", "y", "cb")]
    g = helper.make_graph(nodes, "nanconv", [vi("x", F, [1, 4, 6, 6])],
                          [vi("y", F, [1, 4, 6, 6])],
                          [init("wa", (r.randn(4, 4, 3, 3) * 0.3)
                                .astype(np.float32)), init("wb", wb)])
    save(g, path, 17)


def asym(path, r):
    """Two Convs reading inputs already quantized otherwise: UINT8 (zero
    point 128) and INT8 with zero point 3."""
    nodes = []
    for k, (zt, zv) in enumerate(((TensorProto.UINT8, 128),
                                  (TensorProto.INT8, 3))):
        nodes += [helper.make_node("QuantizeLinear", ["x", "s", "z%d" % k],
                                   ["xq%d" % k], name="q%d" % k),
                  helper.make_node("DequantizeLinear", ["xq%d" % k, "s",
                                                        "z%d" % k],
                                   ["xd%d" % k], name="dq%d" % k),
                  conv("xd%d" % k, "w%d" % k, "y%d" % k, "conv%d" % k)]
    inits = [init("s", np.float32(0.02)),
             helper.make_tensor("z0", TensorProto.UINT8, [], [128]),
             helper.make_tensor("z1", TensorProto.INT8, [], [3])]
    inits += [init("w%d" % k, (r.randn(4, 4, 3, 3) * 0.3).astype(np.float32))
              for k in range(2)]
    g = helper.make_graph(nodes, "asym", [vi("x", F, [1, 4, 6, 6])],
                          [vi("y0", F, [1, 4, 6, 6]), vi("y1", F, [1, 4, 6, 6])],
                          inits)
    save(g, path, 13)


def mixed(path, r):
    """x [1, 64] -> MatMul (Gaussian weight) -> Mul (a mask that zeroes
    feature 0) -> MatMul whose weight row 0 is 1000: that row sets each
    column's scale but meets only zeros, so per-channel INT8 rounds the
    rest of the weight to 0 where FP8 keeps it; the first layer is
    better in INT8. A plan over int8,fp8 takes both."""
    w2 = r.randn(64, 64) * 0.2
    w2[0, :] = 1000.0
    mask = np.ones((1, 64))
    mask[0, 0] = 0
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h"], name="mm1"),
             helper.make_node("Mul", ["h", "mask"], ["hm"], name="mask"),
             helper.make_node("MatMul", ["hm", "w2"], ["y"], name="mm2")]
    g = helper.make_graph(nodes, "mixed", [vi("x", F, [1, 64])],
                          [vi("y", F, [1, 64])],
                          [init("w1", (r.randn(64, 64) * 0.2).astype(np.float32)),
                           init("mask", mask.astype(np.float32)),
                           init("w2", w2.astype(np.float32))])
    save(g, path, 17)


def samples(kind, d, n, seed):
    r = np.random.RandomState(seed)
    shape = (1, 64) if kind == "mixed" else (1, 4, 6, 6)
    for k in range(n):
        sd = os.path.join(d, "s%02d" % k)
        os.makedirs(sd, exist_ok=True)
        np.save(os.path.join(sd, "x.npy"), r.randn(*shape).astype(np.float32))


def weights(m):
    w = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    for n in m.graph.node:    # paddle2onnx: Constant nodes
        if n.op_type == "Constant":
            for a in n.attribute:
                if a.name == "value" and a.type == onnx.AttributeProto.TENSOR:
                    w[n.output[0]] = numpy_helper.to_array(a.t)
    return w


def ortq(orig, out, d):
    """Each weight DQ of OUT (main graph) whose codes are an INT8
    initializer NAME_int8: q.onnx quantizes ORIG's NAME with ONNX
    QuantizeLinear (OUT's scale, zero point and axis); codes.onnx
    returns the stored codes. ORT must give the same bytes."""
    ow = weights(orig)
    inits = {t.name: t for t in out.graph.initializer}
    qn, cn, qi, ci, outs = [], [], [], [], []
    for n in out.graph.node:
        if n.op_type != "DequantizeLinear" or not n.input[0].endswith("_int8"):
            continue
        codes, name = inits.get(n.input[0]), n.input[0][:-len("_int8")]
        if codes is None or name not in ow:
            continue
        k = len(outs)
        attrs = {a.name: a.i for a in n.attribute if a.name == "axis"}
        qi += [init("w%d" % k, ow[name]), inits[n.input[1]], inits[n.input[2]]]
        qn.append(helper.make_node("QuantizeLinear",
                                   ["w%d" % k, n.input[1], n.input[2]],
                                   ["o%d" % k], **attrs))
        ci.append(codes)
        cn.append(helper.make_node("Identity", [n.input[0]], ["o%d" % k]))
        outs.append(vi("o%d" % k, TensorProto.INT8, list(codes.dims)))
    x = [vi("x", F, [1])]
    opset = max(o.version for o in out.opset_import if o.domain in ("", "ai.onnx"))
    for nodes, its, f in ((qn, qi, "q.onnx"), (cn, ci, "codes.onnx")):
        seen, uniq = set(), []
        for t in its:
            if t.name not in seen:
                seen.add(t.name)
                uniq.append(t)
        save(helper.make_graph(nodes, "ortq", x, outs, uniq),
             os.path.join(d, f), opset, out.ir_version)
    print(len(outs))


def main():
    cmd = sys.argv[1]
    if cmd == "model":
        {"gemm11": gemm11, "nanconv": nanconv, "asym": asym, "mixed": mixed}[sys.argv[2]](
            sys.argv[3], np.random.RandomState(4))
    elif cmd == "samples":
        samples(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    else:
        ortq(onnx.load(sys.argv[2]), onnx.load(sys.argv[3]), sys.argv[4])


if __name__ == "__main__":
    main()
