#!/bin/sh
# tests/passes/fp8/fp8-degenerate.sh - the pass fp8's both-or-neither
# rule under a degenerate amax (issue 39): an activation amax of 0, one
# whose scale amax/448 rounds to 0 (1e-45 in FLOAT, a subnormal 1e-40 in
# FLOAT16) or to infinity (1e308 in FLOAT, 1e8 in FLOAT16), and a weight
# whose own scale rounds to 0, each leave the whole layer float (no DQ
# on either input) with a warning naming the tensor and the node; the
# other layers stay FP8.
. "$top_srcdir/tests/ort/common.sh"

qopt_need_py_onnx
qopt_need_ort
qopt_workdir fp8-degenerate
qopt_calib_env
gen() { "$py" "$top_srcdir/tests/passes/fp8/fp8-gen.py" "$@" ||
	{ echo "Bail out! fp8-gen.py $*"; exit 1; }; }
deg() { "$py" "$top_srcdir/tests/passes/fp8/fp8-degenerate.py" "$@"; }
gen model conv13 "$work/conv13.onnx"
gen model fp16conv "$work/fp16.onnx"
deg model "$work/tiny.onnx" || { echo "Bail out! fp8-degenerate.py"; exit 1; }
for m in conv13 fp16 tiny; do
	"$QOPT" calibrate "$work/$m.onnx" --random 2 --passes fp8 \
		-o "$work/$m.json" >"$work/log" 2>&1 ||
		{ cat "$work/log"; echo "Bail out! calibrate $m"; exit 1; }
done

echo "1..6"

# one MODEL TENSOR AMAX NODE OTHER: NODE float, OTHER FP8, a warning
# naming TENSOR and NODE, exit 0.
one() {
	deg amax "$work/$1.json" "$work/d.json" "$2" "$3" &&
	"$QOPT" "$work/$1.onnx" -o "$work/d.onnx" \
		--passes "fp8:calibration=$work/d.json" >"$work/log" 2>&1 &&
	deg float "$work/d.onnx" "$4" && deg fp8 "$work/d.onnx" "$5" &&
	grep "warning" "$work/log" | grep -F "'$4'" | grep -qF "'$2'"
}
one conv13 ar 1e-45 c1b c1a
check $? "FLOAT amax 1e-45 (scale rounds to 0): the layer float on both inputs, a warning naming tensor and node"
one conv13 ar 0 c1b c3
check $? "amax 0: the layer float on both inputs, with a warning"
one conv13 ar 1e308 c1b c1a
check $? "FLOAT amax 1e308 (scale overflows): the layer float, with a warning"
one fp16 a 1e-40 cb ca
check $? "FLOAT16 amax 1e-40 (a subnormal double; the scale rounds to 0 in FLOAT16): float, with a warning"
one fp16 a 1e8 cb ca
check $? "FLOAT16 amax 1e8 (scale 2.2e5 overflows FLOAT16): float, with a warning"
"$QOPT" "$work/tiny.onnx" -o "$work/d.onnx" \
	--passes "fp8:calibration=$work/tiny.json" >"$work/log" 2>&1 &&
	deg float "$work/d.onnx" ct && deg fp8 "$work/d.onnx" cw &&
	grep "warning" "$work/log" | grep -F "'ct'" | grep -qF "'w_tiny'"
check $? "a weight whose scale rounds to 0: its layer float on both inputs (the input too), with a warning"
exit $failed
