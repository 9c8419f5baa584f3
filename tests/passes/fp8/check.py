#!/usr/bin/env python3
"""tests/passes/fp8/check.py - what fp8-mha's output must look like.

    fp8mha-check.py form OUT.onnx     the "done when" form; prints each
                                      problem, exit 1 when there is one
    fp8mha-check.py counts MODEL.onnx node counts by op type, one line
    fp8mha-check.py codes ORIG.onnx OUT.onnx
                                      every FP8 weight in OUT equals
                                      fp8(W / scale) of ORIG's weight
                                      (numpy, round-half-to-even,
                                      saturating), transposed if the
                                      Transpose was folded
"""
import sys
from collections import Counter

import numpy as np
import onnx
from onnx import numpy_helper

F8 = 17
FLOATS = (1, 10, 16)


def problems(m):
    out = []
    g = m.graph
    inits = {t.name: t for t in g.initializer}
    typed = {v.name: v for v in list(g.value_info) + list(g.output) +
             list(g.input)}
    shape = {}
    for v in typed.values():
        if v.type.tensor_type.HasField('shape'):
            shape[v.name] = [d.dim_value if d.HasField('dim_value') else
                             d.dim_param for d in v.type.tensor_type.shape.dim]
    for t in g.initializer:
        shape[t.name] = list(t.dims)
    users = {}
    for n in g.node:
        for i in n.input:
            users.setdefault(i, []).append(n)
    opset = {o.domain: o.version for o in m.opset_import}
    if opset.get('', opset.get('ai.onnx', 0)) < 19:
        out.append('default opset %s < 19' % opset.get(''))
    if m.ir_version < 9:
        out.append('IR version %d < 9' % m.ir_version)
    for d in opset:
        if d not in ('', 'ai.onnx'):
            out.append('opset import %r left' % d)
    for n in g.node:
        if n.domain not in ('', 'ai.onnx'):
            out.append('custom op %s::%s (%s)' % (n.domain, n.op_type, n.name))
        if n.op_type not in ('QuantizeLinear', 'DequantizeLinear'):
            continue
        v = typed.get(n.output[0])
        et = v.type.tensor_type.elem_type if v else 0
        want = F8 if n.op_type == 'QuantizeLinear' else None
        if not v or not et or (want and et != want) or \
           (not want and et not in FLOATS):
            out.append('%s output %s untyped or mistyped (%d)' %
                       (n.name, n.output[0], et))
        elif n.input[0] in shape and \
                shape.get(n.output[0]) != shape[n.input[0]]:
            # A shape the input has must carry over (none to carry when
            # the input's is unknown: the pass infers no other op's).
            out.append('%s output %s shape %s, input %s' %
                       (n.name, n.output[0], shape.get(n.output[0]),
                        shape[n.input[0]]))
        if len(n.input) >= 3 and n.input[2] in inits:
            z, s = inits[n.input[2]], inits.get(n.input[1])
            if z.data_type != F8:
                out.append('%s zero point type %d' % (n.name, z.data_type))
            if s is not None and list(z.dims) != list(s.dims):
                out.append('%s zero point shape %s != scale %s' %
                           (n.name, list(z.dims), list(s.dims)))
        if n.op_type == 'QuantizeLinear' and n.input[0] in inits:
            out.append('%s: weight %s not compressed' % (n.name, n.input[0]))
        if n.op_type == 'DequantizeLinear' and n.input[0] in inits:
            if inits[n.input[0]].data_type != F8:
                out.append('%s: weight not FP8' % n.name)
            for u in users.get(n.output[0], []):
                nxt = users.get(u.output[0], []) if u.op_type == 'Cast' else [u]
                for w in nxt:
                    if w.op_type != 'MatMul':
                        out.append('%s: weight DQ feeds %s %s' %
                                   (n.name, w.op_type, w.name))
    return out


def e4m3_table():
    vals = []
    for c in range(0x7F):
        e, mant = (c >> 3) & 15, c & 7
        vals.append(mant * 2.0 ** -9 if e == 0 else
                    (1 + mant / 8) * 2.0 ** (e - 7))
    return np.array(vals)


def to_e4m3(x):
    """float64 array -> FP8 E4M3FN codes: nearest, ties to even code,
    saturating at 448."""
    tab = e4m3_table()
    a = np.abs(x)
    i = np.clip(np.searchsorted(tab, a), 1, len(tab) - 1)
    lo, hi = tab[i - 1], tab[i]
    pick_hi = (hi - a < a - lo) | ((hi - a == a - lo) & (i % 2 == 0))
    code = np.where(pick_hi, i, i - 1)
    code = np.where(a >= 448, 0x7E, code)
    return (code | np.where(np.signbit(x), 0x80, 0)).astype(np.uint8)


def perm_after(m, q):
    """perm of the Transpose behind Q -> DQ -> [Cast] -> Transpose."""
    users = {}
    for n in m.graph.node:
        for i in n.input:
            users.setdefault(i, []).append(n)
    v = q.output[0]
    for _ in range(3):
        (u,) = users[v]
        if u.op_type == 'Transpose':
            for a in u.attribute:
                if a.name == 'perm':
                    return list(a.ints)
            return None
        v = u.output[0]
    raise ValueError('no Transpose after ' + q.name)


def codes(orig, out):
    """Weights of ORIG behind Q(W, s) whose compressed codes in OUT are
    named W_fp8 (or W_fp8_T when pre-transposed)."""
    oi = {t.name: t for t in orig.graph.initializer}
    qs = {n.input[0]: n for n in orig.graph.node
          if n.op_type in ('QuantizeLinear', 'TRT_FP8QuantizeLinear')}
    bad = checked = 0
    for t in out.graph.initializer:
        if t.data_type != F8 or not t.name.endswith(('_fp8', '_fp8_T')):
            continue
        wname = t.name[:-len('_fp8_T')] if t.name.endswith('_T') else \
            t.name[:-len('_fp8')]
        if wname not in oi or wname not in qs:
            continue
        w = numpy_helper.to_array(oi[wname]).astype(np.float64)
        q = qs[wname]
        s = numpy_helper.to_array(oi[q.input[1]]).astype(np.float32)
        if s.size > 1:      # per-axis: broadcast along the Q's axis
            ax = next((a.i for a in q.attribute if a.name == 'axis'), 1)
            shp = [1] * w.ndim
            shp[ax] = s.size
            s = s.reshape(shp)
        # QuantizeLinear divides in FP32.
        want = to_e4m3((w.astype(np.float32) / s).astype(np.float64))
        if t.name.endswith('_T'):
            want = want.transpose(perm_after(orig, qs[wname]))
        got = np.frombuffer(t.raw_data, np.uint8).reshape(tuple(t.dims))
        checked += 1
        if want.shape != got.shape or not np.array_equal(want, got):
            bad += 1
            print('# %s: codes differ' % t.name)
    print('# %d FP8 weights checked, %d differ' % (checked, bad))
    return 1 if bad or not checked else 0


def main():
    mode = sys.argv[1]
    m = onnx.load(sys.argv[2])
    if mode == 'counts':
        c = Counter(n.op_type for n in m.graph.node)
        print('%d nodes: ' % len(m.graph.node) +
              ', '.join('%s %d' % kv for kv in sorted(c.items())))
        return 0
    if mode == 'codes':
        return codes(m, onnx.load(sys.argv[3]))
    p = problems(m)
    for x in p:
        print('# ' + x)
    return 1 if p else 0


if __name__ == '__main__':
    sys.exit(main())
