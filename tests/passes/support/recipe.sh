#!/bin/sh
# tests/passes/support/recipe.sh - a weight replaced by a deferred recipe keeps
# its initializer's doc_string (qir_tensor_keep_fields): nvfp4-weights'
# fake mode (ps_recipe_replace, the weight's own name, rotate_back too),
# mxfp8's fake mode (renamed back to w) and fp8-mha's fake weights (w_fq, and
# w_fq_rot under rotate_back); real mode's codes are new tensors. Models
# and checks: tests/passes/support/recipe.py.
. "$top_srcdir/tests/ort/common.sh"
qopt_need_py_onnx
qopt_workdir support-recipe
helper="$top_srcdir/tests/passes/support/recipe.py"
DOC="w: the layer's weight"

"$py" "$helper" gen "$work/mm.onnx"
check $? "model generated (w with a doc_string)"
"$py" "$top_srcdir/tests/passes/fp8/rotate.py" model "$work/q.onnx" f32 tensor direct 64 48 &&
	"$py" "$helper" doc "$work/q.onnx" "$work/qd.onnx" "$DOC"
check $? "FP8 Q/DQ model generated (w with a doc_string)"

# keeps IN OUT NAME PASSES: qopt IN -> OUT; OUT's NAME has the doc_string.
keeps() {
	in=$1 out=$2 name=$3
	shift 3
	"$QOPT" -q --passes "$@" "$work/$in.onnx" -o "$work/$out.onnx" \
		>"$work/$out.log" 2>&1 &&
		"$py" "$helper" check "$work/$out.onnx" "$name" "$DOC" \
			>>"$work/$out.log" 2>&1
	r=$?
	[ $r = 0 ] || sed 's/^/# /' "$work/$out.log"
	check $r "$*: $name keeps the doc_string"
}
keeps mm nv w nvfp4-weights:min_size=0:mode=fake
keeps mm nvr w nvfp4-weights:min_size=0:mode=fake:rotate=rotate_back
keeps mm mx w mxfp8:min_size=0:mode=fake
keeps qd fq w_fq fp8-mha:weight_mode=fake
keeps qd fqr w_fq_rot fp8-mha:weight_mode=fake:rotate=rotate_back
# The checker can fail: the input without the doc_string.
! "$py" "$helper" check "$work/q.onnx" w "$DOC" >/dev/null 2>&1
check $? "the checker rejects a weight without the doc_string"
echo "1..$n"
