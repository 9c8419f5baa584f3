#!/usr/bin/env python3
"""tests/passes/autocast/models.py - models for tests/passes/autocast and
what a converted model holds.

  models.py overflow OUT   x[1,8] -> Abs -> Mul(c, c[0] = 1e-3) ->
                           MatMul(W1, W1[0,0] = 1e5) -> Relu -> MatMul(W2)
                           -> y: a weight beyond FLOAT16 whose products
                           stay in range (FLOAT16 turns it to Inf)
  models.py shared OUT     one weight read by two MatMuls (mm_a, mm_b)
  models.py ln OUT         opset 13, torch's decomposed LayerNorm (ReduceMean,
                           Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add)
                           then MatMul, with activations near 1000
  models.py ln_shared OUT  the same with the centred input read outside
                           the unit (cannot be fused)
  models.py rms OUT        opset 17, torch's decomposed RMSNorm as
                           torch.onnx.export writes LLaMA's RMSNorm (Pow,
                           ReduceMean, Add, Sqrt, Div(1, .), Mul, Mul
                           gamma; Constant nodes for 2, eps and 1) then
                           MatMul, activations near 300 (their squares
                           pass 65504)
  models.py rms_recip OUT  the same with Reciprocal for Div(1, .), no gamma
  models.py rms_div OUT    the same with Div(x, Sqrt) and gamma
  models.py rms_shared OUT the mean of squares read outside the unit
                           (cannot be fused)
  models.py ifm OUT        y = MatMul(x, w) read by both branches of an If
                           (captured from the outer scope: Relu, Neg),
                           MatMul after
  models.py loopm OUT      h = MatMul(x, w) carried by a Loop (3 trips) whose
                           body adds the captured h, then MatMul on a body
                           initializer wb (body_mm), then Mul by a body
                           Constant 0.5 (body_scale), MatMul after
  models.py scanm OUT      a Scan over the rows of MatMul(xs, w) whose body
                           reads the captured h = MatMul(x, w), MatMul after
  models.py nestm OUT      an If whose then branch makes t = Relu(y) and
                           carries it through a Loop whose body computes
                           MatMul(c, wb) + t + y (captures from one and two
                           graphs up), MatMul after; else branch Neg(y)
  models.py ifpass OUT     an If whose then branch gives the outer y =
                           MatMul(x, w) itself as its output (ONNX Runtime
                           refuses that form; qopt verify takes it)
  models.py loopact OUT    a Loop (2 trips) whose body computes Abs(c) + 10
                           -> MatMul(every entry 1000) -> Mul(1e-4): the
                           body MatMul's output passes 65504 on any input
                           while every weight fits FLOAT16
  models.py loopgrow OUT   a Loop (3 trips) whose carried s grows by
                           Concat(s, Relu(x)) each trip: a body tensor
                           whose shape changes between iterations
  models.py act OUT        x[2,8] -> Abs -> Add(10) -> MatMul(w, every entry
                           1000) -> Mul(1e-3) -> Relu -> MatMul -> y: the
                           first MatMul's output passes 65504 on any input
                           while every weight fits FLOAT16
  models.py inspect MODEL  one line per fact (the test greps them):
      io NAME TYPE           graph inputs and outputs (the main graph's)
      node OP NAME TYPES     each node and the types of its outputs, in
                             every graph (bodies after their holder)
      init NAME TYPE         each initializer, in every graph
      out GRAPH NAME TYPE    each body's outputs
      cast-after-cast N      Casts whose input another Cast of the same
                             graph makes
      cast-twice N           tensors cast to one type by two Casts of one
                             graph
      opset N
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

TYPES = {v: k for k, v in TensorProto.DataType.items()}
# onnx before 1.14 has no names for these
TYPES.setdefault(17, "FLOAT8E4M3FN")
TYPES.setdefault(19, "FLOAT8E5M2")
TYPES.setdefault(23, "FLOAT4E2M1")


def save(g, path, opset=17):
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.save(m, path)


def overflow(path):
    rng = np.random.default_rng(3)
    w1 = (rng.standard_normal((8, 8)) * 0.1).astype(np.float32)
    w1[0, 0] = 1e5
    w2 = (rng.standard_normal((8, 4)) * 0.1).astype(np.float32)
    c = np.ones((8,), np.float32)
    c[0] = 1e-3
    g = helper.make_graph(
        [helper.make_node("Abs", ["x"], ["ax"], name="abs"),
         helper.make_node("Mul", ["ax", "c"], ["xc"], name="scale"),
         helper.make_node("MatMul", ["xc", "w1"], ["h"], name="mm_big"),
         helper.make_node("Relu", ["h"], ["r"], name="relu"),
         helper.make_node("MatMul", ["r", "w2"], ["y"], name="mm_small")],
        "overflow",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])],
        [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2"),
         numpy_helper.from_array(c, "c")])
    save(g, path)


def shared(path):
    rng = np.random.default_rng(4)
    w = (rng.standard_normal((8, 8)) * 0.1).astype(np.float32)
    g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["a"], name="mm_a"),
         helper.make_node("MatMul", ["a", "w"], ["y"], name="mm_b")],
        "shared",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 8])],
        [numpy_helper.from_array(w, "w")])
    save(g, path)


def ln(path, shared=False):
    rng = np.random.default_rng(5)
    gamma = (1 + 0.1 * rng.standard_normal(16)).astype(np.float32)
    beta = (0.1 * rng.standard_normal(16)).astype(np.float32)
    w = (rng.standard_normal((16, 8)) * 0.2).astype(np.float32)
    k = np.array(1000.0, np.float32)
    nodes = [
        helper.make_node("Mul", ["x", "k"], ["xs"], name="scale_up"),
        helper.make_node("ReduceMean", ["xs"], ["m"], axes=[-1], name="ln/ReduceMean"),
        helper.make_node("Sub", ["xs", "m"], ["d"], name="ln/Sub"),
        helper.make_node("Pow", ["d", "two"], ["p"], name="ln/Pow"),
        helper.make_node("ReduceMean", ["p"], ["v"], axes=[-1], name="ln/ReduceMean_1"),
        helper.make_node("Add", ["v", "eps"], ["a"], name="ln/Add"),
        helper.make_node("Sqrt", ["a"], ["s"], name="ln/Sqrt"),
        helper.make_node("Div", ["d", "s"], ["n"], name="ln/Div"),
        helper.make_node("Mul", ["n", "gamma"], ["g"], name="ln/Mul"),
        helper.make_node("Add", ["g", "beta"], ["h"], name="ln/Add_1"),
        helper.make_node("MatMul", ["h", "w"], ["y0"], name="fc"),
    ]
    if shared:
        nodes.append(helper.make_node("ReduceMax", ["d"], ["ds"], axes=[-1],
                                      name="side"))
        nodes.append(helper.make_node("Add", ["y0", "ds"], ["y"], name="join"))
    else:
        nodes.append(helper.make_node("Identity", ["y0"], ["y"], name="out"))
    inits = [numpy_helper.from_array(a, n) for a, n in
             [(gamma, "gamma"), (beta, "beta"), (w, "w"), (k, "k"),
              (np.array(2.0, np.float32), "two"),
              (np.array(1e-5, np.float32), "eps")]]
    g = helper.make_graph(
        nodes, "ln",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    save(g, path, opset=13)


def rms(path, form="torch"):
    """Written with onnx.helper in the exact form torch.onnx.export (1.13,
    opset 17) gives LLaMA's RMSNorm, x * torch.rsqrt(x.pow(2).mean(-1,
    keepdim=True) + eps) * weight (node names, Constant nodes and operand
    order as in tests/torch/learned/charlm.onnx, which is such an export):
    make check needs no torch."""
    rng = np.random.default_rng(6)
    gamma = (1 + 0.1 * rng.standard_normal(16)).astype(np.float32)
    w = (rng.standard_normal((16, 8)) * 0.2).astype(np.float32)

    def const(name, value):
        return helper.make_node("Constant", [], [name + "_output_0"],
                                name=name, value=numpy_helper.from_array(
                                    np.array(value, np.float32), name))
    nodes = [
        helper.make_node("Mul", ["x", "k"], ["xs"], name="/scale_up/Mul"),
        const("/norm/Constant", 2.0),
        helper.make_node("Pow", ["xs", "/norm/Constant_output_0"],
                         ["/norm/Pow_output_0"], name="/norm/Pow"),
        helper.make_node("ReduceMean", ["/norm/Pow_output_0"],
                         ["/norm/ReduceMean_output_0"], axes=[-1], keepdims=1,
                         name="/norm/ReduceMean"),
        const("/norm/Constant_1", 1e-5),
        helper.make_node("Add", ["/norm/ReduceMean_output_0",
                                 "/norm/Constant_1_output_0"],
                         ["/norm/Add_output_0"], name="/norm/Add"),
        helper.make_node("Sqrt", ["/norm/Add_output_0"], ["/norm/Sqrt_output_0"],
                         name="/norm/Sqrt"),
    ]
    if form == "div":
        nodes.append(helper.make_node("Div", ["xs", "/norm/Sqrt_output_0"],
                                      ["/norm/Mul_output_0"], name="/norm/Div"))
    else:
        if form == "recip":
            nodes.append(helper.make_node("Reciprocal", ["/norm/Sqrt_output_0"],
                                          ["/norm/Div_output_0"],
                                          name="/norm/Reciprocal"))
        else:
            nodes.append(const("/norm/Constant_2", 1.0))
            nodes.append(helper.make_node(
                "Div", ["/norm/Constant_2_output_0", "/norm/Sqrt_output_0"],
                ["/norm/Div_output_0"], name="/norm/Div"))
        nodes.append(helper.make_node("Mul", ["xs", "/norm/Div_output_0"],
                                      ["/norm/Mul_output_0"], name="/norm/Mul"))
    last = "/norm/Mul_output_0"
    if form != "recip":
        nodes.append(helper.make_node("Mul", [last, "norm.weight"],
                                      ["/norm/Mul_1_output_0"], name="/norm/Mul_1"))
        last = "/norm/Mul_1_output_0"
    nodes.append(helper.make_node("MatMul", [last, "w"], ["y0"], name="/fc/MatMul"))
    if form == "shared":
        nodes.append(helper.make_node("ReduceMax", ["/norm/ReduceMean_output_0"],
                                      ["ms"], axes=[-1], name="side"))
        nodes.append(helper.make_node("Mul", ["y0", "ms"], ["y"], name="join"))
    else:
        nodes.append(helper.make_node("Identity", ["y0"], ["y"], name="out"))
    inits = [numpy_helper.from_array(a, n) for a, n in
             [(gamma, "norm.weight"), (w, "w"), (np.array(300.0, np.float32), "k")]]
    g = helper.make_graph(
        nodes, "rms",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    save(g, path, opset=17)


def if_model(path, name, then_g, w=None, inits=()):
    """MatMul -> If (then_g; else: Neg of the MatMul's output, captured)
    -> MatMul: the If's branches read an outer value a low node makes.
    inits: more initializers (what then_g reads from the outer scope)."""
    if w is None:
        w = (np.random.default_rng(1).standard_normal((8, 8)) * 0.3).astype(np.float32)
    else_g = helper.make_graph(
        [helper.make_node("Neg", ["y"], ["e"], name="else_neg")], "else", [],
        [helper.make_tensor_value_info("e", TensorProto.FLOAT, [1, 8])])
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm"),
             helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0, name="rs"),
             helper.make_node("Greater", ["s", "zero"], ["c"], name="gt"),
             helper.make_node("If", ["c"], ["z"], then_branch=then_g,
                              else_branch=else_g, name="if"),
             helper.make_node("MatMul", ["z", "w"], ["out"], name="mm2")]
    g = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, 8])],
        [numpy_helper.from_array(w, "w"),
         numpy_helper.from_array(np.array(0, np.float32), "zero")] + list(inits))
    save(g, path, opset=13)


def ifm(path):
    if_model(path, "ifm", helper.make_graph(
        [helper.make_node("Relu", ["y"], ["t"], name="then_relu")], "then", [],
        [helper.make_tensor_value_info("t", TensorProto.FLOAT, [1, 8])]))


def loop_body(nodes, carry, carry_out, inits=(), cond_node="body_cond",
              dims=(1, 8), out_dims=None):
    """A Loop body: (i, cond, carry) -> (cond, carry_out), FLOAT carry."""
    return helper.make_graph(
        nodes + [helper.make_node("Identity", ["cond"], ["cond_out"],
                                  name=cond_node)],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
         helper.make_tensor_value_info(carry, TensorProto.FLOAT, list(dims))],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info(carry_out, TensorProto.FLOAT,
                                       list(out_dims or dims))],
        list(inits))


def loopm(path):
    rng = np.random.default_rng(2)
    w = (rng.standard_normal((8, 8)) * 0.3).astype(np.float32)
    wb = (rng.standard_normal((8, 8)) * 0.3).astype(np.float32)
    body = loop_body(
        [helper.make_node("Add", ["c", "h"], ["a"], name="body_add"),
         helper.make_node("MatMul", ["a", "wb"], ["mb"], name="body_mm"),
         helper.make_node("Constant", [], ["half"], name="body_half",
                          value=numpy_helper.from_array(
                              np.array(0.5, np.float32), "half")),
         helper.make_node("Mul", ["mb", "half"], ["c1"], name="body_scale")],
        "c", "c1", [numpy_helper.from_array(wb, "wb")])
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h"], name="mm"),
             helper.make_node("Loop", ["trips", "yes", "h"], ["cf"], body=body,
                              name="loop"),
             helper.make_node("MatMul", ["cf", "w"], ["out"], name="mm2")]
    g = helper.make_graph(
        nodes, "loopm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, 8])],
        [numpy_helper.from_array(w, "w"),
         numpy_helper.from_array(np.array(3, np.int64), "trips"),
         numpy_helper.from_array(np.array(True), "yes")])
    save(g, path, opset=13)


def scanm(path):
    rng = np.random.default_rng(3)
    w = (rng.standard_normal((8, 8)) * 0.3).astype(np.float32)
    body = helper.make_graph(
        [helper.make_node("Mul", ["row", "h"], ["p"], name="body_mul"),
         helper.make_node("Add", ["st", "p"], ["st1"], name="body_add"),
         helper.make_node("Identity", ["st1"], ["o"], name="body_out")],
        "body",
        [helper.make_tensor_value_info("st", TensorProto.FLOAT, [8]),
         helper.make_tensor_value_info("row", TensorProto.FLOAT, [8])],
        [helper.make_tensor_value_info("st1", TensorProto.FLOAT, [8]),
         helper.make_tensor_value_info("o", TensorProto.FLOAT, [8])])
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h2"], name="mm"),
             helper.make_node("Reshape", ["h2", "shape8"], ["h"], name="flat"),
             helper.make_node("MatMul", ["xs", "w"], ["rows"], name="mm_rows"),
             helper.make_node("Scan", ["zeros", "rows"], ["stf", "outs"],
                              body=body, num_scan_inputs=1, name="scan"),
             helper.make_node("MatMul", ["outs", "w"], ["out"], name="mm2")]
    g = helper.make_graph(
        nodes, "scanm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8]),
         helper.make_tensor_value_info("xs", TensorProto.FLOAT, [5, 8])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [5, 8])],
        [numpy_helper.from_array(w, "w"),
         numpy_helper.from_array(np.zeros(8, np.float32), "zeros"),
         numpy_helper.from_array(np.array([8], np.int64), "shape8")])
    save(g, path, opset=13)


def nestm(path):
    rng = np.random.default_rng(8)
    w = (rng.standard_normal((8, 8)) * 0.3).astype(np.float32)
    wb = (rng.standard_normal((8, 8)) * 0.3).astype(np.float32)
    body = loop_body(
        [helper.make_node("MatMul", ["cv", "wb"], ["m"], name="inner_mm"),
         helper.make_node("Add", ["m", "t"], ["mt"], name="inner_add_t"),
         helper.make_node("Add", ["mt", "y"], ["c1"], name="inner_add_y")],
        "cv", "c1", [numpy_helper.from_array(wb, "wb")], "inner_cond")
    then_g = helper.make_graph(
        [helper.make_node("Relu", ["y"], ["t"], name="then_relu"),
         helper.make_node("Loop", ["trips", "yes", "t"], ["lf"], body=body,
                          name="inner_loop")], "then", [],
        [helper.make_tensor_value_info("lf", TensorProto.FLOAT, [1, 8])])
    if_model(path, "nestm", then_g, w,
             [numpy_helper.from_array(np.array(2, np.int64), "trips"),
              numpy_helper.from_array(np.array(True), "yes")])


def ifpass(path):
    # the then branch gives the captured outer value itself as its output
    if_model(path, "ifpass", helper.make_graph(
        [], "then", [],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8])]))


def loopact(path):
    w = np.full((8, 8), 1000.0, np.float32)
    body = loop_body(
        [helper.make_node("Abs", ["c"], ["ac"], name="body_abs"),
         helper.make_node("Add", ["ac", "ten"], ["cp"], name="body_shift"),
         helper.make_node("MatMul", ["cp", "wh"], ["hot"], name="body_hot"),
         helper.make_node("Mul", ["hot", "tiny"], ["c1"], name="body_down")],
        "c", "c1",
        [numpy_helper.from_array(w, "wh"),
         numpy_helper.from_array(np.array(10.0, np.float32), "ten"),
         numpy_helper.from_array(np.array(1e-4, np.float32), "tiny")])
    nodes = [helper.make_node("Relu", ["x"], ["h"], name="relu"),
             helper.make_node("Loop", ["trips", "yes", "h"], ["cf"], body=body,
                              name="loop"),
             helper.make_node("Neg", ["cf"], ["out"], name="neg")]
    g = helper.make_graph(
        nodes, "loopact",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, 8])],
        [numpy_helper.from_array(np.array(2, np.int64), "trips"),
         numpy_helper.from_array(np.array(True), "yes")])
    save(g, path, opset=13)


def loopgrow(path):
    body = loop_body(
        [helper.make_node("Relu", ["x"], ["r"], name="body_relu"),
         helper.make_node("Concat", ["s", "r"], ["s1"], axis=1, name="body_cat")],
        "s", "s1", dims=(1, "n"), out_dims=(1, "n1"))
    nodes = [helper.make_node("Loop", ["trips", "yes", "x"], ["sf"], body=body,
                              name="loop"),
             helper.make_node("Neg", ["sf"], ["out"], name="neg")]
    g = helper.make_graph(
        nodes, "loopgrow",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.array(3, np.int64), "trips"),
         numpy_helper.from_array(np.array(True), "yes")])
    save(g, path, opset=13)


def act(path):
    rng = np.random.default_rng(7)
    w = np.full((8, 8), 1000.0, np.float32)
    w2 = (rng.standard_normal((8, 4)) * 0.3).astype(np.float32)
    nodes = [helper.make_node("Abs", ["x"], ["ax"], name="abs"),
             helper.make_node("Add", ["ax", "ten"], ["xp"], name="shift"),
             helper.make_node("MatMul", ["xp", "w"], ["h"], name="mm_hot"),
             helper.make_node("Mul", ["h", "milli"], ["hs"], name="scale_down"),
             helper.make_node("Relu", ["hs"], ["r"], name="relu"),
             helper.make_node("MatMul", ["r", "w2"], ["y"], name="mm_out")]
    g = helper.make_graph(
        nodes, "act",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(w2, "w2"),
         numpy_helper.from_array(np.array(10.0, np.float32), "ten"),
         numpy_helper.from_array(np.array(1e-3, np.float32), "milli")])
    save(g, path)


def elem(vi):
    return TYPES.get(vi.type.tensor_type.elem_type, "?")


def graph_attrs(n):
    for a in n.attribute:
        if a.type == onnx.AttributeProto.GRAPH:
            yield a.g
        elif a.type == onnx.AttributeProto.GRAPHS:
            yield from a.graphs


def facts(g, outer, counts):
    """Prints g's node and init lines, then its bodies'; types are looked
    up in g, then the enclosing graphs (ONNX scoping)."""
    types = dict(outer)
    for vi in list(g.input) + list(g.output) + list(g.value_info):
        types[vi.name] = elem(vi)
    if outer:
        for vi in g.output:
            print("out", g.name, vi.name, elem(vi))
    for t in g.initializer:
        types[t.name] = TYPES.get(t.data_type, str(t.data_type))
        print("init", t.name, types[t.name])
    made_by = {}
    for n in g.node:
        for o in n.output:
            made_by[o] = n
    seen = {}
    for n in g.node:
        print("node", n.op_type, n.name,
              ",".join(types.get(o, "?") for o in n.output))
        if n.op_type != "Cast":
            continue
        to = [a.i for a in n.attribute if a.name == "to"][0]
        src = made_by.get(n.input[0])
        if src is not None and src.op_type == "Cast":
            counts[0] += 1
        key = (n.input[0], to)
        counts[1] += key in seen
        seen[key] = 1
    for n in g.node:
        for b in graph_attrs(n):
            facts(b, types, counts)


def inspect(path):
    m = onnx.load(path)
    g = m.graph
    for vi in g.input:
        print("io", vi.name, elem(vi))
    for vi in g.output:
        print("io", vi.name, elem(vi))
    counts = [0, 0]
    facts(g, {}, counts)
    print("cast-after-cast", counts[0])
    print("cast-twice", counts[1])
    print("opset", [o.version for o in m.opset_import if o.domain in ("", "ai.onnx")][0])


if __name__ == "__main__":
    {"overflow": overflow, "shared": shared, "ln": ln, "ifm": ifm, "act": act,
     "loopm": loopm, "scanm": scanm, "nestm": nestm,
     "ifpass": ifpass, "loopact": loopact,
     "loopgrow": loopgrow,
     "ln_shared": lambda p: ln(p, True), "rms": rms,
     "rms_recip": lambda p: rms(p, "recip"), "rms_div": lambda p: rms(p, "div"),
     "rms_shared": lambda p: rms(p, "shared")}.get(sys.argv[1], lambda p: inspect(p))(sys.argv[2]) \
        if sys.argv[1] != "inspect" else inspect(sys.argv[2])
