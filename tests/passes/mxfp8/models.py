#!/usr/bin/env python3
"""tests/passes/mxfp8/models.py - models for the mxfp8 tests (numpy + onnx).

  linear T OUT          x T[R, 256] -> MatMul(W T[256, 32]) -> y: the
                        pass puts its chain on x (R symbolic)
  cut IN OUT            keeps the chain only: input x_f32 FLOAT ->
                        Cast(T) -> ... chain ... -> Cast(FLOAT) -> y_f32
                        (ORT gets and gives FLOAT; both casts are exact)
  export KIND OUT       a ModelOpt-style MXFP8 export (KIND: marks, or
                        exported: weights already FLOAT8E4M3FN + UINT8
                        E8M0 codes) of x[2, 8, 64] -> Linear(64, 96) ->
                        Relu -> Linear(96, 32) -> MatMul(head) -> z,
                        plus OUT.x.f32 (an input) and OUT.z.f32 (the
                        exporter's output computed here in NumPy: the
                        reference), raw float32
  bad CASE OUT          a malformed export (see BAD below)
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP, helper as h, numpy_helper as nh

E4M3 = 17
TYPES = {'float': TP.FLOAT, 'float16': TP.FLOAT16, 'bfloat16': TP.BFLOAT16}
K = 256


def save(model, path):
    model.ir_version = 9
    onnx.save(model, path)


def linear(tname, out):
    t = TYPES[tname]
    rng = np.random.default_rng(1)
    w = rng.standard_normal((K, 32)).astype(np.float32)
    if t == TP.FLOAT16:
        wt = nh.from_array(w.astype(np.float16), 'w')
    elif t == TP.BFLOAT16:
        bits = (w.view(np.uint32) >> 16).astype(np.uint16)
        wt = h.make_tensor('w', TP.BFLOAT16, w.shape, bits.tobytes(), raw=True)
    else:
        wt = nh.from_array(w, 'w')
    g = h.make_graph([h.make_node('MatMul', ['x', 'w'], ['y'], name='mm')],
                     'linear',
                     [h.make_tensor_value_info('x', t, ['R', K])],
                     [h.make_tensor_value_info('y', t, ['R', 32])], [wt])
    save(h.make_model(g, opset_imports=[h.make_opsetid('', 19)]), out)


def cut(src, out):
    m = onnx.load(src)
    g = m.graph
    mm = [n for n in g.node if n.op_type == 'MatMul'][0]
    q = mm.input[0]
    t = g.input[0].type.tensor_type.elem_type
    g.node.remove(mm)
    x = g.input[0].name
    g.input[0].name = 'x_f32'
    g.input[0].type.tensor_type.elem_type = TP.FLOAT
    g.node.insert(0, h.make_node('Cast', ['x_f32'], [x], to=t, name='in'))
    g.node.append(h.make_node('Cast', [q], ['y_f32'], to=TP.FLOAT, name='out'))
    del g.output[:]
    g.output.append(h.make_tensor_value_info('y_f32', TP.FLOAT, ['R', K]))
    onnx.save(m, out)


# ---- the exporter's semantics, in NumPy (float32 throughout) ----

def e4m3(v):
    """Round float32 v to E4M3FN values (RNE, saturating at 448)."""
    v = np.asarray(v, np.float64)
    a = np.minimum(np.abs(v), 448.0)
    # exponent of the E4M3 binade (min normal 2^-6, subnormal step 2^-9)
    e = np.floor(np.log2(np.maximum(a, 2.0 ** -6)))
    step = 2.0 ** (e - 3)
    r = np.round(a / step) * step          # np.round: half to even
    return (np.sign(v) * np.minimum(r, 448.0)).astype(np.float32)


def mx_exp(amax):
    """E8M0 exponent: ceil(log2(amax / 448)), clamped to [-127, 127]."""
    with np.errstate(divide='ignore'):
        e = np.ceil(np.log2(amax.astype(np.float64) / 448.0))
    return np.clip(e, -127, 127)


def mx_fake(x, axis=-1):
    """dq(q(x)) with blocks of 32 along axis (x float32)."""
    x = np.moveaxis(x, axis, -1)
    b = x.reshape(x.shape[:-1] + (x.shape[-1] // 32, 32))
    e = mx_exp(np.abs(b).max(axis=-1, keepdims=True))
    y = e4m3(b / 2.0 ** e) * 2.0 ** e
    return np.moveaxis(y.astype(np.float32).reshape(x.shape), -1, axis)


def mx_codes(w):
    """(E4M3 bytes, UINT8 E8M0 codes) of w [N, K], blocks along K."""
    b = w.reshape(w.shape[0], -1, 32)
    e = mx_exp(np.abs(b).max(axis=-1, keepdims=True))
    q = e4m3(b / 2.0 ** e).reshape(w.shape)
    return f8_bytes(q), (e[..., 0] + 127).astype(np.uint8)


def f8_bytes(q):
    """E4M3FN codes of values already on the grid."""
    a = np.abs(q).astype(np.float64)
    sign = (q < 0).astype(np.uint8) << 7
    e = np.floor(np.log2(np.maximum(a, 2.0 ** -6)))
    normal = a >= 2.0 ** -6
    m = np.where(normal, a / 2.0 ** e - 1, a / 2.0 ** -9 / 8) * 8
    ebits = np.where(normal, e + 7, 0)
    return (sign | (ebits.astype(np.uint8) << 3) | m.astype(np.uint8))


def dyn(nodes, x, name, q_attrs=None, dq_attrs=None):
    """x -> TRT_MXFP8DynamicQuantize -> TRT_MXFP8DequantizeLinear; x None:
    a quantizer without input; *_attrs override the exporter's."""
    qa = dict(axis=-1, block_size=32, output_dtype=E4M3)
    qa.update(q_attrs or {})
    da = dict(axis=-1, block_size=32, output_dtype=TP.FLOAT)
    da.update(dq_attrs or {})
    nodes.append(h.make_node('TRT_MXFP8DynamicQuantize',
                             [x] if x else [],
                             [name + '_f8', name + '_sc'], domain='trt',
                             name=name + '_q', **qa))
    nodes.append(h.make_node('TRT_MXFP8DequantizeLinear',
                             [name + '_f8', name + '_sc'], [name + '_dq'],
                             domain='trt', name=name + '_dq', **da))
    return name + '_dq'


def weight(nodes, inits, kind, w, name):
    """w [N, K] (torch Linear layout) -> its MXFP8 form -> Transpose."""
    if kind == 'marks':
        inits.append(nh.from_array(w, name))
        inits.append(nh.from_array(np.array(1.0, np.float32), name + '_one'))
        ins = [name, name + '_one']
    else:
        codes, sc = mx_codes(w)
        t = TP()
        t.name = name + '_f8'
        t.data_type = E4M3
        t.dims.extend(w.shape)
        t.raw_data = codes.tobytes()
        inits.append(t)
        inits.append(nh.from_array(sc, name + '_scale'))
        ins = [name + '_f8', name + '_scale']
    nodes.append(h.make_node('TRT_MXFP8DequantizeLinear', ins,
                             [name + '_dq'], domain='trt', name=name + '_wdq',
                             axis=-1, block_size=32, output_dtype=TP.FLOAT))
    nodes.append(h.make_node('Transpose', [name + '_dq'], [name + '_t'],
                             perm=[1, 0], name=name + '_tr'))
    return name + '_t'


def export(kind, out):
    rng = np.random.default_rng(7)
    w1 = (rng.standard_normal((96, 64)) * 0.2).astype(np.float32)
    w2 = (rng.standard_normal((32, 96)) * 0.2).astype(np.float32)
    x = rng.standard_normal((2, 8, 64)).astype(np.float32)
    x[0, 0, :32] *= 1000.0                  # a block with its own scale
    nodes, inits = [], []
    a = dyn(nodes, 'x', 'fc1_in')
    nodes.append(h.make_node('MatMul', [a, weight(nodes, inits, kind, w1,
                                                  'fc1.weight')], ['h1'],
                             name='fc1'))
    nodes.append(h.make_node('Relu', ['h1'], ['r1'], name='relu'))
    a = dyn(nodes, 'r1', 'fc2_in')
    nodes.append(h.make_node('MatMul', [a, weight(nodes, inits, kind, w2,
                                                  'fc2.weight')], ['y'],
                             name='fc2'))
    # a float layer the exporter left alone: it must stay float
    w3 = (rng.standard_normal((32, 64)) * 0.2).astype(np.float32)
    inits.append(nh.from_array(w3, 'head.weight'))
    nodes.append(h.make_node('MatMul', ['y', 'head.weight'], ['z'],
                             name='head'))
    g = h.make_graph(nodes, 'mx_export',
                     [h.make_tensor_value_info('x', TP.FLOAT, [2, 8, 64])],
                     [h.make_tensor_value_info('z', TP.FLOAT, [2, 8, 64])],
                     inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid('', 20),
                                       h.make_opsetid('trt', 1)])
    save(m, out)
    r1 = np.maximum(mx_fake(x) @ mx_fake(w1).T, 0).astype(np.float32)
    y = (mx_fake(r1) @ mx_fake(w2).T).astype(np.float32)
    z = (y @ w3).astype(np.float32)
    x.tofile(out + '.x.f32')
    z.tofile(out + '.z.f32')


BAD = {
    'block16': 'a weight mark with block_size 16',
    'kodd': 'a weight mark whose K is 48',
    'orphan': 'a TRT_MXFP8DequantizeLinear reading a graph input',
    'shared': 'a TRT_MXFP8DynamicQuantize whose data is also a graph output',
    'noinput': 'a TRT_MXFP8DynamicQuantize without input',
    'q_axis0': 'a TRT_MXFP8DynamicQuantize with axis 0 (not the last)',
    'q_e5m2': 'a TRT_MXFP8DynamicQuantize with output_dtype FLOAT8E5M2',
    'q_block16': 'a TRT_MXFP8DynamicQuantize with block_size 16',
    'dq_axis0': 'an activation TRT_MXFP8DequantizeLinear with axis 0',
    'mark_scale2': 'a weight mark whose scale is 2.0, not 1.0',
    'mark_dtype': 'a weight mark with output_dtype 2^32 + 1 (not a type)',
    'axis_float': 'a weight mark whose axis is a float attribute',
    'f16_weight': 'an exported weight of output_dtype FLOAT16 read by a '
                  'FLOAT MatMul',
}
# the activation pair's attributes each case overrides
PAIR = {
    'shared': ({}, {}), 'noinput': ({}, {}),
    'q_axis0': ({'axis': 0}, {}),
    'q_e5m2': ({'output_dtype': 19}, {}),
    'q_block16': ({'block_size': 16}, {}),
    'dq_axis0': ({}, {'axis': 0}),
    'f16_weight': ({}, {}),
}


def bad(case, out):
    if case not in BAD:
        sys.exit('unknown case ' + case)
    nodes, inits = [], []
    k = 48 if case == 'kodd' else 64
    w = np.ones((32, k), np.float32)
    attrs = dict(axis=-1, block_size=16 if case == 'block16' else 32,
                 output_dtype=TP.FLOAT)
    if case == 'mark_dtype':
        attrs['output_dtype'] = 2 ** 32 + 1
    if case == 'axis_float':
        attrs['axis'] = -1.0
    if case == 'f16_weight':
        codes, sc = mx_codes(w)
        t = TP()
        t.name, t.data_type = 'w', E4M3
        t.dims.extend(w.shape)
        t.raw_data = codes.tobytes()
        inits += [t, nh.from_array(sc, 'one')]
        attrs['output_dtype'] = TP.FLOAT16
    else:
        inits.append(nh.from_array(w, 'w'))
        inits.append(nh.from_array(
            np.array(2.0 if case == 'mark_scale2' else 1.0, np.float32),
            'one'))
    ins = ['x2', 'one'] if case == 'orphan' else ['w', 'one']
    nodes.append(h.make_node('TRT_MXFP8DequantizeLinear', ins, ['wdq'],
                             domain='trt', name='wq', **attrs))
    nodes.append(h.make_node('Transpose', ['wdq'], ['wt'], perm=[1, 0],
                             name='tr'))
    a = 'x'
    if case in PAIR:
        a = dyn(nodes, None if case == 'noinput' else 'x', 'in', *PAIR[case])
    nodes.append(h.make_node('MatMul', [a, 'wt'], ['y'], name='mm'))
    outs = [h.make_tensor_value_info('y', TP.FLOAT, [4, 32])]
    if case == 'shared':
        outs.append(h.make_tensor_value_info('in_f8', E4M3,
                                             [4, k]))
    ins_vi = [h.make_tensor_value_info('x', TP.FLOAT, [4, k])]
    if case == 'orphan':
        ins_vi.append(h.make_tensor_value_info('x2', TP.FLOAT, [32, k]))
    g = h.make_graph(nodes, 'bad_' + case, ins_vi, outs, inits)
    save(h.make_model(g, opset_imports=[h.make_opsetid('', 20),
                                        h.make_opsetid('trt', 1)]), out)


def plain(out):
    """Linear layers of every kind the selection tells apart."""
    rng = np.random.default_rng(3)

    def w(name, *shape):
        return nh.from_array(rng.standard_normal(shape).astype(np.float32),
                             name)
    nodes = [
        h.make_node('MatMul', ['x', 'w1'], ['h1'], name='mm1'),
        h.make_node('MatMul', ['h1', 'w2'], ['h2'], name='mm2'),
        h.make_node('MatMul', ['h2', 'w3'], ['h3'], name='mm3_k48'),
        h.make_node('Gemm', ['h3', 'w4', 'b4'], ['h4'], name='gemm4',
                    transB=1),
        h.make_node('Transpose', ['h4'], ['h4t'], perm=[1, 0], name='tr'),
        h.make_node('MatMul', ['h4', 'h4t'], ['y'], name='attn'),
        h.make_node('Transpose', ['h4'], ['h4t2'], perm=[1, 0], name='tr2'),
        h.make_node('Gemm', ['h4t2', 'w5'], ['y2'], name='gemm5_transA',
                    transA=1),
    ]
    inits = [w('w1', 64, 128), w('w2', 128, 48), w('w3', 48, 96),
             w('w4', 64, 96), w('b4', 64), w('w5', 64, 96)]
    g = h.make_graph(nodes, 'plain',
                     [h.make_tensor_value_info('x', TP.FLOAT, ['B', 64])],
                     [h.make_tensor_value_info('y', TP.FLOAT, ['B', 'B']),
                      h.make_tensor_value_info('y2', TP.FLOAT, ['B', 96])],
                     inits)
    save(h.make_model(g, opset_imports=[h.make_opsetid('', 17)]), out)


def inspect(path):
    """One line per fact the shell test greps."""
    m = onnx.load(path)
    g = m.graph
    for o in m.opset_import:
        print('opset', o.domain or 'ai.onnx', o.version)
    for n in g.node:
        print('node', n.domain or 'ai.onnx', n.op_type, n.name)
    for t in g.initializer:
        print('init', t.name, t.data_type, list(t.dims))
    for v in list(g.value_info) + list(g.output):
        tt = v.type.tensor_type
        print('type', v.name, tt.elem_type,
              [d.dim_value if d.HasField('dim_value') else d.dim_param
               for d in tt.shape.dim])


def main(argv):
    cmd = argv[1]
    if cmd == 'linear':
        linear(argv[2], argv[3])
    elif cmd == 'cut':
        cut(argv[2], argv[3])
    elif cmd == 'export':
        export(argv[2], argv[3])
    elif cmd == 'plain':
        plain(argv[2])
    elif cmd == 'inspect':
        inspect(argv[2])
    elif cmd == 'bad':
        bad(argv[2], argv[3])
    else:
        sys.exit('unknown command ' + cmd)


if __name__ == '__main__':
    main(sys.argv)
