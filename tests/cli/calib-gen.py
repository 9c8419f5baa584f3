#!/usr/bin/env python3
"""tests/cli/calib-gen.py - plain FP32 models and sample folders for
tests/cli/calib.sh (qopt calibrate, fp8-mha calibration = FILE).

  calib-gen.py model KIND OUT.onnx         KIND: exact, vit, decoder,
                                           smallhead, shuffled, decoder16
  calib-gen.py samples KIND DIR N SEED     N sample folders (input_0.pb)
  calib-gen.py amax KIND DIR [PERCENTILE]  JSON of amax per calibrated
                                           tensor, computed in NumPy
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

B, S, D, H = 2, 8, 64, 4
HD = D // H
FF, CLASSES, VOCAB = 128, 10, 32


def init(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


def finish(nodes, inits, x_shape, out_shape, path, name):
    g = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)],
        inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)],
                          producer_name="calib-gen")
    m.ir_version = 8
    m = onnx.shape_inference.infer_shapes(m)
    onnx.checker.check_model(m)
    onnx.save(m, path)


# exact: small integers everywhere, so every MatMul is exact in FP32
# and ORT's amax must equal NumPy's bit for bit.
def exact_weights():
    r = np.random.RandomState(7)
    w1 = r.randint(-3, 4, size=(8, 6)).astype(np.float32)
    b1 = r.randint(-2, 3, size=(6,)).astype(np.float32)
    w2 = r.randint(-3, 4, size=(6, 5)).astype(np.float32)
    w3 = r.randint(-2, 3, size=(5, 4)).astype(np.float32)
    return w1, b1, w2, w3


def exact_model(path):
    w1, b1, w2, w3 = exact_weights()
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h1"], name="fc1"),
        helper.make_node("Add", ["h1", "b1"], ["h1b"], name="bias1"),
        helper.make_node("Relu", ["h1b"], ["a1"], name="relu1"),
        helper.make_node("Gemm", ["a1", "w2"], ["h2"], name="fc2"),
        helper.make_node("Sub", ["h2", "c3"], ["a2"], name="shift"),
        helper.make_node("MatMul", ["a2", "w3"], ["y"], name="fc3"),
    ]
    inits = [init("w1", w1), init("b1", b1), init("w2", w2), init("w3", w3),
             init("c3", np.float32(1.5))]
    finish(nodes, inits, [3, 8], [3, 4], path, "exact")


def exact_tensors(x):
    w1, b1, w2, w3 = exact_weights()
    a1 = np.maximum(x @ w1 + b1, 0)
    a2 = a1 @ w2 - np.float32(1.5)
    return {"x": x, "a1": a1, "a2": a2}


def layernorm(nodes, inits, x, pfx):
    inits += [init(pfx + "_g", np.ones(D, np.float32)),
              init(pfx + "_b", np.zeros(D, np.float32))]
    nodes.append(helper.make_node("LayerNormalization",
                                  [x, pfx + "_g", pfx + "_b"], [pfx],
                                  name=pfx, axis=-1, epsilon=1e-5))
    return pfx


def linear(nodes, inits, r, x, name, k, n, bias=True):
    w = (r.randn(k, n) / np.sqrt(k)).astype(np.float32)
    inits.append(init(name + "_w", w))
    out = name + "_mm" if bias else name
    nodes.append(helper.make_node("MatMul", [x, name + "_w"], [out],
                                  name=name))
    if bias:
        inits.append(init(name + "_bias",
                          (0.1 * r.randn(n)).astype(np.float32)))
        nodes.append(helper.make_node("Add", [out, name + "_bias"], [name],
                                      name=name + "_add"))
    return name


def heads(nodes, inits, x, name, perm):
    inits.append(init(name + "_shape", np.array([B, S, H, HD], np.int64)))
    nodes.append(helper.make_node("Reshape", [x, name + "_shape"],
                                  [name + "_r"], name=name + "_reshape"))
    nodes.append(helper.make_node("Transpose", [name + "_r"], [name + "_t"],
                                  name=name + "_transpose", perm=perm))
    return name + "_t"


def gelu(nodes, inits, x, name):
    inits += [init(name + "_rs2", np.float32(1 / np.sqrt(2))),
              init(name + "_one", np.float32(1)),
              init(name + "_half", np.float32(0.5))]
    nodes += [
        helper.make_node("Mul", [x, name + "_rs2"], [name + "_s"]),
        helper.make_node("Erf", [name + "_s"], [name + "_e"]),
        helper.make_node("Add", [name + "_e", name + "_one"], [name + "_p"]),
        helper.make_node("Mul", [x, name + "_p"], [name + "_xp"]),
        helper.make_node("Mul", [name + "_xp", name + "_half"], [name]),
    ]
    return name


def block(nodes, inits, r, x, pfx, sdpa):
    ln = layernorm(nodes, inits, x, pfx + "_ln1")
    q = linear(nodes, inits, r, ln, pfx + "_q", D, D)
    k = linear(nodes, inits, r, ln, pfx + "_k", D, D)
    v = linear(nodes, inits, r, ln, pfx + "_v", D, D)
    qh = heads(nodes, inits, q, pfx + "_qh", [0, 2, 1, 3])
    vh = heads(nodes, inits, v, pfx + "_vh", [0, 2, 1, 3])
    if sdpa:
        # scaled_dot_product_attention as torch exports it: sqrt(scale)
        # on q and on k^T before BMM1, then a causal mask.
        kh = heads(nodes, inits, k, pfx + "_kh", [0, 2, 3, 1])
        c = np.float32(1 / np.sqrt(np.sqrt(HD)))
        inits.append(init(pfx + "_c", c))
        nodes += [
            helper.make_node("Mul", [qh, pfx + "_c"], [pfx + "_qs"]),
            helper.make_node("Mul", [kh, pfx + "_c"], [pfx + "_ks"]),
            helper.make_node("MatMul", [pfx + "_qs", pfx + "_ks"],
                             [pfx + "_bmm1"], name=pfx + "_bmm1"),
        ]
        mask = np.triu(np.full((S, S), -1e4, np.float32), 1)
        inits.append(init(pfx + "_mask", mask))
        nodes.append(helper.make_node("Add", [pfx + "_bmm1", pfx + "_mask"],
                                      [pfx + "_scores"]))
    else:
        # HF ViT: BMM1 on q and k^T, then Div by sqrt(head size).
        kh = heads(nodes, inits, k, pfx + "_kh", [0, 2, 1, 3])
        inits.append(init(pfx + "_d", np.float32(np.sqrt(HD))))
        nodes += [
            helper.make_node("Transpose", [kh], [pfx + "_kT"], perm=[0, 1, 3, 2]),
            helper.make_node("MatMul", [qh, pfx + "_kT"], [pfx + "_bmm1"],
                             name=pfx + "_bmm1"),
            helper.make_node("Div", [pfx + "_bmm1", pfx + "_d"],
                             [pfx + "_scores"]),
        ]
    inits.append(init(pfx + "_oshape", np.array([B, S, D], np.int64)))
    nodes += [
        helper.make_node("Softmax", [pfx + "_scores"], [pfx + "_p"],
                         name=pfx + "_softmax", axis=-1),
        helper.make_node("MatMul", [pfx + "_p", vh], [pfx + "_ctx"],
                         name=pfx + "_bmm2"),
        helper.make_node("Transpose", [pfx + "_ctx"], [pfx + "_ctxt"],
                         perm=[0, 2, 1, 3]),
        helper.make_node("Reshape", [pfx + "_ctxt", pfx + "_oshape"],
                         [pfx + "_ctxr"]),
    ]
    o = linear(nodes, inits, r, pfx + "_ctxr", pfx + "_o", D, D)
    nodes.append(helper.make_node("Add", [x, o], [pfx + "_res1"]))
    ln2 = layernorm(nodes, inits, pfx + "_res1", pfx + "_ln2")
    f1 = linear(nodes, inits, r, ln2, pfx + "_fc1", D, FF)
    g = gelu(nodes, inits, f1, pfx + "_gelu")
    f2 = linear(nodes, inits, r, g, pfx + "_fc2", FF, D)
    nodes.append(helper.make_node("Add", [pfx + "_res1", f2], [pfx + "_out"]))
    return pfx + "_out"


def vit_model(path):
    r = np.random.RandomState(11)
    nodes, inits = [], []
    h = block(nodes, inits, r, "x", "b0", sdpa=False)
    h = block(nodes, inits, r, h, "b1", sdpa=False)
    ln = layernorm(nodes, inits, h, "lnf")
    nodes.append(helper.make_node("ReduceMean", [ln], ["pooled"], axes=[1],
                                  keepdims=0))
    wh = (r.randn(CLASSES, D) / np.sqrt(D)).astype(np.float32)
    inits.append(init("head_w", wh))
    inits.append(init("head_b", np.zeros(CLASSES, np.float32)))
    nodes.append(helper.make_node("Gemm", ["pooled", "head_w", "head_b"],
                                  ["y"], name="head", transB=1))
    finish(nodes, inits, [B, S, D], [B, CLASSES], path, "vit")


def decoder_model(path):
    r = np.random.RandomState(13)
    nodes, inits = [], []
    h = block(nodes, inits, r, "x", "d0", sdpa=True)
    ln = layernorm(nodes, inits, h, "lnf")
    linear(nodes, inits, r, ln, "y", D, VOCAB, bias=False)
    finish(nodes, inits, [B, S, D], [B, S, VOCAB], path, "decoder")


def smallhead_model(path):
    # head size 8: attention TensorRT does not fuse, left in float
    global H, HD
    H, HD = 8, 8
    decoder_model(path)


def decoder16_model(path):
    # the decoder in FLOAT16: weights, input, output and every activation
    decoder_model(path)
    m = onnx.load(path)
    g = m.graph
    for t in g.initializer:
        if t.data_type == TensorProto.FLOAT:
            t.CopyFrom(numpy_helper.from_array(
                numpy_helper.to_array(t).astype(np.float16), t.name))
    for v in list(g.input) + list(g.output):
        v.type.tensor_type.elem_type = TensorProto.FLOAT16
    del g.value_info[:]
    m = onnx.shape_inference.infer_shapes(m)
    onnx.checker.check_model(m)
    onnx.save(m, path)


def shuffled_model(path):
    # the decoder with its nodes listed backwards (valid ONNX; qopt sorts
    # them at load, and the hash is taken after that)
    decoder_model(path)
    m = onnx.load(path)
    nodes = list(m.graph.node)[::-1]
    del m.graph.node[:]
    m.graph.node.extend(nodes)
    onnx.save(m, path)


def shape_of(kind):
    return [3, 8] if kind == "exact" else [B, S, D]


def sample(kind, r):
    if kind == "exact":
        return r.randint(-4, 5, size=shape_of(kind)).astype(np.float32)
    x = r.randn(*shape_of(kind)).astype(np.float32)
    x[..., 3] *= 6  # an outlier channel, as real activations have
    return x.astype(np.float16) if kind == "decoder16" else x


def samples(kind, d, n, seed):
    r = np.random.RandomState(seed)
    for i in range(n):
        sd = os.path.join(d, "sample_%02d" % i)
        os.makedirs(sd, exist_ok=True)
        x = sample(kind, r)
        if kind == "exact" and i % 2:
            np.save(os.path.join(sd, "x.npy"), x)
        else:
            t = numpy_helper.from_array(x, "x")
            with open(os.path.join(sd, "input_0.pb"), "wb") as f:
                f.write(t.SerializeToString())


def load_x(sd):
    p = os.path.join(sd, "input_0.pb")
    if os.path.exists(p):
        t = onnx.TensorProto()
        with open(p, "rb") as f:
            t.ParseFromString(f.read())
        return numpy_helper.to_array(t)
    return np.load(os.path.join(sd, "x.npy"))


def amax(kind, d, pct):
    assert kind == "exact"
    seen = {}
    for s in sorted(os.listdir(d)):
        for k, v in exact_tensors(load_x(os.path.join(d, s))).items():
            seen.setdefault(k, []).append(np.abs(v.astype(np.float32)).ravel())
    out = {}
    for k, vs in seen.items():
        a = np.sort(np.concatenate(vs).astype(np.float64))
        if pct >= 100:
            out[k] = float(a[-1])
        else:
            rank = max(1, int(np.ceil(pct / 100 * a.size)))
            out[k] = float(a[rank - 1])
    print(json.dumps(out))


def main():
    cmd, kind = sys.argv[1], sys.argv[2]
    if cmd == "model":
        {"exact": exact_model, "vit": vit_model, "decoder": decoder_model,
         "smallhead": smallhead_model, "decoder16": decoder16_model,
         "shuffled": shuffled_model}[kind](sys.argv[3])
    elif cmd == "samples":
        samples(kind, sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    elif cmd == "amax":
        amax(kind, sys.argv[3], float(sys.argv[4]) if len(sys.argv) > 4
             else 100.0)


main()
