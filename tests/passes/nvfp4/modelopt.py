#!/usr/bin/env python3
"""tests/passes/nvfp4/modelopt.py DIR - a ModelOpt-style W4A4 export and a
NumPy reference of what it means.

w4a4.onnx (opset 20, IR 10, as ModelOpt ships FP32 NVFP4 exports):
  x [2, 8, 64] -> TRT_FP4DynamicQuantize(x, g) -> DQ(s, g) -> DQ(x_f4, s,
  axis -1, block 16) -> MatMul(., Transpose(TRT_FP4QDQ(W1 [32, 64])))
  -> Relu -> the same chain again (K 32, W2 [32, 32]) -> MatMul with
  W_head [32, 48], which the export left float (no placeholder: an LM
  head). g = amax / 6.0 / 448.0 in Python float, one FP32 Constant per
  use, as export_onnx.py writes it.
attn.onnx: the same with FP8 attention quantizers (NVFP4_FP8_MHA_CONFIG):
  a single-head attention block whose Q, K, V projections and output
  projection are W4A4 as above, trt::TRT_FP8QuantizeLinear ->
  TRT_FP8DequantizeLinear on Q, K, V and the Softmax output (scale
  1/448); attn_x.bin / attn_ref.bin its input and NumPy reference.
bad.onnx: TRT_FP4QDQ on the activation x (a static activation
  quantizer, which has no amax).
x.bin: the input; ref.bin: the exporter's semantics in NumPy (float32
  arithmetic, round half to even): activations e2m1(x / S) * S with
  S = e4m3(amax_blk / 6 / g) * g per block of 16 along the last axis;
  weights NVFP4 with g_w = amax / 2688 (every block holds +-amax, so the
  block scales are exactly 448 and the exporter's unrounded scale and
  the stored one agree); the head float.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = np.float32


def e4m3(v):
    v = v.astype(F)
    m, e = np.frexp(v)
    e = np.maximum(e - 1, -6)
    step = np.ldexp(F(1), e - 3).astype(F)
    r = (np.round(v / step) * step).astype(F)
    return np.minimum(r, F(448)).astype(F)


def e2m1(y):
    a = np.minimum(np.abs(y), F(6)).astype(F)
    r = np.where(a < 2, np.round(a * F(2)) * F(0.5),
                 np.where(a < 4, np.round(a), np.round(a * F(0.5)) * F(2)))
    return np.where(np.signbit(y), -r, r).astype(F)


def fake_blocks(x, g):
    """TensorRT's DynamicQuantize then the two DQs, along the last axis."""
    sh = x.shape
    xb = x.reshape(-1, sh[-1] // 16, 16).astype(F)
    bm = np.abs(xb).max(axis=-1, keepdims=True).astype(F)
    s = e4m3((bm / F(6)) / F(g))
    s = np.where(s == 0, F(2.0 ** -9), s)
    s = np.where(bm > 0, s, F(1)).astype(F)
    S = (s * F(g)).astype(F)
    return (e2m1((xb / S).astype(F)) * S).astype(F).reshape(sh)


def weight(rng, n, k):
    w = rng.standard_normal((n, k)).astype(F) * F(0.1)
    amax = F(0.5)
    w = np.clip(w, -amax, amax)
    for b in range(k // 16):
        w[:, b * 16 + rng.integers(16)] = amax * np.where(rng.random(n) < .5, -1, 1)
    return w


def fake_weight(w):
    g = F(np.abs(w).max()) / F(2688)
    return fake_blocks(w, g)


def const(name, v):
    return helper.make_node("Constant", [], [name], name=name,
                            value=numpy_helper.from_array(np.array(v, F), name))


def dyn_chain(nodes, x, tag, amax):
    g = float(amax) / 6.0 / 448.0
    nodes += [const(tag + "_g", [g]), const(tag + "_g2", [g])]
    nodes.append(helper.make_node(
        "TRT_FP4DynamicQuantize", [x, tag + "_g"], [tag + "_f4", tag + "_s8"],
        name=tag + "/TRT_FP4DynamicQuantize", domain="trt", axis=-1,
        block_size=16, scale_type=17))
    nodes.append(helper.make_node("DequantizeLinear", [tag + "_s8", tag + "_g2"],
                                  [tag + "_s"], name=tag + "/DQ_scale"))
    nodes.append(helper.make_node("DequantizeLinear", [tag + "_f4", tag + "_s"],
                                  [tag + "_xq"], name=tag + "/DQ", axis=-1,
                                  block_size=16))
    return tag + "_xq", F(g)


def linear(nodes, inits, x, w, tag):
    inits.append(numpy_helper.from_array(w, tag + ".weight"))
    nodes.append(helper.make_node("TRT_FP4QDQ", [tag + ".weight"], [tag + "_wq"],
                                  name=tag + "/TRT_FP4QDQ", domain="trt",
                                  block_size=16))
    nodes.append(helper.make_node("Transpose", [tag + "_wq"], [tag + "_wt"],
                                  name=tag + "/Transpose", perm=[1, 0]))
    nodes.append(helper.make_node("MatMul", [x, tag + "_wt"], [tag + "_out"],
                                  name=tag + "/MatMul"))
    return tag + "_out"


def save(path, nodes, inits, out_shape):
    g = helper.make_graph(
        nodes, "w4a4", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 20),
                                            helper.make_opsetid("trt", 1)])
    m.ir_version = 10
    onnx.save(m, path)


def fp8_qdq(x, s):
    y = (x / F(s)).astype(F)
    return (np.sign(y) * e4m3(np.abs(y)) * F(s)).astype(F)


def fp8_nodes(nodes, inits, x, tag, s):
    inits.append(numpy_helper.from_array(np.array(s, F), tag + "_fp8_scale"))
    nodes.append(helper.make_node("TRT_FP8QuantizeLinear", [x, tag + "_fp8_scale"],
                                  [tag + "_q8"], name=tag + "/TRT_FP8QuantizeLinear",
                                  domain="trt"))
    nodes.append(helper.make_node("TRT_FP8DequantizeLinear", [tag + "_q8", tag + "_fp8_scale"],
                                  [tag + "_dq8"], name=tag + "/TRT_FP8DequantizeLinear",
                                  domain="trt"))
    return tag + "_dq8"


def attention(d, rng):
    x = rng.standard_normal((2, 8, 64)).astype(F)
    ws = {t: weight(rng, 32, 64) for t in "qkv"}
    wo = weight(rng, 48, 32)
    nodes, inits = [], []
    ax = F(np.abs(x).max())
    proj, ref = {}, {}
    for t in "qkv":
        xq, g = dyn_chain(nodes, "x", t + "_in", ax)
        proj[t] = linear(nodes, inits, xq, ws[t], t)
        ref[t] = (fake_blocks(x, g) @ fake_weight(ws[t]).T).astype(F)
    sc = {t: float(np.abs(ref[t]).max()) / 448.0 for t in "qkv"}
    q8 = fp8_nodes(nodes, inits, proj["q"], "q", sc["q"])
    # K^T's Q/DQ after the Transpose: ORT has no FP8 Transpose at opset 19
    nodes.append(helper.make_node("Transpose", [proj["k"]], ["kt"], name="attn/Transpose",
                                  perm=[0, 2, 1]))
    k8 = fp8_nodes(nodes, inits, "kt", "k", sc["k"])
    v8 = fp8_nodes(nodes, inits, proj["v"], "v", sc["v"])
    nodes.append(helper.make_node("MatMul", [q8, k8], ["scores"], name="attn/MatMul"))
    inits.append(numpy_helper.from_array(np.array(np.sqrt(32.0), F), "attn_div"))
    nodes.append(helper.make_node("Div", ["scores", "attn_div"], ["scaled"], name="attn/Div"))
    nodes.append(helper.make_node("Softmax", ["scaled"], ["probs"], name="attn/Softmax", axis=-1))
    p8 = fp8_nodes(nodes, inits, "probs", "p", 1.0 / 448.0)
    nodes.append(helper.make_node("MatMul", [p8, v8], ["ctx"], name="attn/MatMul_1"))
    qr, kr, vr = (fp8_qdq(ref[t], sc[t]) for t in "qkv")
    sr = ((qr @ kr.transpose(0, 2, 1)).astype(F) / F(np.sqrt(32.0))).astype(F)
    e = np.exp(sr - sr.max(axis=-1, keepdims=True)).astype(F)
    pr = fp8_qdq((e / e.sum(axis=-1, keepdims=True)).astype(F), 1.0 / 448.0)
    cr = (pr @ vr).astype(F)
    cq, g = dyn_chain(nodes, "ctx", "o_in", F(np.abs(cr).max()))
    out = linear(nodes, inits, cq, wo, "o")
    nodes.append(helper.make_node("Identity", [out], ["y"], name="out"))
    save(os.path.join(d, "attn.onnx"), nodes, inits, [2, 8, 48])
    yr = (fake_blocks(cr, g) @ fake_weight(wo).T).astype(F)
    x.tofile(os.path.join(d, "attn_x.bin"))
    yr.tofile(os.path.join(d, "attn_ref.bin"))


def main():
    d = sys.argv[1]
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 8, 64)).astype(F)
    x[0, 0, :16] = 0                       # a zero block
    w1, w2 = weight(rng, 32, 64), weight(rng, 32, 32)
    wh = rng.standard_normal((32, 48)).astype(F) * F(0.2)
    a1 = F(np.abs(x).max()) * F(0.8)       # some blocks saturate
    nodes, inits = [], []
    xq, g1 = dyn_chain(nodes, "x", "l1_in", a1)
    h = linear(nodes, inits, xq, w1, "l1")
    nodes.append(helper.make_node("Relu", [h], ["h_relu"], name="relu"))
    hr = np.maximum(fake_blocks(x, g1) @ fake_weight(w1).T, 0).astype(F)
    a2 = F(np.abs(hr).max())
    hq, g2 = dyn_chain(nodes, "h_relu", "l2_in", a2)
    h2 = linear(nodes, inits, hq, w2, "l2")
    inits.append(numpy_helper.from_array(wh, "head.weight"))
    nodes.append(helper.make_node("MatMul", [h2, "head.weight"], ["y"], name="head/MatMul"))
    save(os.path.join(d, "w4a4.onnx"), nodes, inits, [2, 8, 48])
    ref = ((fake_blocks(hr, g2) @ fake_weight(w2).T).astype(F) @ wh).astype(F)
    x.tofile(os.path.join(d, "x.bin"))
    ref.tofile(os.path.join(d, "ref.bin"))
    # a static quantizer on the activation
    nodes = [helper.make_node("TRT_FP4QDQ", ["x"], ["xq"], name="act/TRT_FP4QDQ",
                              domain="trt", block_size=16)]
    inits = []
    y = linear(nodes, inits, "xq", w1, "l1")
    nodes.append(helper.make_node("Identity", [y], ["y"], name="out"))
    save(os.path.join(d, "bad.onnx"), nodes, inits, [2, 8, 32])
    attention(d, rng)


main()
