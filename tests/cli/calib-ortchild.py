#!/usr/bin/env python3
"""Models for tests/cli/calib-ortchild.sh, written into the folder
given: zc.onnx, Relu -> Conv over zero input channels (weight
[8,0,3,3], input [1,0,9,9]: ONNX Runtime 1.30 never returns from its
run); mlp.onnx, two MatMuls with a symbolic batch 'n'; samples/sN/x.npy."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh


def save(graph, path):
    m = h.make_model(graph, opset_imports=[h.make_opsetid('', 17)])
    m.ir_version = 8
    onnx.save(m, path)


def main(out):
    rng = np.random.default_rng(1)
    w = nh.from_array(np.zeros([8, 0, 3, 3], np.float32), 'w')
    save(h.make_graph(
        [h.make_node('Relu', ['x'], ['r'], name='relu'),
         h.make_node('Conv', ['r', 'w'], ['y'], name='conv_zero',
                     pads=[1, 1, 1, 1])], 'zc',
        [h.make_tensor_value_info('x', T.FLOAT, [1, 0, 9, 9])],
        [h.make_tensor_value_info('y', T.FLOAT, None)], [w]),
        os.path.join(out, 'zc.onnx'))
    w1 = (rng.standard_normal([32, 32]) / 6).astype(np.float32)
    w2 = (rng.standard_normal([32, 16]) / 6).astype(np.float32)
    save(h.make_graph(
        [h.make_node('MatMul', ['x', 'w1'], ['a'], name='fc1'),
         h.make_node('Relu', ['a'], ['r'], name='relu'),
         h.make_node('MatMul', ['r', 'w2'], ['y'], name='fc2')], 'mlp',
        [h.make_tensor_value_info('x', T.FLOAT, ['n', 32])],
        [h.make_tensor_value_info('y', T.FLOAT, ['n', 16])],
        [nh.from_array(w1, 'w1'), nh.from_array(w2, 'w2')]),
        os.path.join(out, 'mlp.onnx'))
    for s in range(3):
        d = os.path.join(out, 'samples', 's%d' % s)
        os.makedirs(d, exist_ok=True)
        np.save(os.path.join(d, 'x.npy'),
                rng.standard_normal([4, 32]).astype(np.float32))


if __name__ == '__main__':
    main(sys.argv[1])
