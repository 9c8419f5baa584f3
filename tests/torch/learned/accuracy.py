#!/usr/bin/python3
"""tests/torch/learned/accuracy.py - the python half of accuracy.sh.

  accuracy.py break IN OUT NAME
      OUT = IN (a model from the pass fp8) with the scale of the FP8
      weight DequantizeLinear whose weight or layer name contains NAME
      set to zero: the layer's weights become zeros, the kind of wrong
      scale a broken pass writes. The bounds must reject it.
  accuracy.py bounds JSON
      JSON from eval.js (float model first, then the formats named by
      their file names MODEL.FORMAT.onnx); prints one line per check,
      "0|description" or "1|description (what was measured)", then the
      table lines prefixed with "#".

Bounds (what would catch a broken pass; measured figures in
docs/accuracy.md): perplexity at most (1 + P) times the float model's,
top-1 at most T points below it, top-1 agreement with the float model
at least A; every quantized model's logits differ from the float
model's and are finite.
"""
import json
import sys

import numpy as np
import onnx
from onnx import numpy_helper

# TensorProto.FLOAT8E4M3FN (onnx 1.12, Debian's, does not name it)
FLOAT8E4M3FN = 17

#          format: (P, T, A)
BOUNDS = {'fp8': (0.05, 2.0, 0.90),
          'mxfp8': (0.05, 2.0, 0.90),
          'w4a16': (0.15, 5.0, 0.80),
          'w4a4': (0.25, 8.0, 0.75),
          'broken': (0.05, 2.0, 0.90)}


def brk(src, dst, name):
    m = onnx.load(src)
    g = m.graph
    inits = {t.name: t for t in g.initializer}
    for n in g.node:
        if n.op_type != 'DequantizeLinear' or n.input[0] not in inits:
            continue
        if inits[n.input[0]].data_type != FLOAT8E4M3FN:
            continue
        users = [u.name for u in g.node if n.output[0] in u.input]
        if not any(name in s for s in [n.input[0], n.output[0]] + users):
            continue
        s = inits[n.input[1]]
        z = numpy_helper.from_array(
            np.zeros_like(numpy_helper.to_array(s)), s.name)
        s.CopyFrom(z)
        onnx.save(m, dst)
        print(f'zeroed the scale of {n.input[0]} (read by {users})')
        return 0
    print(f'no FP8 weight DequantizeLinear matching {name!r}')
    return 1


def bounds(path):
    with open(path) as f:
        d = json.load(f)
    kind, ms = d['kind'], d['models']
    ref = ms[0]
    lm = kind == 'charlm'
    metric = 'perplexity' if lm else 'top-1'
    table = [f'# {kind} ({d["n"]} held-out {"windows" if lm else "images"}):'
             f' format, {metric}, top-1 agreement with float,'
             f' max |logit - float logit|']
    for m in ms:
        fmt = m['model'].split('.')[-2] if m is not ref else 'float'
        v = m['ppl'] if lm else m['top1'] * 100
        table.append(f'#   {fmt:7} {v:8.3f}{"" if lm else "%"} '
                     f'{m["agree"] * 100:6.1f}% {m["maxdiff"]:8.4f}')
        if m is ref:
            continue
        p, t, a = BOUNDS[fmt]
        if lm:
            ok = m['ppl'] <= ref['ppl'] * (1 + p)
            what = (f'perplexity {m["ppl"]:.3f} within {p * 100:.0f}% of '
                    f'float {ref["ppl"]:.3f}')
        else:
            ok = m['top1'] * 100 >= ref['top1'] * 100 - t
            what = (f'top-1 {m["top1"] * 100:.1f}% within {t:g} points of '
                    f'float {ref["top1"] * 100:.1f}%')
        ok = ok and m['agree'] >= a and m['finite'] and m['maxdiff'] > 0
        what += (f', agreement {m["agree"] * 100:.1f}% >= {a * 100:.0f}%,'
                 f' finite, differs from float')
        print(f'{0 if ok else 1}|{kind} {fmt}: {what}')
    print('\n'.join(table))
    return 0


if __name__ == '__main__':
    if sys.argv[1] == 'break':
        sys.exit(brk(*sys.argv[2:5]))
    sys.exit(bounds(sys.argv[2]))
