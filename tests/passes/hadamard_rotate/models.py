"""tests/passes/hadamard_rotate/models.py - models and independent checks for the
hadamard-rotate tests (NumPy + onnx; nothing from qopt's kernels).

  mlp PATH K N M           MatMul [K,N] initializer, Relu, Gemm transB [M,N]
  decoder PATH D [OUT]     RMSNorm, single-head attention, SiLU MLP; the
                           weights as initializer, Constant node and
                           Transpose of an initializer; OUT > 0 makes 4
                           input channels of every weight OUT times larger
  chain PATH K             MatMul + Add bias, Gemm (transB, bias), MatMul,
                           Relu, MatMul: rotations fold into producers
                           except at the input and after the Relu
  qdq PATH K               x -> QuantizeLinear -> DequantizeLinear (INT8, per
                           tensor) -> two MatMuls
  qdqcheck PATH            the QuantizeLinear's input comes from the
                           rotation (a Reshape), not from x
  shared PATH K            one weight read by MatMuls m1, m2 and m3
  inits PATH               prints the initializer names, sorted
  mha PATH D H             multi-head attention: v_proj -> Reshape [1,8,H,D/H]
                           -> Transpose -> P @ V -> Transpose -> Reshape
                           [1,8,D] -> o_proj
  half PATH K              one FLOAT16 MatMul [K, 32]
  odd KIND PATH            hostile shapes and values (issue 21):
                           chain2  one weight W [16,16] read by two
                                   chained MatMuls x@W@W
                           addres  a = x@W0, r = a@W, then Add(r, a) (a
                                   read at index 1)
                           loop    a = x@W0, a@W, and W and a read by a
                                   MatMul in a Loop body
                           k0      MatMul weight [0, 8] (K = 0)
                           n0      MatMul weight [32, 0] (N = 0)
                           inf     a [32, 16] weight holding one Inf
                           nan     the same with one NaN
  exporter PATH K          x @ (H_K / sqrt K) baked in as a constant,
                           then a MatMul by a weight (an exporter's form)
  check ORIG NEW W AXIS B  the rotated weight in NEW equals R W along
                           AXIS (explicit Sylvester matrix, float64)
  rotback ORIG NEW W AXIS  nvfp4-weights rotate = rotate_back stored
                           R fq(R W) for W (fq: NVFP4 fake quantization as
                           tests/passes/nvfp4/check.py computes it from the
                           format; R along AXIS in blocks of K & -K)
  added ORIG NEW K         constants the pass added (rotated weights
                           aside): total elements, largest 2-D side;
                           fails above K sqrt(K) or a side above 256
"""
import sys
import numpy as np
import onnx
from onnx import helper as h, TensorProto as T, numpy_helper as nh

rng = np.random.default_rng(7)


def save(nodes, inputs, outputs, inits, path):
    g = h.make_graph(nodes, "g", inputs, outputs, inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, path)


OUTLIER = [0.0]


def w(*shape):
    m = rng.standard_normal(shape) / np.sqrt(shape[0])
    if OUTLIER[0] > 0:
        m[rng.choice(shape[0], 4, replace=False), :] *= OUTLIER[0]
    return m.astype(np.float32)


def wt(*shape):
    """w(K, N) stored transposed ([N, K]), outliers along K."""
    return np.ascontiguousarray(w(shape[1], shape[0]).T)


def mlp(path, k, n, m):
    save([h.make_node("MatMul", ["x", "W1"], ["h"], name="fc1"),
          h.make_node("Relu", ["h"], ["r"], name="relu"),
          h.make_node("Gemm", ["r", "W2"], ["y"], name="fc2", transB=1)],
         [h.make_tensor_value_info("x", T.FLOAT, [4, k])],
         [h.make_tensor_value_info("y", T.FLOAT, [4, m])],
         [nh.from_array(w(k, n), "W1"), nh.from_array(w(m, n), "W2")], path)


def decoder(path, d):
    f = 4 * d
    nodes = [
        # RMSNorm with a gain
        h.make_node("Mul", ["x", "x"], ["x2"]),
        h.make_node("ReduceMean", ["x2"], ["ms"], axes=[-1]),
        h.make_node("Add", ["ms", "eps"], ["mse"]),
        h.make_node("Sqrt", ["mse"], ["rms"]),
        h.make_node("Div", ["x", "rms"], ["xn0"]),
        h.make_node("Mul", ["xn0", "g1"], ["xn"]),
        h.make_node("MatMul", ["xn", "Wq"], ["q"], name="q_proj"),
        h.make_node("Constant", [], ["Wk"], name="wk_const",
                    value=nh.from_array(w(d, d), "Wk_value")),
        h.make_node("MatMul", ["xn", "Wk"], ["k"], name="k_proj"),
        h.make_node("Transpose", ["WvT"], ["Wv"], perm=[1, 0]),
        h.make_node("MatMul", ["xn", "Wv"], ["v"], name="v_proj"),
        h.make_node("Transpose", ["k"], ["kt"], perm=[0, 2, 1]),
        h.make_node("MatMul", ["q", "kt"], ["s0"], name="bmm1"),
        h.make_node("Mul", ["s0", "scale"], ["s"]),
        h.make_node("Softmax", ["s"], ["p"], axis=-1),
        h.make_node("MatMul", ["p", "v"], ["o"], name="bmm2"),
        h.make_node("MatMul", ["o", "Wo"], ["a"], name="o_proj"),
        h.make_node("Add", ["x", "a"], ["x1"]),
        h.make_node("Mul", ["x1", "x1"], ["y2"]),
        h.make_node("ReduceMean", ["y2"], ["ms2"], axes=[-1]),
        h.make_node("Add", ["ms2", "eps"], ["mse2"]),
        h.make_node("Sqrt", ["mse2"], ["rms2"]),
        h.make_node("Div", ["x1", "rms2"], ["yn0"]),
        h.make_node("Mul", ["yn0", "g2"], ["yn"]),
        h.make_node("MatMul", ["yn", "Wg"], ["gt"], name="gate_proj"),
        h.make_node("MatMul", ["yn", "Wu"], ["up"], name="up_proj"),
        h.make_node("Sigmoid", ["gt"], ["sg"]),
        h.make_node("Mul", ["gt", "sg"], ["silu"]),
        h.make_node("Mul", ["silu", "up"], ["hm"]),
        h.make_node("MatMul", ["hm", "Wd"], ["mo"], name="down_proj"),
        h.make_node("Add", ["x1", "mo"], ["y"]),
    ]
    inits = [nh.from_array(np.array(1e-6, np.float32), "eps"),
             nh.from_array((1 + 0.1 * rng.standard_normal(d)).astype(np.float32), "g1"),
             nh.from_array((1 + 0.1 * rng.standard_normal(d)).astype(np.float32), "g2"),
             nh.from_array(np.array(1 / np.sqrt(d), np.float32), "scale"),
             nh.from_array(w(d, d), "Wq"), nh.from_array(wt(d, d), "WvT"),
             nh.from_array(w(d, d), "Wo"), nh.from_array(w(d, f), "Wg"),
             nh.from_array(w(d, f), "Wu"), nh.from_array(w(f, d), "Wd")]
    save(nodes, [h.make_tensor_value_info("x", T.FLOAT, [1, 8, d])],
         [h.make_tensor_value_info("y", T.FLOAT, [1, 8, d])], inits, path)


def chain(path, k):
    save([h.make_node("MatMul", ["x", "W1"], ["m1"], name="l1"),
          h.make_node("Add", ["m1", "b1"], ["a1"], name="l1_bias"),
          h.make_node("Gemm", ["a1", "W2", "b2"], ["a2"], name="l2", transB=1),
          h.make_node("MatMul", ["a2", "W3"], ["a3"], name="l3"),
          h.make_node("Relu", ["a3"], ["r3"], name="relu"),
          h.make_node("MatMul", ["r3", "W4"], ["y"], name="l4")],
         [h.make_tensor_value_info("x", T.FLOAT, [6, k])],
         [h.make_tensor_value_info("y", T.FLOAT, [6, k])],
         [nh.from_array(w(k, k), "W1"), nh.from_array(w(k), "b1"),
          nh.from_array(w(k, k), "W2"), nh.from_array(w(k), "b2"),
          nh.from_array(w(k, k), "W3"), nh.from_array(w(k, k), "W4")], path)


def shared(path, k):
    save([h.make_node("MatMul", ["x1", "W"], ["y1"], name="m1"),
          h.make_node("MatMul", ["x2", "W"], ["y2"], name="m2"),
          h.make_node("MatMul", ["x3", "W"], ["y3"], name="m3")],
         [h.make_tensor_value_info(n, T.FLOAT, [2, k]) for n in ("x1", "x2", "x3")],
         [h.make_tensor_value_info(n, T.FLOAT, [2, 8]) for n in ("y1", "y2", "y3")],
         [nh.from_array(w(k, 8), "W")], path)


def qdq(path, k):
    save([h.make_node("QuantizeLinear", ["x", "s", "z"], ["xq"], name="q"),
          h.make_node("DequantizeLinear", ["xq", "s", "z"], ["xd"], name="dq"),
          h.make_node("MatMul", ["xd", "W1"], ["y1"], name="m1"),
          h.make_node("MatMul", ["xd", "W2"], ["y2"], name="m2")],
         [h.make_tensor_value_info("x", T.FLOAT, [4, k])],
         [h.make_tensor_value_info(n, T.FLOAT, [4, 16]) for n in ("y1", "y2")],
         [nh.from_array(np.array(0.02, np.float32), "s"),
          nh.from_array(np.array(0, np.int8), "z"),
          nh.from_array(w(k, 16), "W1"), nh.from_array(w(k, 16), "W2")], path)


def qdqcheck(path):
    m = onnx.load(path)
    prod = {o: n for n in m.graph.node for o in n.output}
    q = [n for n in m.graph.node if n.op_type == "QuantizeLinear"][0]
    p = prod.get(q.input[0])
    print("QuantizeLinear input '%s' from %s" % (q.input[0], p.op_type if p else "the graph"))
    sys.exit(0 if p is not None and p.op_type == "Reshape" else 1)


def mha(path, d, heads):
    dh = d // heads
    sh = lambda n, v: nh.from_array(np.array(v, np.int64), n)
    nodes = []
    for p in "qkv":
        nodes += [h.make_node("MatMul", ["x", "W" + p], [p + "0"], name=p + "_proj"),
                  h.make_node("Reshape", [p + "0", "split"], [p + "1"]),
                  h.make_node("Transpose", [p + "1"], [p], perm=[0, 2, 1, 3])]
    nodes += [h.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
              h.make_node("MatMul", ["q", "kt"], ["s0"], name="bmm1"),
              h.make_node("Mul", ["s0", "scale"], ["s"]),
              h.make_node("Softmax", ["s"], ["p"], axis=-1),
              h.make_node("MatMul", ["p", "v"], ["o0"], name="bmm2"),
              h.make_node("Transpose", ["o0"], ["o1"], perm=[0, 2, 1, 3]),
              h.make_node("Reshape", ["o1", "merge"], ["o"]),
              h.make_node("MatMul", ["o", "Wo"], ["y"], name="o_proj")]
    vi = [h.make_tensor_value_info("v0", T.FLOAT, [1, 8, d]),
          h.make_tensor_value_info("v1", T.FLOAT, [1, 8, heads, dh]),
          h.make_tensor_value_info("v", T.FLOAT, [1, heads, 8, dh]),
          h.make_tensor_value_info("o0", T.FLOAT, [1, heads, 8, dh]),
          h.make_tensor_value_info("o1", T.FLOAT, [1, 8, heads, dh]),
          h.make_tensor_value_info("o", T.FLOAT, [1, 8, d])]
    g = h.make_graph(nodes, "g", [h.make_tensor_value_info("x", T.FLOAT, [1, 8, d])],
                     [h.make_tensor_value_info("y", T.FLOAT, [1, 8, d])],
                     [nh.from_array(w(d, d), "W" + p) for p in "qkvo"] +
                     [sh("split", [1, 8, heads, dh]), sh("merge", [1, 8, d]),
                      nh.from_array(np.array(1 / np.sqrt(dh), np.float32), "scale")],
                     value_info=vi)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, path)


def half(path, k):
    save([h.make_node("MatMul", ["x", "W"], ["y"], name="fc")],
         [h.make_tensor_value_info("x", T.FLOAT16, [4, k])],
         [h.make_tensor_value_info("y", T.FLOAT16, [4, 32])],
         [nh.from_array(w(k, 32).astype(np.float16), "W")], path)


def odd(kind, path):
    x = lambda k: [h.make_tensor_value_info("x", T.FLOAT, [4, k])]
    y = lambda n: [h.make_tensor_value_info("y", T.FLOAT, [4, n])]
    if kind == "chain2":
        save([h.make_node("MatMul", ["x", "W"], ["y1"], name="m1"),
              h.make_node("MatMul", ["y1", "W"], ["y"], name="m2")],
             x(16), y(16), [nh.from_array(w(16, 16), "W")], path)
    elif kind == "addres":
        save([h.make_node("MatMul", ["x", "W0"], ["a"], name="m0"),
              h.make_node("MatMul", ["a", "W"], ["r"], name="m1"),
              h.make_node("Add", ["r", "a"], ["y"], name="res")],
             x(16), y(16), [nh.from_array(w(16, 16), "W0"),
                            nh.from_array(w(16, 16), "W")], path)
    elif kind == "loop":
        body = h.make_graph(
            [h.make_node("Identity", ["c"], ["c_out"]),
             h.make_node("MatMul", ["a", "W"], ["z"], name="inner")],
            "body", [h.make_tensor_value_info("i", T.INT64, []),
                     h.make_tensor_value_info("c", T.BOOL, [])],
            [h.make_tensor_value_info("c_out", T.BOOL, []),
             h.make_tensor_value_info("z", T.FLOAT, [4, 16])])
        save([h.make_node("MatMul", ["x", "W0"], ["a"], name="m0"),
              h.make_node("MatMul", ["a", "W"], ["y"], name="m1"),
              h.make_node("Loop", ["trip", "cond"], ["zs"], name="loop",
                          body=body)],
             x(16), y(16) + [h.make_tensor_value_info("zs", T.FLOAT, [1, 4, 16])],
             [nh.from_array(w(16, 16), "W0"), nh.from_array(w(16, 16), "W"),
              nh.from_array(np.array(1, np.int64), "trip"),
              nh.from_array(np.array(True), "cond")], path)
    elif kind in ("k0", "n0"):
        k, n = (0, 8) if kind == "k0" else (32, 0)
        save([h.make_node("MatMul", ["x", "W"], ["y"], name="fc")],
             x(k), y(n), [nh.from_array(np.zeros((k, n), np.float32), "W")],
             path)
    elif kind in ("inf", "nan"):
        m = w(32, 16)
        m[3, 5] = np.inf if kind == "inf" else np.nan
        save([h.make_node("MatMul", ["x", "W"], ["y"], name="fc")],
             x(32), y(16), [nh.from_array(m, "W")], path)
    else:
        sys.exit("odd: unknown kind " + kind)


def sylvester(b):
    m = np.ones((1, 1))
    while m.shape[0] < b:
        m = np.kron(np.array([[1, 1], [1, -1]]), m)
    return m / np.sqrt(b)


def exporter(path, k):
    save([h.make_node("MatMul", ["x", "H"], ["xr"], name="had"),
          h.make_node("MatMul", ["xr", "W"], ["y"], name="fc")],
         [h.make_tensor_value_info("x", T.FLOAT, [4, k])],
         [h.make_tensor_value_info("y", T.FLOAT, [4, 16])],
         [nh.from_array(sylvester(k).astype(np.float32), "H"),
          nh.from_array(w(k, 16), "W")], path)


def inits(path):
    m = onnx.load(path)
    out = {t.name: nh.to_array(t) for t in m.graph.initializer}
    for n in m.graph.node:
        if n.op_type == "Constant":
            out[n.output[0]] = nh.to_array(n.attribute[0].t)
    return out


def check(orig, new, wname, axis, b):
    a, r = inits(orig), inits(new)
    wo = a[wname].astype(np.float64)
    rot = [v for k, v in r.items() if k.startswith(wname + "_hadamard")]
    if len(rot) != 1:
        sys.exit("no single rotated weight for %s in %s" % (wname, new))
    k = wo.shape[axis]
    R = np.kron(np.eye(k // b), sylvester(b))
    want = np.moveaxis(np.tensordot(R, np.moveaxis(wo, axis, 0), 1), 0, axis)
    err = np.abs(rot[0] - want).max() / np.abs(want).max()
    print("max error %.3g of max |R W|" % err)
    sys.exit(0 if err < 1e-6 else 1)


def rotback(orig, new, wname, axis):
    import importlib.util
    import os
    spec = importlib.util.spec_from_file_location(
        "nvfp4_check", os.path.join(os.path.dirname(__file__), "..", "nvfp4", "check.py"))
    nv = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(nv)
    wo = inits(orig)[wname].astype(np.float64)
    got = inits(new)[wname].astype(np.float64)
    k = wo.shape[axis]
    b = k & -k
    R = np.kron(np.eye(k // b), sylvester(b))
    along = lambda m: np.moveaxis(np.tensordot(R, np.moveaxis(m, axis, 0), 1), 0, axis)
    rw = along(wo).astype(np.float32)
    g, sc, codes = nv.reference(rw, axis)
    mag = nv.E2M1_GRID[codes & 7] * np.where(codes & 8, -1.0, 1.0)
    scale = np.vectorize(nv.e4m3_value)(np.repeat(sc, 16, axis=axis))
    want = along(mag * scale * float(g))
    tol = 1e-5 * np.abs(want).max()
    bad = np.abs(got - want) > tol
    print("%d of %d elements differ by more than %.2g (max %.3g)" %
          (bad.sum(), bad.size, tol, np.abs(got - want).max()))
    # an FP32 rounding of R W (kernel) vs float64 (here) may move a
    # value across an E2M1 rounding boundary: allow 0.5 % such elements
    sys.exit(0 if bad.sum() <= 0.005 * bad.size else 1)


def added(orig, new, k):
    a, r = inits(orig), inits(new)
    extra = {n: v for n, v in r.items() if n not in a and "_hadamard" not in n}
    total = sum(v.size for v in extra.values())
    side = max([max(v.shape) for v in extra.values() if v.ndim == 2] or [0])
    bound = k * np.sqrt(k)
    print("%d constant elements added (bound K sqrt K = %d), largest "
          "matrix side %d" % (total, bound, side))
    sys.exit(0 if total <= bound and side <= 256 else 1)


cmd = sys.argv[1]
if cmd == "mlp":
    mlp(sys.argv[2], *map(int, sys.argv[3:6]))
elif cmd == "decoder":
    OUTLIER[0] = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
    decoder(sys.argv[2], int(sys.argv[3]))
elif cmd == "chain":
    chain(sys.argv[2], int(sys.argv[3]))
elif cmd == "qdq":
    qdq(sys.argv[2], int(sys.argv[3]))
elif cmd == "qdqcheck":
    qdqcheck(sys.argv[2])
elif cmd == "shared":
    shared(sys.argv[2], int(sys.argv[3]))
elif cmd == "inits":
    print(" ".join(sorted(inits(sys.argv[2]))))
elif cmd == "mha":
    mha(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
elif cmd == "half":
    half(sys.argv[2], int(sys.argv[3]))
elif cmd == "odd":
    odd(sys.argv[2], sys.argv[3])
elif cmd == "exporter":
    exporter(sys.argv[2], int(sys.argv[3]))
elif cmd == "check":
    check(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6]))
elif cmd == "rotback":
    rotback(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
elif cmd == "added":
    added(sys.argv[2], sys.argv[3], int(sys.argv[4]))
else:
    sys.exit("unknown command " + cmd)
