#!/bin/sh
# tests/passes/nvfp4/skips.sh - the weight passes' skip reasons
# (passes/support/weight.c, skip.c) in the user's terms, on the models
# torch.onnx.export wrote (tests/torch/models): attention's MatMuls read
# two activations and are said to, naming the node that computes input
# B; a weight behind an exporter's DequantizeLinear is quantized
# already; no constant folder internals ("cannot fold", "only first
# outputs fold") and no activation called a weight.
. "$top_srcdir/tests/ort/common.sh"
qopt_workdir nvfp4-skips
M="$top_srcdir/tests/torch/models"

# skips PASS MODEL: the verbose log of a dry run in $work/PASS.MODEL.log
# and returns qopt's status: the absent messages below mean nothing from a
# run that failed before reaching the weights.
skips() {
	"$QOPT" -v --dry-run --passes "$1" "$M/$2.onnx" \
		>"$work/$1.$2.log" 2>&1 </dev/null
}
# has LOG TEXT (fixed string); else the log's skip lines go to $work/log
has() {
	grep -F -q -- "$2" "$work/$1.log" || {
		echo "missing: $2" >"$work/log"
		grep skipped "$work/$1.log" | head -n 8 >>"$work/log"
		return 1
	}
}
# none LOG PATTERN: no line matches the (basic) regular expression
none() {
	! grep -q -- "$2" "$work/$1.log" || {
		grep -- "$2" "$work/$1.log" | head -n 4 >"$work/log"
		return 1
	}
}

for p in nvfp4-weights hadamard-rotate; do
	case $p in nvfp4-weights) who="MatMul";; *) who="node";; esac
	for m in gpt2 gqa vit_sdpa; do
		skips $p $m
		rc=$?
		[ $rc = 0 ] || echo "qopt exited $rc" >"$work/log"
		[ $rc = 0 ] &&
			none $p.$m "cannot fold\|only first outputs\|is not supported" &&
			none $p.$m "weight '/[^']*_output_0' skipped" &&
			none $p.$m "skipped (not constant)" &&
			none $p.$m "skipped (shared"
		check $? "$p on $m: no activation called a weight, no constant-folder internals"
	done
	has $p.gpt2 "$who '/h.0/MatMul' skipped (activation): input B is computed at run time (from node '/h.0/Transpose_2', which depends on graph input 'input_ids'), not a weight"
	check $? "$p on gpt2: BMM1 skipped as an activation, naming the node that computes input B"
	has $p.gqa "$who '/layers.0/MatMul_1' skipped (activation): input B is computed at run time (from node '/layers.0/Reshape_4', which depends on graph input 'input_ids'), not a weight"
	check $? "$p on gqa: BMM2 (V after repeat_kv) named by its Reshape"
	grep "done:" "$work/$p.gpt2.log" >"$work/log"
	grep -q "4 skipped (activation)" "$work/log"
	check $? "$p on gpt2: the four attention MatMuls counted as activations"
	skips $p gpt2_fp8_trt
	none $p.gpt2_fp8_trt "cannot fold\|is not supported" &&
		none $p.gpt2_fp8_trt "skipped (shared" &&
		has $p.gpt2_fp8_trt "'/h.0/c_attn/qw/TRT_FP8DequantizeLinear': the weight is quantized already"
	check $? "$p on an FP8 export: the weights behind its DequantizeLinear are quantized already, V is not shared"
done

# rotate = rotate_back quantizes the weight's rotation, whose block
# sums overflow FLOAT for finite values near its max: such a weight is
# skipped when the pass judges it (the writer's recipe met Inf and the
# save failed: found by fuzz-passes, fuzz/regress/passes/
# nvfp4-rotate-back-overflow.onnx).
py=
for p in /usr/bin/python3 "$PYTHON3"; do
	[ -x "$p" ] && "$p" -c 'import numpy, onnx' 2>/dev/null && { py=$p; break; }
done
if [ -z "$py" ]; then
	n=$((n + 1))
	echo "ok $n - rotate_back on a weight near FLOAT's max # SKIP no python3 with numpy and onnx"
else
	"$py" - "$work/huge.onnx" <<'PY'
import sys
import numpy as np
from onnx import TensorProto, helper, numpy_helper
w = np.full((16, 4), 3.0e38, dtype=np.float32)
g = helper.make_graph(
    [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], "huge",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])],
    [numpy_helper.from_array(w, "w")])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
m.ir_version = 8
open(sys.argv[1], "wb").write(m.SerializeToString())
PY
	"$QOPT" -v --passes nvfp4-weights:min_size=0:mode=fake:rotate=rotate_back \
		"$work/huge.onnx" -o "$work/huge.out.onnx" >"$work/huge.log" 2>&1
	rc=$?
	cp "$work/huge.log" "$work/log"
	[ $rc = 0 ] && [ -s "$work/huge.out.onnx" ] &&
		grep -q "rotated (rotate = rotate_back) it may exceed FLOAT's range" "$work/huge.log"
	check $? "rotate_back on a weight near FLOAT's max: skipped with the reason, the model saves"
fi

echo "1..$n"
exit $failed
