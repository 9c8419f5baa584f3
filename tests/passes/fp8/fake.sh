#!/bin/sh
# tests/passes/fp8/fake.sh - fp8-compress-weights with weight_mode = fake
# writes DQ(Q(W)) as deferred recipes: after the pass each W_fq is
# "owned (deferred)" (--print-after), never in the heap or the spill
# file, so no spill folder is needed and nothing is said about one; the
# values equal the ONNX definitions computed in NumPy, bit for bit
# (tests/passes/fp8/fake.py), on FLOAT16 weights of 1M elements in external data.
# rotate = rotate_back the same way: each W_fq_rot deferred (R fq(R W)
# computed by the writer, one weight at a time), none spilled, and the
# bytes those of the eager reference (tests/passes/fp8/rotref.c), also
# for weights the recipe does in strips (per-axis scales across strips).
. "$top_srcdir/tests/ort/common.sh"
qopt_need_py_onnx
qopt_workdir fp8mha-fake

"$top_builddir/bench/fp8mha-gen" "$work/in.onnx" 8 4 >"$work/log" 2>&1
check $? "model generated (4 weights behind Q/DQ)"
# deferred SPEC A B SUFFIX WHAT: SPEC run twice, with a spill folder
# (into A) and with none (into B, printing the IR after the pass): exit
# 0, nothing said about spilling, the same files; then the 4 weights
# ending in SUFFIX are "owned (deferred)" after the pass, none spilled.
deferred() {
	mkdir -p "$work/$2" "$work/$3"  # the same file name: the .onnx names its data file
	"$QOPT" -q --passes "$1" "$work/in.onnx" -o "$work/$2/out.onnx" >>"$work/log" 2>&1
	ra=$?
	QOPT_SPILL_DIR=/nonexistent/qopt-spill "$QOPT" --passes "$1" \
		--print-after fp8-compress-weights "$work/in.onnx" -o "$work/$3/out.onnx" \
		>"$work/$3.ir" 2>"$work/$3.err"
	rb=$?
	cat "$work/$3.err" >>"$work/log"
	[ $ra = 0 ] && [ $rb = 0 ] && ! grep -q -e "stay in memory" -e "qopt-spill" -e "spill file" \
		"$work/$3.err" && cmp -s "$work/$2/out.onnx" "$work/$3/out.onnx" &&
		cmp -s "$work/$2/out.onnx.data" "$work/$3/out.onnx.data"
	check $? "${5}no spill folder: exit 0, nothing said, the same file as with one"
	nd=$(grep -c "$4: FLOAT16.*owned (deferred))\$" "$work/$3.ir")
	[ "$nd" = 4 ] && ! grep -q spilled "$work/$3.ir"
	check $? "${5}the 4 fake weights deferred after the pass (found $nd), none spilled"
}
deferred fp8-compress-weights:weight_mode=fake a b _fq ""
"$py" "$top_srcdir/tests/passes/fp8/fake.py" "$work/in.onnx" "$work/b/out.onnx" \
	>"$work/check" 2>&1
rc=$?
grep '^not ok' "$work/check" | sed 's/^/# /'
check $rc "fake weights = DQ(Q(W)) from the ONNX definitions, bit for bit"

ROT=fp8-compress-weights:weight_mode=fake:rotate=rotate_back
deferred $ROT ra rb _fq_rot "rotate_back: "
# fp8mha-gen's weights are [N, K] behind a Transpose: K is stored axis 1.
"$top_builddir/tests/passes/fp8/rotref" "$work/in.onnx" "$work/rb/out.onnx" 1 \
	>"$work/rcheck" 2>&1
rc=$?
sed 's/^/# /' "$work/rcheck"
check $rc "rotate_back weights = the eager reference R fq(R W), byte for byte"
# Weights of 512 rows of K = 1024 (FLOAT, 2 strips of the recipe):
# per-axis scales along the rows (one per strip row) and per tensor.
gen="$top_srcdir/tests/passes/fp8/rotate.py"
for c in "axis transposed" "tensor transposed" "axis gemm"; do
	set -- $c
	"$py" "$gen" model "$work/s.onnx" f32 $1 $2 1024 512 &&
		"$QOPT" -q --passes $ROT "$work/s.onnx" -o "$work/s_r.onnx" \
			>>"$work/log" 2>&1 &&
		"$top_builddir/tests/passes/fp8/rotref" "$work/s.onnx" \
			"$work/s_r.onnx" 1 >"$work/rcheck" 2>&1
	rc=$?
	sed 's/^/# /' "$work/rcheck"
	check $rc "rotate_back in strips, $1 scales ($2): the eager reference's bytes"
done
echo "1..$n"
