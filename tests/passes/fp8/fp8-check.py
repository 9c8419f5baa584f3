#!/usr/bin/env python3
"""tests/passes/fp8/fp8-check.py - what the pass fp8's output must look like.

    fp8-check.py form ORIG.onnx OUT.onnx [FLOAT_NODES]
        in every graph (If branches, Loop bodies too): each Conv,
        ConvTranspose, MatMul and Gemm not named in FLOAT_NODES (commas)
        reads a DequantizeLinear on inputs 0 and 1, its activation scale
        per tensor; a constant weight is FP8 codes behind a per-channel
        DQ (axis 0 of a Conv weight, 1 of a ConvTranspose's, 1 of a
        MatMul's [K, N]) whose scales are amax/448 of ORIG's weight per
        channel and whose codes equal fp8(W / scale) computed in NumPy
        (round half to even, saturating) bit for bit; each residual Add
        after an FP8 Conv reads a DQ on its other input; the nodes of
        FLOAT_NODES read no DQ. Prints each problem, exit 1 when any.
    fp8-check.py form-int8 ORIG.onnx OUT.onnx [FLOAT_NODES]
        the same for the pass int8 (docs/int8.md): INT8 codes equal to
        clip(np.round(W / scale), -127, 127) (np.round: half to even),
        scales amax/127, and TensorRT's INT8 rules on every Q/DQ of a
        layer: a constant INT8 zero point of 0, a scale of the layer's
        float type, the opset (13 for per-axis DQ, 19 for FLOAT16 or
        BFLOAT16 scales)
    fp8-check.py count OUT.onnx OP
        how many OP nodes OUT holds, in all its graphs
"""
import sys

import numpy as np
import onnx
from onnx import numpy_helper

F8 = 17
I8 = 3
LAYERS = ("Conv", "ConvTranspose", "MatMul", "Gemm")


def e4m3_table():
    vals = []
    for c in range(0x7F):
        e, mant = (c >> 3) & 15, c & 7
        vals.append(mant * 2.0 ** -9 if e == 0 else
                    (1 + mant / 8) * 2.0 ** (e - 7))
    return np.array(vals)


def to_e4m3(x):
    """float64 array -> FP8 E4M3FN codes: nearest, ties to the even
    code, saturating at 448."""
    tab = e4m3_table()
    a = np.abs(x)
    i = np.clip(np.searchsorted(tab, a), 1, len(tab) - 1)
    lo, hi = tab[i - 1], tab[i]
    pick_hi = (hi - a < a - lo) | ((hi - a == a - lo) & (i % 2 == 0))
    code = np.where(pick_hi, i, i - 1)
    code = np.where(a >= 448, 0x7E, code)
    return (code | np.where(np.signbit(x), 0x80, 0)).astype(np.uint8)


def to_int8(x):
    """float32 quotients -> symmetric INT8 codes: np.round is half to
    even; clipped to +-127 (-128 never: TensorRT's INT8 is symmetric)."""
    return np.clip(np.round(x), -127, 127).astype(np.int8)


class Fmt:
    def __init__(self, name, dtype, qmax, encode, code_np):
        self.name, self.dtype, self.qmax = name, dtype, qmax
        self.encode, self.code_np = encode, code_np


FP8 = Fmt("fp8", F8, 448.0, lambda q: to_e4m3(q.astype(np.float64)),
          np.uint8)
INT8 = Fmt("int8", I8, 127.0, to_int8, np.int8)


def graphs(g, parents=()):
    """(graph, its enclosing graphs) for g and every nested graph."""
    yield g, parents
    for n in g.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                yield from graphs(a.g, parents + (g,))


def attr(n, name, dflt):
    for a in n.attribute:
        if a.name == name:
            return a.i
    return dflt


def orig_weights(m):
    w = {}
    for g, _ in graphs(m.graph):
        for t in g.initializer:
            w[t.name] = numpy_helper.to_array(t)
        for n in g.node:    # exporters such as paddle2onnx: Constant nodes
            if n.op_type == "Constant":
                for a in n.attribute:
                    if a.name == "value" and a.type == onnx.AttributeProto.TENSOR:
                        w[n.output[0]] = numpy_helper.to_array(a.t)
    return w


def want_axis(n, rank):
    if n.op_type == "Conv":
        return 0
    if n.op_type == "ConvTranspose":
        return 1 if attr(n, "group", 1) == 1 else None
    if n.op_type == "Gemm":
        return 0 if attr(n, "transB", 0) else 1
    return 1 if rank == 2 else None


def check_weight(n, dq, inits, ow, bad, fmt):
    codes, scale = inits.get(dq.input[0]), inits.get(dq.input[1])
    if codes is None or codes.data_type != fmt.dtype or scale is None:
        bad.append("%s: weight %s is not %s codes" %
                   (n.name, dq.input[0], fmt.name))
        return
    name = dq.input[0][:-len("_" + fmt.name)]
    if name not in ow:
        bad.append("%s: no original weight %s" % (n.name, name))
        return
    w = ow[name].astype(np.float32)
    ax = want_axis(n, w.ndim)
    s_raw = numpy_helper.to_array(scale)
    if ax is None:
        amax = np.array([np.abs(w).max()])
    else:
        if attr(dq, "axis", 1) != ax:
            bad.append("%s: weight DQ axis %d, want %d" %
                       (n.name, attr(dq, "axis", 1), ax))
            return
        red = tuple(i for i in range(w.ndim) if i != ax)
        amax = np.abs(w).max(axis=red)
    # amax/qmax rounded to FLOAT, then to the scale's own type
    want_s = np.where(amax > 0, (amax.astype(np.float64) / fmt.qmax), 1.0)
    want_s = want_s.astype(np.float32).astype(s_raw.dtype)
    s = s_raw.astype(np.float32)
    if s.size != amax.size or not np.array_equal(s_raw.reshape(-1), want_s):
        bad.append("%s: weight scales are not amax/%g per channel" %
                   (n.name, fmt.qmax))
        return
    shp = [1] * w.ndim
    if ax is not None:
        shp[ax] = s.size
    # QuantizeLinear divides in FP32
    want = fmt.encode(w / s.reshape(shp))
    got = np.frombuffer(codes.raw_data, fmt.code_np).reshape(tuple(codes.dims))
    if not np.array_equal(want, got):
        bad.append("%s: %s codes of %s differ from NumPy's in %d places" %
                   (n.name, fmt.name, name, int((want != got).sum())))


def conv_behind(v, prod, users):
    p = prod.get(v)
    if p is None or len(users.get(v, [])) != 1:
        return None
    if p.op_type == "BatchNormalization":
        v = p.input[0]
        p = prod.get(v)
        if p is None or len(users.get(v, [])) != 1:
            return None
    if p is None or p.op_type not in ("Conv", "ConvTranspose"):
        return None
    ins = [prod.get(x) for x in p.input[:2]]
    return p if all(d is not None and d.op_type == "DequantizeLinear"
                    for d in ins) else None


def trt_int8(n, dqs, inits, opset, bad):
    """TensorRT's rules on the INT8 Q/DQ of layer n (docs/int8.md)."""
    types = set()
    for d in dqs:
        zp = inits.get(d.input[2]) if len(d.input) > 2 else None
        sc = inits.get(d.input[1])
        if zp is None or zp.data_type != I8 or \
                numpy_helper.to_array(zp).any():
            bad.append("%s: DQ %s has no constant INT8 zero point 0" %
                       (n.name, d.name))
        if sc is None:
            bad.append("%s: DQ %s scale is not a constant" % (n.name, d.name))
            continue
        types.add(sc.data_type)
        if sc.dims and attr(d, "axis", 1) >= 0 and len(sc.dims) != 1:
            bad.append("%s: DQ %s scale of rank %d" %
                       (n.name, d.name, len(sc.dims)))
    if len(types) > 1:
        bad.append("%s: scales of different float types %s" %
                   (n.name, sorted(types)))
    need = 19 if types - {1} else 13
    if opset < need:
        bad.append("%s: opset %d, INT8 Q/DQ here need %d" %
                   (n.name, opset, need))


def form(orig, out, floats, fmt=FP8):
    ow = orig_weights(orig)
    bad, layers = [], 0
    opset = max([o.version for o in out.opset_import
                 if o.domain in ("", "ai.onnx")] or [0])
    for g, parents in graphs(out.graph):
        inits = {}
        for p in parents + (g,):
            inits.update({t.name: t for t in p.initializer})
        prod = {o: n for n in g.node for o in n.output}
        users = {}
        for n in g.node:
            for i in n.input:
                users.setdefault(i, []).append(n)
        for n in g.node:
            dqs = [prod.get(x) for x in n.input[:2]]
            isdq = [d is not None and d.op_type == "DequantizeLinear"
                    for d in dqs]
            if n.name in floats:
                if any(isdq):
                    bad.append("%s: should be float, reads a DQ" % n.name)
                continue
            if n.op_type in LAYERS:
                layers += 1
                if not all(isdq):
                    bad.append("%s: an input is not from a DQ" % n.name)
                    continue
                if dqs[0].input[0] in inits:
                    bad.append("%s: input 0 is a constant" % n.name)
                if dqs[1].input[0] in inits:
                    check_weight(n, dqs[1], inits, ow, bad, fmt)
                if fmt is INT8:
                    trt_int8(n, dqs, inits, opset, bad)
            if n.op_type == "Add" and len(n.input) == 2 and not any(
                    x in inits or (prod.get(x) is not None and
                                   prod[x].op_type == "Constant")
                    for x in n.input):    # a bias Add is no residual
                c = [conv_behind(x, prod, users) for x in n.input]
                if any(c) and not any(isdq):
                    bad.append("%s: residual Add without Q/DQ on its "
                               "shortcut" % n.name)
    if not layers:
        bad.append("no %s layer found" % fmt.name)
    print("\n".join(bad))
    return 1 if bad else 0


def main():
    if sys.argv[1] == "count":
        m = onnx.load(sys.argv[2])
        print(sum(n.op_type == sys.argv[3] for g, _ in graphs(m.graph)
                  for n in g.node))
        return 0
    floats = set(sys.argv[4].split(",")) if len(sys.argv) > 4 and \
        sys.argv[4] else set()
    return form(onnx.load(sys.argv[2]), onnx.load(sys.argv[3]), floats,
                INT8 if sys.argv[1] == "form-int8" else FP8)


if __name__ == "__main__":
    sys.exit(main())
