#!/bin/sh
# tests/passes/mxfp8/ort.sh - the fake form of MXFP8 activations that the
# mxfp8 pass writes (standard ops only) runs in ONNX Runtime and gives,
# on every element of a million random and adversarial values per input
# type (FLOAT, FLOAT16, BFLOAT16), exactly what the CPU kernel
# (qk_mxfp8_quantize + qk_mxfp8_dequantize) gives: ties, boundaries of
# the E8M0 rule, zero, NaN and Inf blocks, float subnormals, FLT_MAX.
. "$top_srcdir/tests/ort/common.sh"
qopt_need_ort
qopt_need_py_onnx
qopt_workdir mxfp8-ort
N=${QOPT_MXFP8_N:-1000000}

"$top_builddir/tests/passes/mxfp8/dump" "$work" "$N" >"$work/rows" 2>"$work/log"
check $? "kernel results for $N values per type"
for t in float float16 bfloat16; do
	"$py" "$top_srcdir/tests/passes/mxfp8/models.py" linear $t "$work/$t.onnx" \
		>"$work/log" 2>&1 &&
	"$QOPT" --passes 'mxfp8:mode=fake:min_size=0' "$work/$t.onnx" \
		-o "$work/$t-fake.onnx" >>"$work/log" 2>&1 &&
	"$py" "$top_srcdir/tests/passes/mxfp8/models.py" cut "$work/$t-fake.onnx" \
		"$work/$t-cut.onnx" >>"$work/log" 2>&1
	check $? "$t: linear model, mxfp8 mode = fake, chain cut out"
	qopt_node "$top_srcdir/tests/passes/mxfp8/ort.js" "$work/$t-cut.onnx" \
		"$work/x_$t.f32" "$work/y_$t.f32" >"$work/log" 2>&1
	rc=$?
	check $rc "$t: ORT equals the kernel: $(head -c 300 "$work/log")"
done
echo "1..$n"
exit $failed
