#!/bin/sh
# tests/passes/nvfp4/export-bad.sh - malformed ModelOpt W4A4
# exports (tests/passes/nvfp4/export-bad.py changes one
# attribute of modelopt.py's export): pass nvfp4 refuses each in both
# modes (exit 1, no output) naming the node and the attribute, where it
# used to rewrite (fake) or type (real) the chain as if the attribute
# were the one ModelOpt writes.
. "$top_srcdir/tests/ort/common.sh"
qopt_need_py_onnx
qopt_workdir nvfp4-export-bad
D="$top_srcdir/tests/passes/nvfp4"

"$py" "$D/modelopt.py" "$work" >"$work/log" 2>&1
check $? "generate the export"
while read -r case msg; do
	"$py" "$D/export-bad.py" "$work/w4a4.onnx" "$case" "$work/$case.onnx" \
		>"$work/log" 2>&1 || { check 1 "$case: generated"; continue; }
	for opts in mode=real mode=fake; do
		rm -f "$work/$case.out.onnx"
		"$QOPT" --passes "nvfp4:$opts" "$work/$case.onnx" \
			-o "$work/$case.out.onnx" >"$work/out" 2>&1
		rc=$?
		cp "$work/out" "$work/log"
		[ $rc = 1 ] && [ ! -e "$work/$case.out.onnx" ] &&
			grep -qF "$msg" "$work/out"
		check $? "$case ($opts): exit 1: $msg"
	done
done <<LIST
scale_type1 node 'l1_in/TRT_FP4DynamicQuantize' (trt::TRT_FP4DynamicQuantize): attribute 'scale_type' = 1: NVFP4 block scales are FLOAT8E4M3FN (17)
q_block32 node 'l1_in/TRT_FP4DynamicQuantize' (trt::TRT_FP4DynamicQuantize): attribute 'block_size' = 32: NVFP4 blocks are 16
q_axis0 node 'l1_in/TRT_FP4DynamicQuantize' (trt::TRT_FP4DynamicQuantize): attribute 'axis' = 0: NVFP4 blocks run along the last axis of 'x'
q_axis_float node 'l1_in/TRT_FP4DynamicQuantize' (trt::TRT_FP4DynamicQuantize): attribute 'axis' is not an integer
dq_block32 node 'l1_in/DQ' (DequantizeLinear): attribute 'block_size' = 32: the codes' dequantizer takes NVFP4's blocks of 16
dq_axis_default node 'l1_in/DQ' (DequantizeLinear): attribute 'axis' = 1: NVFP4 blocks run along the last axis of 'x'
dq_float16 node 'l1_in/DQ' (DequantizeLinear): attribute 'output_dtype' is not FLOAT
dqs_block16 node 'l1_in/DQ_scale' (DequantizeLinear): attribute 'block_size' = 16: the block scales' dequantizer is per tensor
noinput node 'l1_in/TRT_FP4DynamicQuantize' (trt::TRT_FP4DynamicQuantize): needs two inputs (x, global scale) and two outputs
LIST
# The pass's status is the failure's kind (passes/support/fail.c), not
# the generic QOPT_EPASS: -v says it.
"$QOPT" -v --passes nvfp4 "$work/noinput.onnx" -o "$work/noinput.out.onnx" \
	>"$work/out" 2>&1
rc=$?
cp "$work/out" "$work/log"
[ $rc = 1 ] && grep -qF "nvfp4: pass failed: 'invalid content' (status 3)" "$work/out"
check $? "a malformed export: the pass returns QOPT_EINVALID (status 3), not QOPT_EPASS"
echo "1..$n"
exit $failed
