#!/usr/bin/env python3
"""tests/passes/fp8/fp8-gen.py - small models for tests/passes/fp8/fp8.sh (the pass fp8).

  fp8-gen.py model KIND OUT.onnx        KIND: ifconv, loopconv, conv13,
                                        fp16conv, scanconv
  fp8-gen.py samples KIND DIR N SEED    N sample folders (NAME.npy)
  fp8-gen.py amax KIND DIR              JSON {tensor: amax} over the
                                        samples, computed in NumPy (every
                                        If branch's Conv inputs over the
                                        samples that take it, a Loop
                                        body's over every iteration)

ifconv    x -> If(flag): then Conv, Relu, Conv (weights in the main
          graph); else Conv, Sigmoid, Conv (weights inside the branch)
loopconv  a Loop of 3 iterations: h = Relu(Conv(h)), h starting at x
conv13    Conv1d -> Relu -> Conv1d, and a Conv3d model's input beside it:
          y1 from x1 [1,4,16], y3 from x3 [1,2,4,6,6]
scanconv  a Conv in a Scan body (which qopt calibrate refuses, naming it)
fp16conv  FLOAT16 Conv -> Conv with biases (no activation between: ORT's DQ -> Conv
          -> Q unit)
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F, B = TensorProto.FLOAT, TensorProto.BOOL


def w(r, *shape, dtype=np.float32):
    return (r.randn(*shape) * 0.3).astype(dtype)


def init(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


def conv(x, wname, out, name, bias=None):
    return helper.make_node("Conv", [x, wname] + ([bias] if bias else []),
                            [out], name=name, pads=[1, 1, 1, 1])


def save(g, path, opset=17):
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="fp8-gen")
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, path)


def weights(kind):
    r = np.random.RandomState(3)
    if kind == "ifconv":
        return {k: w(r, 4, 4, 3, 3) for k in ("wt1", "wt2", "we1", "we2")}
    if kind == "loopconv":
        return {"wl": w(r, 4, 4, 3, 3)}
    if kind == "conv13":
        return {"w1a": w(r, 8, 4, 3), "w1b": w(r, 8, 8, 3),
                "w3": w(r, 4, 2, 3, 3, 3)}
    # small weights and inputs, biases of ordinary size: bias / (input
    # scale x weight scale) is far over FLOAT16's range (ORT's trap)
    return {"wa": (w(r, 8, 8, 3, 3) * 0.03).astype(np.float16),
            "wb": (w(r, 8, 8, 3, 3) * 0.03).astype(np.float16),
            "ba": w(r, 8, dtype=np.float16), "bb": w(r, 8, dtype=np.float16)}


def ifconv(path):
    ws = weights("ifconv")
    vi = helper.make_tensor_value_info
    then = helper.make_graph(
        [conv("x", "wt1", "t1", "then_conv1"),
         helper.make_node("Relu", ["t1"], ["t1r"], name="then_relu"),
         conv("t1r", "wt2", "t2", "then_conv2")],
        "then", [], [vi("t2", F, [1, 4, 8, 8])])
    other = helper.make_graph(
        [conv("x", "we1", "e1", "else_conv1"),
         helper.make_node("Sigmoid", ["e1"], ["e1s"], name="else_sigmoid"),
         conv("e1s", "we2", "e2", "else_conv2")],
        "else", [], [vi("e2", F, [1, 4, 8, 8])],
        [init("we1", ws["we1"]), init("we2", ws["we2"])])
    g = helper.make_graph(
        [helper.make_node("If", ["flag"], ["y"], name="branch",
                          then_branch=then, else_branch=other)],
        "ifconv", [vi("x", F, [1, 4, 8, 8]), vi("flag", B, [])],
        [vi("y", F, [1, 4, 8, 8])],
        [init("wt1", ws["wt1"]), init("wt2", ws["wt2"])])
    save(g, path)


def loopconv(path):
    ws = weights("loopconv")
    vi = helper.make_tensor_value_info
    body = helper.make_graph(
        [conv("h", "wl", "hc", "body_conv"),
         helper.make_node("Relu", ["hc"], ["h_next"], name="body_relu"),
         helper.make_node("Identity", ["cond_in"], ["cond_out"],
                          name="body_cond")],
        "body", [vi("i", TensorProto.INT64, []), vi("cond_in", B, []),
                 vi("h", F, [1, 4, 8, 8])],
        [vi("cond_out", B, []), vi("h_next", F, [1, 4, 8, 8])])
    g = helper.make_graph(
        [helper.make_node("Loop", ["trips", "go", "x"], ["y"], name="loop",
                          body=body)],
        "loopconv", [vi("x", F, [1, 4, 8, 8])], [vi("y", F, [1, 4, 8, 8])],
        [init("wl", ws["wl"]), init("trips", np.array(3, np.int64)),
         init("go", np.array(True))])
    save(g, path)


def scanconv(path):
    ws = weights("loopconv")
    vi = helper.make_tensor_value_info
    body = helper.make_graph(
        [conv("xt", "wl", "yt", "scan_conv")], "body",
        [vi("xt", F, [1, 4, 8, 8])], [vi("yt", F, [1, 4, 8, 8])])
    g = helper.make_graph(
        [helper.make_node("Scan", ["x"], ["y"], name="scan", body=body,
                          num_scan_inputs=1)],
        "scanconv", [vi("x", F, [2, 1, 4, 8, 8])],
        [vi("y", F, [2, 1, 4, 8, 8])], [init("wl", ws["wl"])])
    save(g, path)


def conv13(path):
    ws = weights("conv13")
    vi = helper.make_tensor_value_info
    g = helper.make_graph(
        [helper.make_node("Conv", ["x1", "w1a"], ["a"], name="c1a", pads=[1, 1]),
         helper.make_node("Relu", ["a"], ["ar"], name="r1"),
         helper.make_node("Conv", ["ar", "w1b"], ["y1"], name="c1b", pads=[1, 1]),
         helper.make_node("Conv", ["x3", "w3"], ["y3"], name="c3",
                          pads=[1, 1, 1, 1, 1, 1])],
        "conv13", [vi("x1", F, [1, 4, 16]), vi("x3", F, [1, 2, 4, 6, 6])],
        [vi("y1", F, [1, 8, 16]), vi("y3", F, [1, 4, 4, 6, 6])],
        [init(k, v) for k, v in ws.items()])
    save(g, path)


def fp16conv(path):
    ws = weights("fp16conv")
    vi = helper.make_tensor_value_info
    H = TensorProto.FLOAT16
    g = helper.make_graph(
        [conv("x", "wa", "a", "ca", "ba"), conv("a", "wb", "y", "cb", "bb")],
        "fp16conv", [vi("x", H, [1, 8, 8, 8])], [vi("y", H, [1, 8, 8, 8])],
        [init(k, v) for k, v in ws.items()])
    save(g, path)


# ------------------------------------------------------------ NumPy


def np_conv(x, wt):
    """2-D convolution, stride 1, pads 1 (float64)."""
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    wt = wt.astype(np.float64)
    n, c, h, ww = x.shape
    m, _, kh, kw = wt.shape
    out = np.zeros((n, m, h - kh + 1, ww - kw + 1))
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("nchw,mc->nmhw",
                             x[:, :, i:i + out.shape[2], j:j + out.shape[3]],
                             wt[:, :, i, j])
    return out


def feeds(kind, r, k):
    if kind == "ifconv":
        return {"x": r.randn(1, 4, 8, 8).astype(np.float32),
                "flag": np.array(k % 2 == 0)}
    if kind == "loopconv":
        return {"x": r.randn(1, 4, 8, 8).astype(np.float32)}
    if kind == "scanconv":
        return {"x": r.randn(2, 1, 4, 8, 8).astype(np.float32)}
    if kind == "conv13":
        return {"x1": r.randn(1, 4, 16).astype(np.float32),
                "x3": r.randn(1, 2, 4, 6, 6).astype(np.float32)}
    return {"x": (r.randn(1, 8, 8, 8) * 0.05).astype(np.float16)}


def samples(kind, d, n, seed):
    r = np.random.RandomState(seed)
    for k in range(n):
        sd = os.path.join(d, "s%02d" % k)
        os.makedirs(sd, exist_ok=True)
        for name, a in feeds(kind, r, k).items():
            np.save(os.path.join(sd, name + ".npy"), a)


def amax(kind, d):
    """The ranges a float32 run gives (ORT computes in FP32; compared to
    a relative 1e-5 by the test)."""
    ws = weights(kind)
    got = {}

    def see(name, a):
        got[name] = max(got.get(name, 0.0), float(np.max(np.abs(a))))

    for sd in sorted(os.listdir(d)):
        f = {n[:-4]: np.load(os.path.join(d, sd, n))
             for n in os.listdir(os.path.join(d, sd))}
        if kind == "ifconv":
            see("x", f["x"])
            if f["flag"]:
                see("t1r", np.maximum(np_conv(f["x"], ws["wt1"]), 0))
            else:
                see("e1s", 1 / (1 + np.exp(-np_conv(f["x"], ws["we1"]))))
        elif kind == "loopconv":
            h = f["x"].astype(np.float64)
            for _ in range(3):
                see("h", h)
                h = np.maximum(np_conv(h, ws["wl"]), 0)
    print(json.dumps(got))


def main():
    cmd, kind = sys.argv[1], sys.argv[2]
    if cmd == "model":
        {"ifconv": ifconv, "loopconv": loopconv, "conv13": conv13,
         "fp16conv": fp16conv, "scanconv": scanconv}[kind](sys.argv[3])
    elif cmd == "samples":
        samples(kind, sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    else:
        amax(kind, sys.argv[3])


if __name__ == "__main__":
    main()
