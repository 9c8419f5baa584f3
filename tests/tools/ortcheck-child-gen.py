#!/usr/bin/env python3
"""Models for tests/tools/ortcheck-child.sh, written into the folder
given: zc.onnx, a Conv over zero input channels (ONNX Runtime 1.30
never returns from it); mlp.onnx, a two-layer MLP with normal weights
(NumPy seed 0); mlp-bug.onnx, the same with a subtle planted bug
(columns 0..BUG_COLS-1 of the first weight scaled by BUG_SCALE), the
kind of error a lossy pass's own noise hides from an absolute bound;
samples/sN/x.npy, the inputs."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh

BUG_SCALE = 1.2
BUG_COLS = 4


def save(graph, path, opset=17):
    m = h.make_model(graph, opset_imports=[h.make_opsetid('', opset)])
    m.ir_version = 8
    onnx.save(m, path)


def zero_conv(path):
    w = nh.from_array(np.zeros([8, 0, 3, 3], np.float32), 'w')
    g = h.make_graph(
        [h.make_node('Conv', ['x', 'w'], ['y'], name='conv_zero',
                     pads=[1, 1, 1, 1])], 'zc',
        [h.make_tensor_value_info('x', T.FLOAT, [1, 0, 9, 9])],
        [h.make_tensor_value_info('y', T.FLOAT, None)], [w])
    save(g, path)


def mlp(path, w1, w2):
    g = h.make_graph(
        [h.make_node('MatMul', ['x', 'w1'], ['a'], name='fc1'),
         h.make_node('Relu', ['a'], ['r'], name='relu'),
         h.make_node('MatMul', ['r', 'w2'], ['y'], name='fc2')], 'mlp',
        [h.make_tensor_value_info('x', T.FLOAT, [8, 64])],
        [h.make_tensor_value_info('y', T.FLOAT, [8, 32])],
        [nh.from_array(w1, 'w1'), nh.from_array(w2, 'w2')])
    save(g, path)


def main(out):
    rng = np.random.default_rng(0)
    w1 = (rng.standard_normal([64, 64]) / 8).astype(np.float32)
    w2 = (rng.standard_normal([64, 32]) / 8).astype(np.float32)
    zero_conv(os.path.join(out, 'zc.onnx'))
    mlp(os.path.join(out, 'mlp.onnx'), w1, w2)
    bug = w1.copy()
    bug[:, :BUG_COLS] *= np.float32(BUG_SCALE)
    mlp(os.path.join(out, 'mlp-bug.onnx'), bug, w2)
    for s in range(4):
        d = os.path.join(out, 'samples', 's%d' % s)
        os.makedirs(d, exist_ok=True)
        np.save(os.path.join(d, 'x.npy'),
                rng.standard_normal([8, 64]).astype(np.float32))


if __name__ == '__main__':
    main(sys.argv[1])
