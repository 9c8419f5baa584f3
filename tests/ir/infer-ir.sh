#!/bin/sh
# Inference as users see it: inferred types are not written (a model
# with no value_info gets none), infer-shapes writes them, a declared
# type inference disagrees with is kept and named in a note, and the
# torch form of a dynamic reshape (Shape -> Gather -> Unsqueeze ->
# Concat, scalars as Constant nodes) keeps its static dims.
. "$top_srcdir/tests/lib/common.sh"
cd "$W" || exit 1
if [ "$PYTHON3" = no ] || ! "$PYTHON3" -c 'import onnx' 2>/dev/null; then
	echo "1..0 # SKIP no python3 with onnx"
	exit 0
fi
"$PYTHON3" - <<'PY' || { echo "Bail out! cannot build the models"; exit 1; }
import onnx
from onnx import helper as h, TensorProto as T
def const(name, vals):
    return h.make_node("Constant", [], [name], value=h.make_tensor(name + "_t", T.INT64, [len(vals)], vals))
x = h.make_tensor_value_info("x", T.FLOAT, ["batch", 8, 64])
y = h.make_tensor_value_info("y", T.FLOAT, None)
nodes = [
    h.make_node("Shape", ["x"], ["sh"]),
    const("zero", [0]),
    h.make_node("Gather", ["sh", "zero"], ["b"], axis=0),
    const("rest", [8, 4, 16]),
    h.make_node("Concat", ["b", "rest"], ["shape"], axis=0),
    h.make_node("Reshape", ["x", "shape"], ["r"]),
    h.make_node("Transpose", ["r"], ["t"], perm=[0, 2, 1, 3]),
    h.make_node("Relu", ["t"], ["y"]),
]
g = h.make_graph(nodes, "torchlike", [x], [y])
m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)])
onnx.save(m, "reshape.onnx")
g2 = h.make_graph(nodes, "declared", [x], [y],
                  value_info=[h.make_tensor_value_info("t", T.FLOAT, ["batch", 4, 9, 16])])
onnx.save(h.make_model(g2, opset_imports=[h.make_opsetid("", 17)]), "conflict.onnx")
w = h.make_tensor("w", T.FLOAT, [16, 16], [0.01 * i for i in range(256)])
g3 = h.make_graph(nodes[:-1] + [h.make_node("Tanh", ["t"], ["a"]),
                                h.make_node("MatMul", ["a", "w"], ["y"])],
                  "calib", [x], [y], initializer=[w])
onnx.save(h.make_model(g3, opset_imports=[h.make_opsetid("", 17)]), "calib.onnx")
# hostile sizes: dims and arguments at the ends of int64 (the rules
# must leave such shapes unknown, never overflow)
big = 2 ** 62
hx = h.make_tensor_value_info("hx", T.FLOAT, [big, 4, 3, 3])
i64 = lambda n, v: h.make_tensor(n, T.INT64, [len(v)], v)
hinit = [i64("rep", [4, 4, 1, 1]), i64("st", [2 ** 63 - 1]), i64("en", [-2 ** 63]),
         i64("ax", [0]), i64("stp", [-2 ** 63]), i64("shp", [-1, 2]),
         h.make_tensor("r0", T.INT64, [], [-2 ** 63]), h.make_tensor("r1", T.INT64, [], [2 ** 63 - 1]),
         h.make_tensor("r2", T.INT64, [], [1]),
         h.make_tensor("w4", T.FLOAT, [1, 4, 3, 3], [0.0] * 36)]
hn = [h.make_node("Flatten", ["hx"], ["f"], axis=0),
      h.make_node("Tile", ["hx", "rep"], ["tl"]),
      h.make_node("Slice", ["hx", "st", "en", "ax", "stp"], ["sl"]),
      h.make_node("Concat", ["hx", "hx"], ["cc"], axis=0),
      h.make_node("Reshape", ["hx", "shp"], ["rs"]),
      h.make_node("Range", ["r0", "r1", "r2"], ["rg"]),
      h.make_node("Conv", ["hx", "w4"], ["cv"], pads=[2 ** 62, 2 ** 62, 2 ** 62, 2 ** 62],
                  strides=[1, 1], dilations=[2 ** 62, 2 ** 62]),
      h.make_node("Split", ["hx"], ["s1", "s2", "s3"], axis=0)]
hy = [h.make_tensor_value_info(o, T.FLOAT, None) for o in ("f", "tl", "sl", "cc", "rs", "cv", "s1", "s2", "s3")]
hy.append(h.make_tensor_value_info("rg", T.INT64, None))
gh = h.make_graph(hn, "hostile", [hx], hy, initializer=hinit)
onnx.save(h.make_model(gh, opset_imports=[h.make_opsetid("", 17)]), "hostile.onnx")
# attention whose head size only inference knows (torch's dynamic view)
for name, rest in (("attn16", [8, 4, 16]), ("attn4", [8, 16, 4])):
    att = [n for n in nodes[:-2] if n.output[0] != "rest"] + [
        const("rest", rest),
        h.make_node("Transpose", ["r"], ["q"], perm=[0, 2, 1, 3]),
        h.make_node("Transpose", ["r"], ["kt"], perm=[0, 2, 3, 1]),
        h.make_node("MatMul", ["q", "kt"], ["s"]),
        h.make_node("Softmax", ["s"], ["p"], axis=-1),
        h.make_node("MatMul", ["p", "q"], ["y"])]
    ga = h.make_graph(att, name, [x], [y])
    onnx.save(h.make_model(ga, opset_imports=[h.make_opsetid("", 17)]), name + ".onnx")
PY

run "$QOPT" --passes opset-check reshape.onnx -o plain.onnx
t "a pipeline writes no inferred value_info" eval '[ $rc = 0 ] &&
	"$PYTHON3" -c "import onnx,sys; sys.exit(len(onnx.load(\"plain.onnx\").graph.value_info))"'
run "$QOPT" --passes infer-shapes reshape.onnx -o typed.onnx
t "infer-shapes: Shape/Gather/Concat/Reshape keep batch and give 8, 4, 16" eval '[ $rc = 0 ] &&
	"$PYTHON3" -c "
import onnx, sys
vi = {v.name: v.type.tensor_type for v in onnx.load(\"typed.onnx\").graph.value_info}
d = [x.dim_param or x.dim_value for x in vi[\"t\"].shape.dim]
print(d); sys.exit(d != [\"batch\", 4, 8, 16] or vi[\"t\"].elem_type != 1)" >"$W/out" 2>&1'
t "... and reports what it wrote" has "types written" "$W/err"
run "$QOPT" dump conflict.onnx
t "a declaration that disagrees: a note naming the value, kept" eval '[ $rc = 0 ] &&
	has "note: value '\''t'\'' is declared FLOAT[batch,4,9,16] but its producer gives FLOAT[batch,4,8,16]; the declaration is kept" "$W/err"'
run "$QOPT" --passes infer-shapes conflict.onnx -o c.onnx
t "infer-shapes names and counts it" eval '[ $rc = 0 ] &&
	has "declared types inference disagrees with" "$W/err"'

run "$QOPT" --passes infer-shapes hostile.onnx -o h.onnx
t "sizes at the ends of int64: inferred without overflow (unknown dims)" \
	eval '[ $rc = 0 ] && [ -s h.onnx ]'

run "$QOPT" --passes fp8-report attn16.onnx -o a16.onnx
t "attention report: head size from inferred shapes" has "head size 16)" "$W/err"
run "$QOPT" --passes fp8-report attn4.onnx -o a4.onnx
t "... so the 9..256 guard applies" has "head size 4 outside 9..256" "$W/err"

# calibrate reads the types the IR inferred: no UNDEFINED for a model
# that declares none (needs ONNX Runtime, as tests/cli/calib.sh).
if [ -n "$NODE" ] && [ "$NODE" != no ] &&
   [ -d "$QOPT_ORT_DIR/node_modules/onnxruntime-node" ]; then
	QOPT_NODE=$NODE QOPT_CALIBRATE_ORT="$top_builddir/tools/qopt-calibrate-ort" \
		TMPDIR="$W" run "$QOPT" calibrate calib.onnx --random 2 --dim batch=2 -o cal.json
	t "calibrate: the activation it measures has its real type" eval '[ $rc = 0 ] &&
		! grep -q UNDEFINED cal.json && grep -q "\"dtype\": \"FLOAT\"" cal.json'
	run "$QOPT" --passes fp8-mha:calibration=cal.json calib.onnx -o f.onnx
	t "fp8-mha calibration: the inferred activation gets its Q/DQ, none skipped" \
		eval '[ $rc = 0 ] && has "1 calibration: activation Q/DQ inserted" "$W/err" &&
		! grep -q "skipped" "$W/err"'
else
	ok 0 "calibrate: real types # SKIP no ONNX Runtime (make tests/ort/.stamp)"
	ok 0 "fp8-mha calibration # SKIP no ONNX Runtime"
fi

# torch's own spelling of the operators whose shapes it leaves out
# (tests/torch/gen-models.py, shape_ops): F.pad's pads computed by
# Concat -> Reshape -> Slice(step -1) -> Transpose -> Cast of constants,
# ConvTranspose, Resize, DepthToSpace, GridSample, Einsum, LSTM, GRU.
run "$QOPT" dump "$top_srcdir/tests/torch/models/shape_ops.onnx"
sed -n '/^types:/,$p' "$W/out" >"$W/types"
t "torch export: F.pad's computed pads fold, the padded shape follows" \
	eval '[ $rc = 0 ] && grep -qx "  /Pad_output_0: FLOAT\[1,4,13,15\] (inferred)" "$W/types"'
t "torch export: LSTM (bidirectional, batch_first) and GRU outputs" \
	eval 'grep -qx "  /lstm/LSTM_output_0: FLOAT\[195,2,1,12\] (inferred)" "$W/types" && grep -qx "  /gru/GRU_output_0: FLOAT\[195,1,1,10\] (inferred)" "$W/types"'
t "torch export: every node output has a static shape" \
	eval '[ -s "$W/types" ] && ! grep -q "?" "$W/types"'

done_testing
