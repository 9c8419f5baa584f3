"""tests/torch-check.py JOBS - structural checks independent of qopt's
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
"""
import sys

import onnx
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


def main():
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
