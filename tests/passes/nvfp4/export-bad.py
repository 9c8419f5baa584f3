#!/usr/bin/env python3
"""tests/passes/nvfp4/export-bad.py SRC CASE OUT - a malformed
copy of modelopt.py's W4A4 export SRC: one attribute (or the inputs) of
the first activation chain changed, CASE one of BAD below."""
import sys

import onnx
from onnx import helper

Q, DQS, DQ = ("l1_in/TRT_FP4DynamicQuantize", "l1_in/DQ_scale",
              "l1_in/DQ")
# case: (node, attribute, value); value None drops the attribute
BAD = {
    "scale_type1": (Q, "scale_type", 1),
    "q_block32": (Q, "block_size", 32),
    "q_axis0": (Q, "axis", 0),
    "q_axis_float": (Q, "axis", -1.0),
    "dq_block32": (DQ, "block_size", 32),
    "dq_axis_default": (DQ, "axis", None),
    "dq_float16": (DQ, "output_dtype", onnx.TensorProto.FLOAT16),
    "dqs_block16": (DQS, "block_size", 16),
    "noinput": (Q, None, None),
}


def main(src, case, out):
    m = onnx.load(src)
    name, attr, value = BAD[case]
    n = [x for x in m.graph.node if x.name == name][0]
    if attr is None:
        del n.input[:]
    else:
        keep = [a for a in n.attribute if a.name != attr]
        del n.attribute[:]
        n.attribute.extend(keep)
        if value is not None:
            n.attribute.append(helper.make_attribute(attr, value))
    if case == "dq_float16":
        # a Cast back to FLOAT keeps the MatMul well typed (qopt verify
        # would refuse it first): the pass itself must see the attribute
        y = n.output[0]
        n.output[0] = y + "_f16"
        i = list(m.graph.node).index(n)
        m.graph.node.insert(i + 1, helper.make_node(
            "Cast", [y + "_f16"], [y], name="l1_in/Cast",
            to=onnx.TensorProto.FLOAT))
    onnx.save(m, out)


if __name__ == "__main__":
    main(*sys.argv[1:4])
