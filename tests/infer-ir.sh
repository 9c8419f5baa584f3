#!/bin/sh
# Inference as users see it: inferred types are not written (a model
# with no value_info gets none), infer-shapes writes them, a declared
# type inference disagrees with is kept and named in a note, and the
# torch form of a dynamic reshape (Shape -> Gather -> Unsqueeze ->
# Concat, scalars as Constant nodes) keeps its static dims.
. "$top_srcdir/tests/core-lib.sh"
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

done_testing
