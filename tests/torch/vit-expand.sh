#!/bin/sh
# tests/torch/vit-expand.sh - ranks through shape vectors of known
# length (tests/torch/models/vit_expand.onnx, by vit-expand-gen.py, a
# tiny ViT head as torch.onnx.export writes it with a dynamic batch).
# torch's cls_token.expand(B, -1, -1) hands Expand the shape
# Where(Equal(size, -1), ConstantOfShape, size): contents unknown, length
# 3. Inference gave Expand no rank, so nothing after it had one, and
# `nvfp4:activations=yes` skipped the head ("unknown rank"). Now a shape
# input of known length k gives rank k (Expand: max(rank, k)), for
# Expand, Reshape, ConstantOfShape and Tile alike.
. "$top_srcdir/tests/ort/common.sh"
qopt_need_py_onnx
qopt_workdir torch-vit-expand
M="$top_srcdir/tests/torch/models/vit_expand.onnx"
cd "$work" || exit 1

# ranks PY-CHECKS: infer-shapes on $model, then the checks on the
# written value_info (ranks[name] = rank, dims[name] = dims, None unknown)
ranks() {
	"$QOPT" --passes infer-shapes "$model" -o "$work/inf.onnx" \
		>"$work/log" 2>&1 || return 1
	"$py" - "$work/inf.onnx" "$1" >>"$work/log" 2>&1 <<'PY'
import sys, onnx
m = onnx.load(sys.argv[1])
ranks, dims = {}, {}
for v in list(m.graph.value_info) + list(m.graph.output):
    t = v.type.tensor_type
    if t.HasField("shape"):
        ranks[v.name] = len(t.shape.dim)
        dims[v.name] = [d.dim_value if d.HasField("dim_value") else None
                        for d in t.shape.dim]
prod = {o: n for n in m.graph.node for o in n.output}
ok = True
for line in sys.argv[2].split(";"):
    name, want = line.split("=")
    got = ranks.get(name)
    print("# %s: rank %s (dims %s), want %s" % (name, got, dims.get(name), want))
    ok &= got == int(want)
sys.exit(0 if ok else 1)
PY
}

model=$M
ranks "/Expand_output_0=3;/Concat_2_output_0=3;/ln1/LayerNormalization_output_0=3;/fc1/MatMul_output_0=3;/fc2/MatMul_output_0=3;/Gather_1_output_0=2;logits=2"
check $? "vit_expand: Expand of the Where shape vector has rank 3, and the ranks reach the head (Gather 2-D, Gemm 2-D)"

# The same rule on the other shape-taking ops: s = Abs(Shape(x)) has
# shape [3] and no known contents.
"$py" - <<'PY' >"$work/log" 2>&1
import onnx
from onnx import helper, TensorProto as T
v = helper.make_tensor_value_info
nodes = [
    helper.make_node("Shape", ["x"], ["sh"]),
    helper.make_node("Abs", ["sh"], ["s"]),
    helper.make_node("Reshape", ["y", "s"], ["r"]),
    helper.make_node("ConstantOfShape", ["s"], ["c"]),
    helper.make_node("Tile", ["z", "s"], ["t"]),
    helper.make_node("Expand", ["w", "s"], ["e"]),
    helper.make_node("Expand", ["x", "s2"], ["e5"]),
] + [helper.make_node("Identity", [o], [o + "_out"])
     for o in ("r", "c", "t", "e", "e5")]
g = helper.make_graph(nodes, "g",
    [v("x", T.FLOAT, ["batch", 4, 8]), v("y", T.FLOAT, [32, "n"]),
     v("z", T.FLOAT, None), v("w", T.FLOAT, [8]),
     v("s2", T.INT64, [5])],
    [v(o + "_out", T.FLOAT, None) for o in ("r", "c", "t", "e", "e5")])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
m.ir_version = 8
onnx.save(m, "ops.onnx")
PY
check $? "a graph of Reshape, ConstantOfShape, Tile, Expand on a shape vector of unknown contents"
model=$work/ops.onnx
ranks "r=3;c=3;t=3;e=3;e5=5"
check $? "Reshape, ConstantOfShape, Tile: rank 3; Expand: max(rank, length) (3 from rank 1, 5 from rank 3)"

why=$(qopt_ort_missing)
if [ -n "$why" ]; then
	n=$((n + 1)); echo "ok $n - W4A4 on the head # SKIP $why"
	n=$((n + 1)); echo "ok $n - the head's Gemm reads TRT_FP4DynamicQuantize # SKIP $why"
else
	qopt_calib_env
	"$QOPT" calibrate "$M" --random 2 --dim batch=2 \
		--passes nvfp4:activations=yes -o "$work/c.json" >"$work/log" 2>&1 &&
		"$QOPT" "$M" -o "$work/w4a4.onnx" \
			--passes "nvfp4:activations=yes:calibration=$work/c.json:min_size=0" \
			>"$work/w4a4.log" 2>&1
	st=$?
	cat "$work/w4a4.log" >>"$work/log"
	[ $st = 0 ] && ! grep -q "unknown rank" "$work/w4a4.log" &&
		grep -q "3 linear inputs W4A4" "$work/w4a4.log"
	check $? "nvfp4:activations=yes: every linear input W4A4 (fc1, fc2, the head), none skipped for an unknown rank"
	"$py" - "$work/w4a4.onnx" >"$work/log" 2>&1 <<'PY'
import sys, onnx
m = onnx.load(sys.argv[1])
prod = {o: n for n in m.graph.node for o in n.output}
head = next(n for n in m.graph.node if n.name == "/head/Gemm")
dq = prod.get(head.input[0])
q = prod.get(dq.input[0]) if dq is not None else None
print("# head input from", dq and dq.op_type, "<-", q and (q.domain, q.op_type))
sys.exit(0 if dq is not None and dq.op_type == "DequantizeLinear" and
         q is not None and q.op_type == "TRT_FP4DynamicQuantize" else 1)
PY
	check $? "the head's Gemm reads its input through TRT_FP4DynamicQuantize"
fi
echo "1..$n"
exit $failed
