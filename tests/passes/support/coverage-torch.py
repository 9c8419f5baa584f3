#!/usr/bin/env python3
"""tests/passes/support/coverage-torch.py - coverage-torch.sh's check:
the coverage counters of one pass run (--stats-json) against what the
models say, counted here independently.

  coverage-torch.py PASS FORMAT IN.onnx OUT.onnx STATS.json

Candidates (per PASS, as docs/pass-toolkit.md defines them): the float
weights the pass's layers read. nvfp4-weights: input B of every
MatMul/Gemm/Conv, followed back through Identity/Transpose/Cast to its
initializer; mxfp8: input B of MatMul/Gemm read from an initializer;
fp8: the constant inputs A and B of Conv/ConvTranspose/MatMul/Gemm. A
candidate counts as quantized to FORMAT when OUT no longer holds it as
a float initializer. Checked exactly: "candidate weights", "candidate
bytes", "FORMAT weights", "FORMAT bytes", "float weights left",
"float bytes left"; and every candidate is counted once.
"""
import json
import sys

import onnx
from onnx import numpy_helper as nh

FLOATS = {onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16,
          onnx.TensorProto.BFLOAT16}
LAYOUT = {'Identity', 'Transpose', 'Cast'}


def inits(m):
    return {t.name: t for t in m.graph.initializer}


def nbytes(t):
    n = 1
    for d in t.dims:
        n *= d
    return n * (4 if t.data_type == onnx.TensorProto.FLOAT else 2)


def candidates(pass_, m):
    init = inits(m)
    prod = {o: n for n in m.graph.node for o in n.output}
    out = []

    def back(v):
        while v not in init and v in prod and prod[v].op_type in LAYOUT:
            v = prod[v].input[0]
        return v

    for n in m.graph.node:
        if pass_ == 'nvfp4-weights' and n.op_type in ('MatMul', 'Gemm', 'Conv'):
            if n.input[0] in init:
                continue  # a constant subgraph, not a layer
            names = [back(n.input[1])]
        elif pass_ == 'mxfp8' and n.op_type in ('MatMul', 'Gemm'):
            names = [back(n.input[1])] if n.input[0] not in init else []
        elif pass_ == 'fp8' and n.op_type in ('Conv', 'ConvTranspose',
                                              'MatMul', 'Gemm'):
            names = [v for v in n.input[:2] if v in init]
        else:
            continue
        for v in names:
            if v in init and init[v].data_type in FLOATS and v not in out:
                out.append(v)
    return [init[v] for v in out]


def main(pass_, fmt, inp, outp, stats):
    m, o = onnx.load(inp), onnx.load(outp)
    left = {n for n, t in inits(o).items() if t.data_type in FLOATS}
    cand = candidates(pass_, m)
    q = [t for t in cand if t.name not in left]
    want = {
        'candidate weights': len(cand),
        'candidate bytes': sum(nbytes(t) for t in cand),
        fmt + ' weights': len(q),
        fmt + ' bytes': sum(nbytes(t) for t in q),
        'float weights left': len(cand) - len(q),
        'float bytes left': sum(nbytes(t) for t in cand if t.name in left),
    }
    d = json.load(open(stats))
    got = {}
    for p in d['passes']:
        if p['pass'] == pass_:
            got = p['stats']
    bad = [(k, v, got.get(k)) for k, v in want.items() if got.get(k) != v]
    for k, v, g in bad:
        print('%s: counted %s, the models say %s' % (k, g, v))
    if not q:
        print('nothing quantized: the check would prove nothing')
        return 1
    print('%s %s: %d of %d weights, %d of %d bytes' % (
        pass_, fmt, want[fmt + ' weights'], want['candidate weights'],
        want[fmt + ' bytes'], want['candidate bytes']))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(*sys.argv[1:6]))
