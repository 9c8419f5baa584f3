#!/usr/bin/python3
"""tests/torch/vit-expand-gen.py [OUT.onnx] - a tiny ViT-like head with a
dynamic batch, written node for node as torch.onnx.export (Debian's
python3-torch 1.13, opset 17, do_constant_folding=True) writes it.
torch is not needed (the model is committed as
tests/torch/models/vit_expand.onnx); python3-onnx and numpy are.

The torch code it mirrors:

    class ViTHead(nn.Module):           # hidden 64, 16 patches of 8x8
        def __init__(self):
            super().__init__()
            self.patch = nn.Conv2d(3, 64, 8, stride=8)
            self.cls = nn.Parameter(torch.randn(1, 1, 64) * 0.02)
            self.pos = nn.Parameter(torch.randn(1, 17, 64) * 0.02)
            self.ln1 = nn.LayerNorm(64)
            self.fc1 = nn.Linear(64, 128)
            self.fc2 = nn.Linear(128, 64)
            self.ln = nn.LayerNorm(64)
            self.head = nn.Linear(64, 16)

        def forward(self, pixel_values):
            B = pixel_values.shape[0]
            x = self.patch(pixel_values).flatten(2).transpose(1, 2)
            x = torch.cat([self.cls.expand(B, -1, -1), x], dim=1) + self.pos
            x = x + self.fc2(F.gelu(self.fc1(self.ln1(x))))
            return self.head(self.ln(x)[:, 0])

    torch.onnx.export(ViTHead().eval(), torch.randn(1, 3, 32, 32), out,
                      input_names=["pixel_values"], output_names=["logits"],
                      dynamic_axes={"pixel_values": {0: "batch"},
                                    "logits": {0: "batch"}},
                      opset_version=17)

What matters is the cls token's expand(B, -1, -1) with B dynamic:
torch's symbolic (symbolic_opset9.expand) stacks the sizes
(Unsqueeze(Gather(Shape)), Concat with the folded -1s, Reshape to [-1]),
then replaces -1 by 1 as Where(Equal(size, ConstantOfShape(Shape(size))
* -1), ones, size); the Shape of the size vector, whose shape [3] torch
knows, is folded to a Constant [3]. The shape Expand gets is thus no
constant, only a vector of known length 3. Names, Constant nodes and
the Linear layers (on 3-D input MatMul with the transposed weight as
onnx::MatMul_N, then Add(bias, .); the head, on the cls token's 2-D
row, a Gemm with transB = 1) are torch's. Weights: seeded normal.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1] if len(sys.argv) > 1 else "tests/torch/models/vit_expand.onnx"
rng = np.random.default_rng(7)
H, F, C, P = 64, 128, 16, 16
nodes, inits = [], []


def init(name, a):
    inits.append(numpy_helper.from_array(np.asarray(a, np.float32), name))


def const(name, a, dtype=np.int64):
    t = numpy_helper.from_array(np.asarray(a, dtype), "")
    nodes.append(helper.make_node("Constant", [], [name + "_output_0"],
                                  name=name, value=t))
    return name + "_output_0"


def node(op, name, inputs, **attrs):
    out = name + "_output_0"
    nodes.append(helper.make_node(op, inputs, [out], name=name, **attrs))
    return out


def linear(prefix, x, wname, n_in, n_out):
    w = rng.normal(0, 1 / np.sqrt(n_in), (n_out, n_in))
    init(prefix + ".bias", rng.normal(0, 0.02, n_out))
    init(wname, w.T)  # torch stores W^T for MatMul
    mm = node("MatMul", "/%s/MatMul" % prefix, [x, wname])
    return node("Add", "/%s/Add" % prefix, [prefix + ".bias", mm])


init("cls", rng.normal(0, 0.02, (1, 1, H)))
init("pos", rng.normal(0, 0.02, (1, P + 1, H)))
init("patch.weight", rng.normal(0, 0.05, (H, 3, 8, 8)))
init("patch.bias", rng.normal(0, 0.02, H))
init("ln1.weight", np.ones(H))
init("ln1.bias", np.zeros(H))
init("ln.weight", np.ones(H))
init("ln.bias", np.zeros(H))

# B = pixel_values.shape[0]
shape = node("Shape", "/Shape", ["pixel_values"])
c0 = const("/Constant", 0)
b = node("Gather", "/Gather", [shape, c0], axis=0)
# x = self.patch(pixel_values).flatten(2).transpose(1, 2)
conv = nodes.append(helper.make_node(
    "Conv", ["pixel_values", "patch.weight", "patch.bias"],
    ["/patch/Conv_output_0"], name="/patch/Conv", dilations=[1, 1], group=1,
    kernel_shape=[8, 8], pads=[0, 0, 0, 0], strides=[8, 8]))
shape1 = node("Shape", "/Shape_1", ["/patch/Conv_output_0"])
s_end = const("/Constant_1", [0])
s_start = const("/Constant_2", [0])
s_stop = const("/Constant_3", [2])
sl = node("Slice", "/Slice", [shape1, s_start, s_stop, s_end])
m1 = const("/Constant_4", [-1])
cat = node("Concat", "/Concat", [sl, m1], axis=0)
flat = node("Reshape", "/Reshape", ["/patch/Conv_output_0", cat], allowzero=0)
tr = node("Transpose", "/Transpose", [flat], perm=[0, 2, 1])
# self.cls.expand(B, -1, -1)
ax = const("/Constant_5", [0])
unsq = node("Unsqueeze", "/Unsqueeze", [b, ax])
m1b = const("/Constant_6", [-1])
m1c = const("/Constant_7", [-1])
size = node("Concat", "/Concat_1", [unsq, m1b, m1c], axis=0)
m1d = const("/Constant_8", [-1])
size = node("Reshape", "/Reshape_1", [size, m1d], allowzero=0)
three = const("/Constant_9", [3])
ones = node("ConstantOfShape", "/ConstantOfShape", [three],
            value=numpy_helper.from_array(np.array([1], np.int64), ""))
neg = const("/Constant_10", -1)
neg_ones = node("Mul", "/Mul", [ones, neg])
eq = node("Equal", "/Equal", [size, neg_ones])
where = node("Where", "/Where", [eq, ones, size])
cls = node("Expand", "/Expand", ["cls", where])
x = node("Concat", "/Concat_2", [cls, tr], axis=1)
x = node("Add", "/Add", [x, "pos"])
# x = x + self.fc2(F.gelu(self.fc1(self.ln1(x))))
ln1 = node("LayerNormalization", "/ln1/LayerNormalization",
           [x, "ln1.weight", "ln1.bias"], axis=-1, epsilon=1e-5)
h = linear("fc1", ln1, "onnx::MatMul_60", H, F)
d = node("Div", "/Div", [h, const("/Constant_11", np.sqrt(2.0), np.float32)])
e = node("Erf", "/Erf", [d])
a = node("Add", "/Add_1", [e, const("/Constant_12", 1.0, np.float32)])
g = node("Mul", "/Mul_1", [h, a])
g = node("Mul", "/Mul_2", [g, const("/Constant_13", 0.5, np.float32)])
h = linear("fc2", g, "onnx::MatMul_61", F, H)
x = node("Add", "/Add_2", [x, h])
# return self.head(self.ln(x)[:, 0]): nn.Linear on 2-D input is a Gemm
ln = node("LayerNormalization", "/ln/LayerNormalization",
          [x, "ln.weight", "ln.bias"], axis=-1, epsilon=1e-5)
tok = node("Gather", "/Gather_1", [ln, const("/Constant_14", 0)], axis=1)
init("head.weight", rng.normal(0, 1 / np.sqrt(H), (C, H)))
init("head.bias", rng.normal(0, 0.02, C))
nodes.append(helper.make_node("Gemm", [tok, "head.weight", "head.bias"],
                              ["logits"], name="/head/Gemm", alpha=1.0,
                              beta=1.0, transB=1))

graph = helper.make_graph(
    nodes, "main_graph",
    [helper.make_tensor_value_info("pixel_values", TensorProto.FLOAT,
                                   ["batch", 3, 32, 32])],
    [helper.make_tensor_value_info("logits", TensorProto.FLOAT,
                                   ["batch", C])],
    inits)
model = helper.make_model(graph, producer_name="pytorch",
                          producer_version="1.13.0",
                          opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx.checker.check_model(model, full_check=True)
onnx.save(model, OUT)
