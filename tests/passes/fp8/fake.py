#!/usr/bin/env python3
"""tests/passes/fp8/fake.py ORIG.onnx OUT.onnx - weight_mode = fake's
weights from the ONNX definitions alone: every W behind Q(W, s) -> DQ(., d)
in ORIG is W_fq in OUT, holding fp8(W / s) * d (QuantizeLinear's FP32
division, round-half-to-even, saturating; DequantizeLinear's FP32
product) rounded once to W's type, bit for bit. Prints TAP.
"""
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check import e4m3_table, to_e4m3  # noqa: E402


def per_axis(s, node, ndim):
    if s.size == 1:
        return s.reshape(())
    ax = next((a.i for a in node.attribute if a.name == 'axis'), 1)
    shp = [1] * ndim
    shp[ax] = s.size
    return s.reshape(shp)


def main(orig_path, out_path):
    orig, out = onnx.load(orig_path), onnx.load(out_path)
    oi = {t.name: t for t in orig.graph.initializer}
    fq = {t.name: t for t in out.graph.initializer}
    users = {}
    for n in orig.graph.node:
        for i in n.input:
            users.setdefault(i, []).append(n)
    tab = np.concatenate([e4m3_table(), [np.nan]]).astype(np.float32)
    n = fails = 0
    for q in orig.graph.node:
        if q.op_type != 'QuantizeLinear' or q.input[0] not in oi:
            continue
        dq = users[q.output[0]][0]
        w = numpy_helper.to_array(oi[q.input[0]])
        s = per_axis(numpy_helper.to_array(oi[q.input[1]]).astype(
            np.float32), q, w.ndim)
        d = per_axis(numpy_helper.to_array(oi[dq.input[1]]).astype(
            np.float32), dq, w.ndim)
        c = to_e4m3((w.astype(np.float32) / s).astype(np.float64))
        mag = tab[c & 0x7F] * np.where(c & 0x80, -1, 1).astype(np.float32)
        want = (mag * d).astype(np.float32).astype(w.dtype)
        t = fq.get(q.input[0] + '_fq')
        got = numpy_helper.to_array(t) if t is not None else None
        ok = got is not None and got.dtype == w.dtype and \
            got.shape == w.shape and got.tobytes() == want.tobytes()
        n += 1
        fails += not ok
        print(f'{"" if ok else "not "}ok {n} - {q.input[0]}_fq = '
              f'DQ(Q(W)) bit for bit')
    print(f'1..{n}')
    return 1 if fails or not n else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1], sys.argv[2]))
