#!/usr/bin/env python3
"""tests/passes/fp8/rotate.py - models and an independent checker for fp8-mha's
weight_mode = fake and rotate = rotate_back.

  fp8mha-rotate.py model OUT.onnx DTYPE SCALE PATH K N [extra]
      y = x @ B, B the weight behind Q -> DQ (FLOAT8E4M3FN, zero point 0):
      DTYPE f32|f16 (weight, scale and graph type), SCALE tensor|axis
      (per output channel), PATH
        direct      W [K, N] -> Q -> DQ -> MatMul (K is stored axis 0)
        transposed  W [N, K] -> Q -> DQ -> Transpose -> MatMul (axis 1)
        cast        as transposed, W FLOAT, a Cast to the graph type
                    between DQ and Transpose (use with f16)
        gemm        W [N, K] -> Q -> DQ -> Gemm transB = 1 (axis 1)
      EXTRA, a comma list: probe (the DQ output also feeds an Add, not a
      reduction), out (the DQ output is also a graph output), e5m2
      (FLOAT8E5M2 codes), inf (one weight element is +inf), dq16 (with
      f16: W and the Q scale FLOAT, the DQ its own FLOAT16 scale, so the
      DQ output type is not W's), dqin (the DQ's scale is a graph input),
      huge (with f32: rows 0 and 1 along K are 3e38, so R W leaves FP32's
      range), huge1 (row 0 only: near the bound, R W still finite).
      A few input channels (rows along K) are 30x larger: outliers.
  fp8mha-rotate.py check ORIG.onnx NEW.onnx KAXIS
      NEW's initializer w_fq_rot must equal R fq(R W) computed here: R the
      normalized Sylvester Hadamard matrix of block K & -K along KAXIS,
      fq the FP8 E4M3FN round-half-to-even saturating fake quantizer with
      scale amax(R W)/448 at the Q scale's granularity (1 where amax is
      0). Arithmetic in float64, one rounding to W's type; tolerance:
      1e-6 of max |W'| plus, for FLOAT16, one FLOAT16 spacing. An element
      of R W within 1e-4 of an FP8 rounding tie may round either way (the
      pass computes in FP32). Prints the worst error and the relative
      reconstruction errors of fq(W) and R fq(R W) against W.
No qopt code is used here.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

NP = {'f32': np.float32, 'f16': np.float16}
TP = {'f32': TensorProto.FLOAT, 'f16': TensorProto.FLOAT16}
F8 = 17     # FLOAT8E4M3FN


def model(out, dt, scale, path, k, n, extra=''):
    rng = np.random.default_rng(11)
    extra = extra.split(',')
    wdt = 'f32' if path == 'cast' or 'dq16' in extra else dt
    w = rng.standard_normal((k, n)) * 0.05
    w[rng.choice(k, size=max(1, k // 16), replace=False), :] *= 30
    if 'inf' in extra:
        w[0, 0] = np.inf
    if 'huge' in extra:
        w[0:2, :] = 3e38
    if 'huge1' in extra:
        w[0, :] = 3e38
    stored = w if path == 'direct' else w.T.copy()
    stored = stored.astype(NP[wdt])
    out_axis = 1 if path == 'direct' else 0
    if scale == 'axis':
        s = np.abs(stored.astype(np.float64)).max(axis=1 - out_axis) / 448
        zp_dims = [s.size]
    else:
        s = np.array(np.abs(stored.astype(np.float64)).max() / 448)
        zp_dims = []
    s = s.astype(NP[wdt])
    zp = TensorProto()      # onnx 1.12 has no FLOAT8E4M3FN helpers
    zp.name, zp.data_type = 'zp', 19 if 'e5m2' in extra else F8
    zp.dims.extend(zp_dims)
    zp.raw_data = bytes(int(np.prod(zp_dims)))
    kw = {'axis': out_axis} if scale == 'axis' else {}
    inits = [numpy_helper.from_array(stored, 'w'),
             numpy_helper.from_array(s, 's'), zp]
    ds = 's'
    if 'dq16' in extra:
        inits.append(numpy_helper.from_array(s.astype(np.float16), 's16'))
        ds = 's16'
    ins = [helper.make_tensor_value_info('x', TP[dt], [4, k])]
    if 'dqin' in extra:
        ins.append(helper.make_tensor_value_info('sd', TP[wdt],
                                                 list(s.shape)))
        ds = 'sd'
    nodes = [helper.make_node('QuantizeLinear', ['w', 's', 'zp'], ['q'],
                              name='wq', **kw),
             helper.make_node('DequantizeLinear', ['q', ds, 'zp'], ['dq'],
                              name='wdq', **kw)]
    b = 'dq'
    if path == 'cast':
        nodes.append(helper.make_node('Cast', ['dq'], ['dqc'], name='wcast',
                                      to=TP[dt]))
        b = 'dqc'
    if path in ('transposed', 'cast'):
        nodes.append(helper.make_node('Transpose', [b], ['wt'], name='wtr',
                                      perm=[1, 0]))
        b = 'wt'
    if path == 'gemm':
        nodes.append(helper.make_node('Gemm', ['x', b], ['y'], name='mm',
                                      transB=1))
    else:
        nodes.append(helper.make_node('MatMul', ['x', b], ['y'], name='mm'))
    outs = [helper.make_tensor_value_info('y', TP[dt], [4, n])]
    if 'probe' in extra:
        nodes.append(helper.make_node('Add', ['dq', 'dq'], ['p'],
                                      name='probe'))
        outs.append(helper.make_tensor_value_info('p', TP[wdt], None))
    if 'out' in extra:
        outs.append(helper.make_tensor_value_info('dq', TP[wdt], None))
    g = helper.make_graph(
        nodes, 'rot', ins, outs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 19)])
    m.ir_version = 9
    onnx.save(m, out)


def sylvester(b):
    h = np.ones((1, 1))
    while h.shape[0] < b:
        h = np.block([[h, h], [h, -h]])
    return h / np.sqrt(b)


def rotate(x, axis, b):
    """R x along axis, R block-diagonal with Sylvester blocks of b."""
    y = np.moveaxis(x, axis, 0)
    shp = y.shape
    y = y.reshape(shp[0] // b, b, -1)
    y = np.einsum('ij,gjr->gir', sylvester(b), y)
    return np.moveaxis(y.reshape(shp), 0, axis)


def e4m3_grid(a):
    """Step of the E4M3FN grid at |a| (subnormal step below 2^-6)."""
    e = np.floor(np.log2(np.where(a > 0, a, 1.0)))
    return 2.0 ** (np.maximum(e, -6) - 3)


def e4m3(t):
    """Round half to even onto E4M3FN, saturating at 448; also the
    elements within 1e-4 of a tie and their other neighbour."""
    a = np.abs(t)
    st = e4m3_grid(a)
    u = a / st
    r = np.round(u)          # numpy rounds half to even
    tie = np.abs(u - np.floor(u) - 0.5) < 1e-4
    other = np.where(r > u, r - 1, r + 1)
    q = np.minimum(r * st, 448.0)
    q2 = np.minimum(other * st, 448.0)
    return np.sign(t) * q, np.sign(t) * q2, tie


def load(path):
    m = onnx.load(path)
    inits = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer
             if t.data_type not in (F8, 19)}
    return m, inits


def check(orig, new, kaxis):
    m0, i0 = load(orig)
    m1, i1 = load(new)
    q = next(nd for nd in m0.graph.node if nd.op_type == 'QuantizeLinear')
    w = i0[q.input[0]]
    s = i0[q.input[1]]
    name = q.input[0] + '_fq_rot'
    if name not in i1:
        return 'no initializer %s in %s' % (name, new)
    got = i1[name]
    if any(nd.op_type in ('QuantizeLinear', 'DequantizeLinear')
           for nd in m1.graph.node):
        return 'a Q or DQ is left'
    if got.dtype != w.dtype or got.shape != w.shape:
        return 'type/shape %s%s, want %s%s' % (got.dtype, got.shape,
                                                w.dtype, w.shape)
    k = w.shape[kaxis]
    b = k & -k
    x = w.astype(np.float64)
    rx = rotate(x, kaxis, b)
    if s.size == 1:
        amax = np.abs(rx).max()
        sc = np.float64(np.float32(np.float32(amax) / np.float32(448)))
        sc = sc if sc > 0 else 1.0
    else:
        axis = next((a.i for a in q.attribute if a.name == 'axis'), 1)
        red = tuple(i for i in range(w.ndim) if i != axis)
        amax = np.abs(rx).max(axis=red, keepdims=True)
        sc = (amax.astype(np.float32) / np.float32(448)).astype(np.float64)
        sc = np.where(sc > 0, sc, 1.0)
    fq, fq2, tie = e4m3(rx / sc)
    # Near a tie either neighbour is right: take the one the pass chose
    # (its R W' in code units is nearer to it).
    est = rotate(got.astype(np.float64), kaxis, b) / sc
    pick = tie & (np.abs(est - fq2) < np.abs(est - fq))
    fq = np.where(pick, fq2, fq) * sc
    ref = rotate(fq, kaxis, b)
    want = ref.astype(w.dtype).astype(np.float64)
    err = np.abs(got.astype(np.float64) - want)
    tol = 1e-6 * np.abs(want).max()
    if w.dtype == np.float16:
        tol = tol + np.spacing(np.abs(want).astype(np.float16)).astype(
            np.float64)
    bad = err > tol
    # reconstruction error against W: plain fake quantization vs rotated
    sp = s.astype(np.float64)
    if s.size > 1:
        shape = [1] * w.ndim
        shape[axis] = s.size
        sp = sp.reshape(shape)
    plain = e4m3(x / sp)[0] * sp
    rel = lambda y: np.linalg.norm(y - x) / np.linalg.norm(x)
    info = ('max |W\' - ref| %.3g (tol %.3g%s), %d near-tie codes, %d '
            'taken the other way; relative error vs W: fq(W) %.4f, '
            'R fq(R W) %.4f'
            % (err.max(), 1e-6 * np.abs(want).max(),
               ' + 1 FLOAT16 spacing' if w.dtype == np.float16 else '',
               int(tie.sum()), int(pick.sum()), rel(plain),
               rel(got.astype(np.float64))))
    if bad.any():
        i = np.unravel_index(np.argmax(err - tol), err.shape)
        return '%d elements off, worst at %s: got %r want %r; %s' % (
            int(bad.sum()), i, float(got[i]), float(want[i]), info)
    print(info)
    return None


def main(a):
    if a[0] == 'model':
        model(a[1], a[2], a[3], a[4], int(a[5]), int(a[6]),
              a[7] if len(a) > 7 else '')
        return 0
    if a[0] == 'check':
        why = check(a[1], a[2], int(a[3]))
        if why:
            print(why)
            return 1
        return 0
    print(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
