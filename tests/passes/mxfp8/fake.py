#!/usr/bin/env python3
"""tests/passes/mxfp8/fake.py REAL.onnx FAKE.onnx - the fake form's weights
against the real form's codes and scales, from the format alone.

For every weight W the real form stores as W_f8 (FLOAT8E4M3FN codes) and
W_scale (E8M0 codes, one per 32 along K), the fake form's W must hold
e4m3(code) * 2^(scale - 127) in W's own type, bit for bit. Prints TAP.
"""
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def e4m3(code):
    """FLOAT8E4M3FN: bias 7, 3 mantissa bits, subnormals at exponent 0."""
    sign = -1.0 if code & 0x80 else 1.0
    exp, man = (code >> 3) & 0xF, code & 7
    if exp == 15 and man == 7:
        return float('nan')
    if exp == 0:
        return sign * man * 2.0 ** -9
    return sign * (1 + man / 8.0) * 2.0 ** (exp - 7)


E4M3 = np.array([e4m3(c) for c in range(256)], dtype=np.float32)


def inits(path):
    m = onnx.load(path)
    return {i.name: i for i in m.graph.initializer}


def raw_u8(t):
    return np.frombuffer(t.raw_data, dtype=np.uint8).reshape(tuple(t.dims))


def main(real_path, fake_path):
    real, fake = inits(real_path), inits(fake_path)
    n = fails = 0
    for name in sorted(real):
        if not name.endswith('_f8') or name[:-3] + '_scale' not in real:
            continue
        w = name[:-3]
        codes = raw_u8(real[name])
        scodes = raw_u8(real[w + '_scale'])
        axis = [i for i in range(codes.ndim)
                if codes.shape[i] != scodes.shape[i]][0]
        scale = np.ldexp(np.float32(1), scodes.astype(np.int32) - 127)
        scale = np.repeat(scale.astype(np.float32), 32, axis=axis)
        got = numpy_helper.to_array(fake[w]) if w in fake else None
        ok = got is not None
        if ok:
            want = (E4M3[codes] * scale).astype(got.dtype)
            ok = got.shape == want.shape and got.tobytes() == want.tobytes()
        n += 1
        fails += not ok
        print(f'{"" if ok else "not "}ok {n} - {w} (K axis {axis}): '
              f'fake = e4m3(code) * 2^(scale - 127), bit for bit')
    print(f'1..{n}')
    return 1 if fails or not n else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1], sys.argv[2]))
