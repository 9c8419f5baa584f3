"""tests/torch/check.py JOBS - structural checks independent of qopt's
own report, on many models in one process. Each line of JOBS is one of

  KEY form FILE N   the fused-FP8-attention form: exactly 2*N attention
                    MatMuls (both inputs computed, not weights), every input
                    of each straight from a DequantizeLinear with a
                    FLOAT8E4M3FN zero point (Q and K at BMM1, the Softmax
                    output and V at BMM2), no Cast between
  KEY casts FILE    no Cast to the type its input already has (types from
                    onnx's shape inference, which must type every Cast's
                    input: a check that cannot be made fails)

Prints "KEY ok" or "KEY fail REASON" per line.

tests/torch/check.py --same DIR1 DIR2: the two folders hold the same files,
the models the same graphs (nodes, names, attributes, opsets, initializer
names, types and shapes) and every tensor and .npy sample equal within a
relative 1e-5 (torch's float kernels differ in the last bits between CPUs);
prints the differences, exit 1 if any.
"""
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper
from onnx import shape_inference

FP8 = 17


def consts(g):
    """Names of values computed from constants only."""
    c = {i.name for i in g.initializer}
    for n in g.node:
        if all(x in c for x in n.input if x):
            c.update(n.output)
    return c


def check(path, nblocks):
    g = onnx.load(path).graph
    c = consts(g)
    prod = {o: n for n in g.node for o in n.output}
    inits = {i.name: i for i in g.initializer}

    def fp8_dq(x):
        p = prod.get(x)
        if p is None or p.op_type != 'DequantizeLinear':
            return 'from %s' % (p.op_type if p else 'a graph input')
        if len(p.input) < 3:
            return 'DQ without zero point'
        z = p.input[2]
        zt = inits.get(z)
        if zt is None and z in prod and prod[z].op_type == 'Constant':
            zt = prod[z].attribute[0].t
        if zt is None or zt.data_type != FP8:
            return 'DQ zero point not FLOAT8E4M3FN'
        return None

    bmms = [n for n in g.node if n.op_type == 'MatMul' and
            not any(x in c for x in n.input)]
    if len(bmms) != 2 * nblocks:
        return '%d attention MatMuls, expected %d' % (len(bmms), 2 * nblocks)
    for n in bmms:
        for i, x in enumerate(n.input):
            why = fp8_dq(x)
            if why:
                return "MatMul '%s' input %d '%s' %s" % (n.name, i, x, why)
    return None


def casts(path):
    g = shape_inference.infer_shapes(onnx.load(path)).graph
    t = {v.name: v.type.tensor_type.elem_type
         for v in list(g.value_info) + list(g.input) + list(g.output)}
    t.update({i.name: i.data_type for i in g.initializer})
    unknown = [n.name for n in g.node if n.op_type == 'Cast' and
               not t.get(n.input[0])]
    if unknown:
        return 'onnx cannot type the input of Cast %s' % unknown[0]
    same = [n.name for n in g.node if n.op_type == 'Cast' and
            t.get(n.input[0]) == n.attribute[0].i]
    if same:
        return '%d Casts to their input\'s own type: %s' % (
            len(same), ', '.join(same[:3]))
    return None


def close(a, b):
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind != 'f':
        return np.array_equal(a, b)
    a, b = a.astype(np.float64), b.astype(np.float64)
    return np.allclose(a, b, rtol=1e-5, atol=1e-5 * np.abs(a).max(initial=0))


def strip(m):
    """The model without tensor values, and its tensors by name."""
    m = onnx.ModelProto.FromString(m.SerializeToString())
    tensors = {}
    for t in m.graph.initializer:
        tensors['init ' + t.name] = numpy_helper.to_array(t) \
            if t.data_type != 17 else np.frombuffer(t.raw_data, np.uint8)
        t.ClearField('raw_data')
    for n in m.graph.node:
        for a in n.attribute:
            if a.HasField('t'):
                tensors['%s.%s' % (n.name, a.name)] = numpy_helper.to_array(a.t)
                a.t.ClearField('raw_data')
    return m, tensors


def same(d1, d2):
    bad = []
    files = []
    for root, _, names in os.walk(d1):
        files += [os.path.relpath(os.path.join(root, f), d1) for f in names]
    other = []
    for root, _, names in os.walk(d2):
        other += [os.path.relpath(os.path.join(root, f), d2) for f in names]
    if sorted(files) != sorted(other):
        bad.append('files differ: %s' % sorted(set(files) ^ set(other))[:5])
    for f in sorted(set(files) & set(other)):
        a, b = os.path.join(d1, f), os.path.join(d2, f)
        if f.endswith('.npy'):
            if not close(np.load(a), np.load(b)):
                bad.append(f)
            continue
        (ma, ta), (mb, tb) = strip(onnx.load(a)), strip(onnx.load(b))
        if ma != mb:
            bad.append('%s: graph differs' % f)
        elif any(not close(ta[k], tb[k]) for k in ta):
            bad.append('%s: tensor values differ: %s' % (
                f, [k for k in ta if not close(ta[k], tb[k])][:3]))
    print('\n'.join(bad))
    return 1 if bad else 0


def main():
    if sys.argv[1] == '--same':
        sys.exit(same(sys.argv[2], sys.argv[3]))
    for line in open(sys.argv[1]):
        if not line.strip():
            continue
        key, kind, path, *n = line.split()
        try:
            why = check(path, int(n[0])) if kind == 'form' else casts(path)
        except Exception as e:      # a model onnx cannot read is a failure
            why = 'cannot check: %s' % e
        print(key, 'fail ' + why if why else 'ok')


if __name__ == '__main__':
    main()
