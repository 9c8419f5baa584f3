#!/usr/bin/env python3
"""tests/passes/nvfp4/check.py - an NVFP4 checker written from docs/numerics.md alone.

    nvfp4-check.py gen MODEL.onnx          write the test model
    nvfp4-check.py check ORIG.onnx OUT.onnx
    nvfp4-check.py check-fake ORIG.onnx OUT.onnx   (mode = fake)

`check` finds every NVFP4 chain in OUT (DequantizeLinear(FLOAT4E2M1,
DequantizeLinear(FLOAT8E4M3FN, FLOAT))), takes the original weight of
the same name from ORIG, recomputes the global scale, the FP8 block
scales and the packed E2M1 codes with numpy following docs/numerics.md, and
compares them with OUT's raw bytes bit for bit. Prints TAP.
`check-fake` does the same for fake mode: every weight of the test
model keeps its name and type in OUT and holds e2m1(code) * (e4m3(s)
* g) of the reference, rounded once to the weight's type.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F4 = 23
F8 = 17
E2M1_GRID = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6], dtype=np.float64)


def e4m3_value(code):
    """FLOAT8E4M3FN: bias 7, 3 mantissa bits, subnormals at exponent 0."""
    sign = -1.0 if code & 0x80 else 1.0
    exp = (code >> 3) & 0xF
    man = code & 7
    if exp == 15 and man == 7:
        return float('nan')
    if exp == 0:
        return sign * man * 2.0 ** -9
    return sign * (1 + man / 8.0) * 2.0 ** (exp - 7)


E4M3_POS = np.array([e4m3_value(c) for c in range(0x7F)])  # 0x00..0x7E


def nearest_even(x, table):
    """Index of the table entry nearest x; ties go to the even index
    (round-half-to-even on an ascending grid whose codes count up)."""
    i = int(np.searchsorted(table, x))
    if i == 0:
        return 0
    if i >= len(table):
        return len(table) - 1
    lo, hi = table[i - 1], table[i]
    dl, dh = x - lo, hi - x
    if dl < dh:
        return i - 1
    if dh < dl:
        return i
    return i - 1 if (i - 1) % 2 == 0 else i


def to_e4m3(x):
    """Positive float -> FP8 E4M3FN code, saturating at 448."""
    if x >= 448.0:
        return 0x7E
    return nearest_even(float(x), E4M3_POS)


def to_e2m1(x):
    mag = abs(float(x))
    code = 7 if mag >= 6.0 else nearest_even(mag, E2M1_GRID)
    return code | (8 if np.signbit(x) else 0)


def reference(w, axis):
    """Global scale (float32), FP8 scale codes and E2M1 codes of w."""
    w = w.astype(np.float32)
    k = w.shape[axis]
    wm = np.moveaxis(w, axis, -1)                 # [..., K]
    blocks = wm.reshape(wm.shape[:-1] + (k // 16, 16))
    amax = np.float32(np.max(np.abs(w)))
    g = np.float32(amax / np.float32(6 * 448)) if amax > 0 else np.float32(1)
    bamax = np.max(np.abs(blocks), axis=-1)       # [..., K/16]
    scodes = np.zeros(bamax.shape, dtype=np.uint8)
    codes = np.zeros(blocks.shape, dtype=np.uint8)
    for idx in np.ndindex(bamax.shape):
        a = bamax[idx]
        s = to_e4m3(np.float32(np.float32(a) / np.float32(6) / g)) \
            if a > 0 else 0x38
        scodes[idx] = s
        denom = np.float32(np.float32(e4m3_value(s)) * g)
        for j in range(16):
            codes[idx + (j,)] = to_e2m1(np.float32(blocks[idx + (j,)] / denom))
    # back to the weight's layout
    codes = np.moveaxis(codes.reshape(wm.shape), -1, axis)
    scodes = np.moveaxis(scodes, -1, axis)
    return g, scodes, codes


def pack4(codes):
    flat = codes.reshape(-1)
    if flat.size % 2:
        flat = np.concatenate([flat, [0]])
    return (flat[0::2] | (flat[1::2] << 4)).astype(np.uint8)


def raw(t, model_dir):
    if t.data_location == TensorProto.EXTERNAL:
        onnx.external_data_helper.load_external_data_for_tensor(t, model_dir)
    return t.raw_data


def original_weights(m):
    out = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    for n in m.graph.node:
        if n.op_type == 'Constant':
            for a in n.attribute:
                if a.name == 'value':
                    out[n.output[0]] = numpy_helper.to_array(a.t)
    return out


def chains(m):
    inits = {i.name: i for i in m.graph.initializer}
    prod = {o: n for n in m.graph.node for o in n.output}
    users = {}
    for n in m.graph.node:
        for i in n.input:
            users.setdefault(i, []).append(n)
    for n in m.graph.node:
        if n.op_type != 'DequantizeLinear' or n.input[0] not in inits:
            continue
        if inits[n.input[0]].data_type != F4:
            continue
        dq1 = prod.get(n.input[1])
        attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
        name = n.output[0]
        for u in users.get(name, []):
            if u.op_type == 'Cast':
                name = u.output[0]
        yield (name, inits[n.input[0]], inits[dq1.input[0]],
               inits[dq1.input[1]], attrs.get('axis', 1),
               attrs.get('block_size', 0))


def gen(path, big=False):
    rng = np.random.default_rng(7)
    # w_ties: global amax 2688 makes g exactly 1; its second block has
    # amax 6 (scale 1), so every E2M1 tie of docs/numerics.md is exercised.
    w_ties = rng.normal(0, 1, (64, 32)).astype(np.float32)
    w_ties[0, 0] = 2688.0
    w_ties[16:32, 1] = [6, 0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5,
                        -0.25, -0.75, -2.5, -5, 0.1, -0.1, 0, -6]
    w_ties[32:48, 2] = 0.0                         # a zero block
    w_f16 = rng.normal(0, 0.05, (128, 48)).astype(np.float16)
    w_gemm = (rng.standard_t(3, (48, 64)) * 0.02).astype(np.float32)
    w_const = rng.uniform(-3, 3, (32, 16)).astype(np.float32)
    x = helper.make_tensor_value_info('x', TensorProto.FLOAT, [2, 64])
    xh = helper.make_tensor_value_info('xh', TensorProto.FLOAT16, [2, 128])
    nodes = [
        helper.make_node('MatMul', ['x', 'w_ties'], ['y0'], name='mm0'),
        helper.make_node('MatMul', ['xh', 'w_f16'], ['y1'], name='mm1'),
        helper.make_node('Gemm', ['x', 'w_gemm'], ['y2'], name='gemm',
                         transB=1),
        helper.make_node('Constant', [], ['w_const'], name='c',
                         value=numpy_helper.from_array(w_const)),
        helper.make_node('MatMul', ['y0', 'w_const'], ['y3'], name='mm3'),
    ]
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None)
            for n in ('y2', 'y3')]
    outs.append(helper.make_tensor_value_info('y1', TensorProto.FLOAT16,
                                              None))
    inits = [numpy_helper.from_array(w_ties, 'w_ties'),
             numpy_helper.from_array(w_f16, 'w_f16'),
             numpy_helper.from_array(w_gemm, 'w_gemm')]
    inputs = [x, xh]
    if big:
        # codes of 128 KiB: over the size from which results are
        # written to the spill file
        w_big = rng.normal(0, 0.02, (1024, 256)).astype(np.float32)
        inits.append(numpy_helper.from_array(w_big, 'w_big'))
        inputs.append(helper.make_tensor_value_info(
            'xb', TensorProto.FLOAT, [2, 1024]))
        nodes.append(helper.make_node('MatMul', ['xb', 'w_big'], ['y4'],
                                      name='mmbig'))
        outs.append(helper.make_tensor_value_info('y4', TensorProto.FLOAT,
                                                  None))
        # K the last axis (Gemm transB): blocks of 16 contiguous
        # elements, many more than one strip of the fake recipe
        w_bigt = rng.normal(0, 0.02, (256, 1024)).astype(np.float32)
        inits.append(numpy_helper.from_array(w_bigt, 'w_bigt'))
        nodes.append(helper.make_node('Gemm', ['xb', 'w_bigt'], ['y5'],
                                      name='gemmbig', transB=1))
        outs.append(helper.make_tensor_value_info('y5', TensorProto.FLOAT,
                                                  None))
    g = helper.make_graph(nodes, 'nvfp4check', inputs, outs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)])
    m.ir_version = 8
    onnx.save(m, path)


def check(orig_path, out_path):
    import os
    orig = original_weights(onnx.load(orig_path))
    out = onnx.load(out_path, load_external_data=False)
    d = os.path.dirname(os.path.abspath(out_path))
    n = 0
    fails = 0
    for name, f4, s8, gs, axis, bs in chains(out):
        if name not in orig:
            print(f'not ok {n + 1} - {name}: no original weight of that name')
            n += 1
            fails += 1
            continue
        w = orig[name]
        axis = axis % w.ndim
        g, scodes, codes = reference(w, axis)
        got_g = np.frombuffer(raw(gs, d), dtype='<f4')
        got_s = np.frombuffer(raw(s8, d), dtype=np.uint8)
        got_c = np.frombuffer(raw(f4, d), dtype=np.uint8)
        checks = [
            ('block_size 16, types FLOAT4E2M1 / FLOAT8E4M3FN / FLOAT',
             bs == 16 and s8.data_type == F8 and gs.data_type == 1),
            ('global scale bits', got_g.size == 1 and
             got_g.view('<u4')[0] == np.float32(g).view('<u4')),
            ('FP8 block scale codes',
             np.array_equal(got_s, scodes.reshape(-1))),
            ('packed E2M1 codes', np.array_equal(got_c, pack4(codes))),
        ]
        for what, ok in checks:
            n += 1
            print(f'{"" if ok else "not "}ok {n} - {name} (axis {axis}): {what}')
            if not ok:
                fails += 1
        bad = int(np.sum(got_c != pack4(codes))) if got_c.size == \
            pack4(codes).size else -1
        if bad:
            print(f'# {name}: {bad} code bytes differ')
    n += 1
    print(f'{"" if n >= 17 else "not "}ok {n} - four weights checked '
          f'({(n - 1) // 4} found)')
    print(f'1..{n}')
    return 1 if fails or n < 17 else 0


# K axis of each weight of the test model (gen): MatMul reads [K, N],
# Gemm with transB [N, K].
FAKE_AXES = {'w_ties': 0, 'w_f16': 0, 'w_gemm': 1, 'w_const': 0, 'w_big': 0,
             'w_bigt': 1}


def fake_reference(w, axis):
    g, scodes, codes = reference(w, axis)
    mag = E2M1_GRID[codes & 7] * np.where(codes & 8, -1.0, 1.0)
    sv = np.vectorize(e4m3_value)(scodes).astype(np.float32)
    s = np.repeat(sv * np.float32(g), 16, axis=axis).astype(np.float32)
    return (mag.astype(np.float32) * s).astype(w.dtype)


def check_fake(orig_path, out_path):
    orig = original_weights(onnx.load(orig_path))
    out = original_weights(onnx.load(out_path))
    n = fails = 0
    for name, axis in FAKE_AXES.items():
        if name not in orig:
            continue
        w = orig[name]
        got = out.get(name)
        want = fake_reference(w, axis)
        ok = got is not None and got.dtype == w.dtype and \
            got.shape == w.shape and \
            got.tobytes() == want.tobytes()
        n += 1
        fails += not ok
        print(f'{"" if ok else "not "}ok {n} - {name} (axis {axis}): '
              f'fake values bit for bit')
    print(f'1..{n}')
    return 1 if fails or n < 4 else 0


if __name__ == '__main__':
    if sys.argv[1] == 'check-fake':
        sys.exit(check_fake(sys.argv[2], sys.argv[3]))
    if sys.argv[1] in ('gen', 'gen-big'):
        gen(sys.argv[2], sys.argv[1] == 'gen-big')
        sys.exit(0)
    sys.exit(check(sys.argv[2], sys.argv[3]))
