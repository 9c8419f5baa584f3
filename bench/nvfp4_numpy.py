#!/usr/bin/env python3
"""Straightforward NumPy NVFP4 weight quantization, the baseline of
`make bench` (bench/kernels-bench.c runs it on the same weights).

Same algorithm and float32 arithmetic as qopt (docs/numerics.md,
qopt/kernels.h): g = amax / 2688; s = e4m3(amax_blk / 6 / g) (0x38 for a
zero block, 0x01 when it rounds to 0); codes = e2m1(w / (e4m3(s) * g)).
Whole-array NumPy operations, no tricks.

usage: nvfp4_numpy.py W.f32 N K OUTDIR
  reads N*K float32 (row-major [N, K], blocks along K), writes
  OUTDIR/np_codes.u8, np_scales.u8, np_g.f32 and prints "seconds T".
"""
import sys
import time

import numpy as np

F32 = np.float32


def e4m3_code(x):
    """E4M3FN codes of x >= 0 (float32), round half to even, saturating."""
    x = x.astype(np.float64)
    _, e = np.frexp(x)                  # x = m * 2^e, m in [0.5, 1)
    e = np.clip(e - 1, -6, 8)           # binade, subnormals share 2^-6's
    step = np.ldexp(1.0, e - 3)         # 3 mantissa bits
    v = np.minimum(np.round(x / step) * step, 448.0)  # np.round: to even
    _, ev = np.frexp(v)
    ev = ev - 1
    normal = v >= 2.0 ** -6
    mant = np.where(normal, v / np.ldexp(1.0, ev) * 8 - 8, v / 2.0 ** -9)
    code = np.where(normal, (ev + 7) * 8 + mant, mant)
    return code.astype(np.uint8)


def e4m3_value(c):
    c = c.astype(np.int64)
    e, m = c >> 3, c & 7
    return np.where(e == 0, m * 2.0 ** -9,
                    (1 + m / 8.0) * np.ldexp(1.0, e - 7)).astype(F32)


def e2m1_code(q):
    a = np.abs(q)
    c = ((a > 0.25).astype(np.uint8) + (a >= 0.75) + (a > 1.25) +
         (a >= 1.75) + (a > 2.5) + (a >= 3.5) + (a > 5.0))
    c = c | np.where(np.signbit(q), 8, 0).astype(np.uint8)
    return np.where(np.isnan(q), 7, c).astype(np.uint8)


def nvfp4(w):
    amax = F32(np.nanmax(np.abs(w)))
    g = amax / F32(2688.0) if amax > 0 else F32(1.0)
    g = max(g, F32(np.finfo(F32).tiny))
    blk = w.reshape(-1, 16)
    bamax = np.nanmax(np.abs(blk), axis=1)
    s = e4m3_code(bamax / F32(6.0) / g)
    s = np.where(s == 0, 1, s).astype(np.uint8)
    s = np.where(bamax > 0, s, 0x38).astype(np.uint8)
    div = e4m3_value(s) * g
    c = e2m1_code(blk / div[:, None]).reshape(-1)
    codes = (c[0::2] | (c[1::2] << 4)).astype(np.uint8)
    return codes, s, g


def main():
    path, n, k, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    w = np.fromfile(path, dtype=F32, count=n * k).reshape(n, k)
    t0 = time.perf_counter()
    codes, scales, g = nvfp4(w)
    t = time.perf_counter() - t0
    codes.tofile(out + "/np_codes.u8")
    scales.tofile(out + "/np_scales.u8")
    np.array([g], dtype=F32).tofile(out + "/np_g.f32")
    print("seconds %.6f" % t)


if __name__ == "__main__":
    main()
