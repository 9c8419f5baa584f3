#!/usr/bin/env python3
"""tests/ir/validity-models.py DIR: writes the models tests/ir/validity.sh feeds
to qopt: valid ONNX that qopt must accept (nodes out of order, sibling
subgraphs reusing a name, value_info beside typed inputs) and invalid
ONNX it must refuse, each a small change of a valid one."""
import os
import sys

import onnx
from onnx import TensorProto, helper, numpy_helper
import numpy as np

out = sys.argv[1]
F, F16 = TensorProto.FLOAT, TensorProto.FLOAT16


def save(m, name, check=True):
    if check:
        onnx.checker.check_model(m)
    onnx.save(m, os.path.join(out, name + ".onnx"))


def model(g, opset=17, ir=8):
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)],
                             ir_version=ir)


def fp16_unsorted():
    # What float16 converters leave: the graph input's Cast appended
    # after the nodes that read it, the output Cast in between.
    w = numpy_helper.from_array(
        np.arange(16, dtype=np.float16).reshape(4, 4) / 8, "w")
    nodes = [
        helper.make_node("MatMul", ["x16", "w"], ["mm"], name="mm"),
        helper.make_node("Relu", ["mm"], ["r"], name="relu"),
        helper.make_node("Cast", ["r"], ["y"], name="cast_out", to=F),
        helper.make_node("Cast", ["x"], ["x16"], name="cast_in", to=F16),
    ]
    g = helper.make_graph(nodes, "fp16",
                          [helper.make_tensor_value_info("x", F, [2, 4])],
                          [helper.make_tensor_value_info("y", F, [2, 4])], [w])
    return model(g)


def if_same_names():
    # Both branches define 'z' and 't': siblings, not shadowing.
    def branch(name, op):
        return helper.make_graph(
            [helper.make_node(op, ["x", "x"], ["t"], name=name + "_t"),
             helper.make_node("Neg", ["t"], ["z"], name=name + "_z")],
            name, [], [helper.make_tensor_value_info("z", F, [3])])
    nodes = [
        helper.make_node("ReduceSum", ["x"], ["s"], name="sum", keepdims=0),
        helper.make_node("Greater", ["s", "zero"], ["c"], name="gt"),
        helper.make_node("If", ["c"], ["y"], name="if",
                         then_branch=branch("then", "Add"),
                         else_branch=branch("else", "Mul")),
    ]
    g = helper.make_graph(nodes, "ifz",
                          [helper.make_tensor_value_info("x", F, [3])],
                          [helper.make_tensor_value_info("y", F, [3])],
                          [numpy_helper.from_array(np.array(0, np.float32),
                                                   "zero")])
    return model(g)


def plain(nodes=None, inputs=None, outputs=None, vi=None, opset=17, ir=8):
    nodes = nodes or [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    g = helper.make_graph(
        nodes, "g",
        inputs or [helper.make_tensor_value_info("x", F, [2])],
        outputs or [helper.make_tensor_value_info("y", F, [2])],
        value_info=vi or [])
    return model(g, opset, ir)


os.makedirs(out, exist_ok=True)
save(fp16_unsorted(), "unsorted", check=False)
save(if_same_names(), "if-same-names")
# The then branch's nodes listed consumer first: subgraphs are sorted too.
unsorted_if = if_same_names()
then_g = unsorted_if.graph.node[2].attribute[0].g
first = onnx.NodeProto()
first.CopyFrom(then_g.node[0])
del then_g.node[0]
then_g.node.append(first)
save(unsorted_if, "if-unsorted", check=False)
# A stray value_info of unknown element type for the typed input x.
save(plain(vi=[helper.make_tensor_value_info("x", TensorProto.UNDEFINED, None)]),
     "vi-input", check=False)

# A cycle: a and b read each other's output.
save(plain([helper.make_node("Add", ["x", "b"], ["a"], name="na"),
            helper.make_node("Relu", ["a"], ["b"], name="nb"),
            helper.make_node("Relu", ["a"], ["y"], name="relu")]),
     "cycle", check=False)
# The then branch defines 'c', the name of an outer value.
shadow = if_same_names()
shadow.graph.node[2].attribute[1].g.node[0].output[0] = "c"
shadow.graph.node[2].attribute[1].g.node[1].input[0] = "c"
save(shadow, "shadow", check=False)
two_in = plain()
two_in.graph.input.append(helper.make_tensor_value_info("x", F, [2]))
save(two_in, "input-twice", check=False)
two_out = plain()
two_out.graph.output.append(helper.make_tensor_value_info("y", F, [2]))
save(two_out, "output-twice", check=False)
save(plain([helper.make_node("MatMul", ["x", ""], ["y"], name="mm")]),
     "empty-required", check=False)
save(plain(vi=[helper.make_tensor_value_info("x2", F, [-3])],
           nodes=[helper.make_node("Relu", ["x"], ["x2"], name="r1"),
                  helper.make_node("Relu", ["x2"], ["y"], name="r2")]),
     "negative-dim", check=False)
save(plain(opset=-1), "opset-negative", check=False)
save(plain(ir=1 << 40), "ir-absurd", check=False)
# MatMul(A FLOAT, B FLOAT16): one type T for both in the schema.
H = TensorProto.FLOAT16
save(plain([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")],
           inputs=[helper.make_tensor_value_info("x", F, [2, 2])],
           outputs=[helper.make_tensor_value_info("y", F, [2, 2])]),
     "mixed-matmul", check=False)
mixed = onnx.load(os.path.join(out, "mixed-matmul.onnx"))
mixed.graph.initializer.append(
    numpy_helper.from_array(np.eye(2, dtype=np.float16), "w"))
save(mixed, "mixed-matmul", check=False)
# Where(cond BOOL, X, Y): only X and Y share T.
save(plain([helper.make_node("Greater", ["x", "zero"], ["c"], name="gt"),
            helper.make_node("Where", ["c", "x", "zero"], ["y"], name="wh")]),
     "where-bool", check=False)
where = onnx.load(os.path.join(out, "where-bool.onnx"))
where.graph.initializer.append(
    numpy_helper.from_array(np.zeros(2, np.float32), "zero"))
save(where, "where-bool")
# Cast to = 2^32 + 10: read as an int it would be FLOAT16 (10).
save(plain([helper.make_node("Cast", ["x"], ["y"], name="c", to=2**32 + 10)]),
     "cast-to-wide", check=False)
# Pad-2 with value 1000 on INT8: no INT8 holds it; the upgrade to 11
# (value becomes an input of the input's type) must refuse.
I8 = TensorProto.INT8
g = helper.make_graph(
    [helper.make_node("Pad", ["x"], ["y"], name="pad", pads=[1, 1],
                      value=1000.0)], "pad",
    [helper.make_tensor_value_info("x", I8, [2])],
    [helper.make_tensor_value_info("y", I8, [4])])
save(model(g, opset=2, ir=3), "pad-int8-1000", check=False)
g.node[0].attribute[1].f = 100.0
save(model(g, opset=2, ir=3), "pad-int8-100", check=False)
# Sparse tensors whose indices leave the dense shape: a Constant's
# sparse_value with a linear index, a sparse initializer with [NNZ, rank]
# coordinates.
def sparse(name, dims, idx, idx_dims):
    vals = numpy_helper.from_array(np.ones(len(idx) // (idx_dims[1] if len(idx_dims) > 1 else 1), np.float32), name)
    ind = numpy_helper.from_array(np.array(idx, np.int64).reshape(idx_dims), "")
    return helper.make_sparse_tensor(vals, ind, dims)
save(plain([helper.make_node("Constant", [], ["k"], name="const",
                             sparse_value=sparse("k", [2], [0, 7], [2])),
            helper.make_node("Add", ["x", "k"], ["y"], name="add")]),
     "sparse-attr", check=False)
sp_init = plain()
sp_init.graph.sparse_initializer.append(sparse("s", [2, 3], [0, 1, 1, 5], [2, 2]))
save(sp_init, "sparse-init", check=False)
# Attribute types: UNDEFINED (0), and 99, which python's protobuf only
# takes as raw bytes (field 20, varint 99, last one wins).
bad_attr = plain()
a = bad_attr.graph.node[0].attribute.add()
a.name = "odd"
a.type = onnx.AttributeProto.UNDEFINED
a.i = 1
save(bad_attr, "attr-type0", check=False)
bad_attr = plain()
a = onnx.AttributeProto(name="odd", type=onnx.AttributeProto.INT, i=1)
bad_attr.graph.node[0].attribute.add().ParseFromString(
    a.SerializeToString() + bytes([0xa0, 0x01, 99]))
save(bad_attr, "attr-type99", check=False)
