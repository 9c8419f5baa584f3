#!/usr/bin/env python3
"""tests/passes/support/recipe.py - models and checks for tests/passes/support/recipe.sh.

  recipe.py gen OUT.onnx       y = x @ w, w FLOAT [64, 32] with a doc_string
  recipe.py doc IN OUT DOC     IN with DOC as the doc_string of initializer w
  recipe.py check OUT NAME DOC OUT's initializer NAME has doc_string DOC
No qopt code is used here.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

DOC = "w: the layer's weight"


def gen(out):
    rng = np.random.default_rng(5)
    w = numpy_helper.from_array(
        (rng.standard_normal((64, 32)) * 0.05).astype(np.float32), 'w')
    w.doc_string = DOC
    g = helper.make_graph(
        [helper.make_node('MatMul', ['x', 'w'], ['y'], name='mm')], 'doc',
        [helper.make_tensor_value_info('x', TensorProto.FLOAT, [4, 64])],
        [helper.make_tensor_value_info('y', TensorProto.FLOAT, [4, 32])],
        [w])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 19)])
    m.ir_version = 9
    onnx.save(m, out)


def doc(src, out, text):
    m = onnx.load(src)
    for t in m.graph.initializer:
        if t.name == 'w':
            t.doc_string = text
    onnx.save(m, out)


def check(path, name, text):
    m = onnx.load(path)
    found = {t.name: t.doc_string for t in m.graph.initializer}
    if name not in found:
        print('no initializer %s (have %s)' % (name, sorted(found)))
        return 1
    if found[name] != text:
        print('%s: doc_string %r, want %r' % (name, found[name], text))
        return 1
    print('%s: doc_string kept' % name)
    return 0


def main(a):
    if a[1] == 'gen':
        gen(a[2])
        return 0
    if a[1] == 'doc':
        doc(a[2], a[3], a[4])
        return 0
    return check(a[2], a[3], a[4])


if __name__ == '__main__':
    sys.exit(main(sys.argv))
