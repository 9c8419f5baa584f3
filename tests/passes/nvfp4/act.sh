#!/bin/sh
# tests/passes/nvfp4/act.sh - W4A4 (pass nvfp4, activations = yes): the fake
# form equals the CPU kernel bit for bit in ONNX Runtime on 2^20 random
# and adversarial values per input type and case.
. "$top_srcdir/tests/ort/common.sh"
qopt_need_ort
qopt_workdir nvfp4-act
gen="$top_builddir/tests/passes/nvfp4/act-exact"

"$gen" gen "$work" 16384 >"$work/log" 2>&1
check $? "generate the model, calibration and kernel references"

"$QOPT" --stats --passes \
	"nvfp4:activations=yes:mode=fake:min_size=100000000:calibration=$work/calib.json" \
	"$work/model.onnx" -o "$work/fake.onnx" >"$work/log" 2>&1 &&
	grep -q "9 activations quantized" "$work/log"
check $? "nvfp4 activations = yes, mode = fake: nine activations quantized"

qopt_need_ort
"$gen" expose "$work/fake.onnx" "$work/exposed.onnx" >"$work/log" 2>&1
check $? "expose the fake activations as graph outputs"
qopt_node "$top_srcdir/tests/passes/nvfp4/act-exact.js" "$work/exposed.onnx" \
	"$work" >"$work/log" 2>&1
rc=$?
sed 's/^/# /' "$work/log"
check $rc "fake form == kernel on every element (FLOAT, FLOAT16, BFLOAT16)"

echo "1..$n"
exit $failed
