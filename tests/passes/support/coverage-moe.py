#!/usr/bin/env python3
"""tests/passes/support/coverage-moe.py - the MoE-style model of
coverage-moe.sh (numpy + onnx); its output is committed beside it as
coverage-moe.onnx (python3 coverage-moe.py coverage-moe.onnx).

x FLOAT16[B, 32] -> 2 layers, each: a router MatMul(gate [32, 8]) (a
second output per layer) and 8 experts (a ReLU-gated MLP each)
  y_e = MatMul(Relu(MatMul(x, w1 [32, F])) * MatMul(x, w3 [32, F]), w2 [F, 32])
summed (Sum) into the next layer's x. F is 32, except layer 1 expert 5:
F = 40, so its w2 has K = 40 (not a multiple of 16 or 32) and no NVFP4
or MXFP8 form. Names as Hugging Face exports write them:
model.layers.L.mlp.experts.E.wN.weight on nodes
/model/layers.L/mlp/experts.E/wN/MatMul.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP, helper as h, numpy_helper as nh

H, F, EXPERTS, LAYERS = 32, 32, 8, 2
ODD = (1, 5)  # (layer, expert) with F = 40


def main(out):
    rng = np.random.default_rng(31)
    inits, nodes, outputs = [], [], []
    x = 'x'
    for lay in range(LAYERS):
        pre = 'model.layers.%d.mlp' % lay
        npre = '/model/layers.%d/mlp' % lay
        gate = pre + '.gate.weight'
        inits.append(nh.from_array(
            rng.standard_normal((H, EXPERTS)).astype(np.float16), gate))
        nodes.append(h.make_node('MatMul', [x, gate], ['router_logits_%d' % lay],
                                 name=npre + '/gate/MatMul'))
        outputs.append(h.make_tensor_value_info('router_logits_%d' % lay,
                                                TP.FLOAT16, ['B', EXPERTS]))
        ys = []
        for e in range(EXPERTS):
            f = 40 if (lay, e) == ODD else F
            ep, en = '%s.experts.%d' % (pre, e), '%s/experts.%d' % (npre, e)
            shapes = {'w1': (H, f), 'w3': (H, f), 'w2': (f, H)}
            for w, shape in shapes.items():
                inits.append(nh.from_array(
                    (rng.standard_normal(shape) / np.sqrt(shape[0]))
                    .astype(np.float16), '%s.%s.weight' % (ep, w)))
            t = en.replace('/', '_')
            nodes += [
                h.make_node('MatMul', [x, ep + '.w1.weight'], [t + '_h1'],
                            name=en + '/w1/MatMul'),
                h.make_node('MatMul', [x, ep + '.w3.weight'], [t + '_h3'],
                            name=en + '/w3/MatMul'),
                h.make_node('Relu', [t + '_h1'], [t + '_r'], name=en + '/Relu'),
                h.make_node('Mul', [t + '_r', t + '_h3'], [t + '_m'],
                            name=en + '/Mul'),
                h.make_node('MatMul', [t + '_m', ep + '.w2.weight'], [t + '_y'],
                            name=en + '/w2/MatMul'),
            ]
            ys.append(t + '_y')
        x = 'layer_%d_out' % lay if lay + 1 < LAYERS else 'y'
        nodes.append(h.make_node('Sum', ys, [x], name=npre + '/Sum'))
    outputs.insert(0, h.make_tensor_value_info('y', TP.FLOAT16, ['B', H]))
    g = h.make_graph(nodes, 'moe',
                     [h.make_tensor_value_info('x', TP.FLOAT16, ['B', H])],
                     outputs, inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid('', 17)],
                     producer_name='coverage-moe.py')
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, out)


if __name__ == '__main__':
    main(sys.argv[1])
