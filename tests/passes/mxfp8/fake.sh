#!/bin/sh
# tests/passes/mxfp8/fake.sh - mxfp8 mode = fake writes its weights as
# deferred recipes: after the pass each fake weight is "owned (deferred)"
# (--print-after), never in the heap or the spill file, so no spill
# folder is needed and nothing is said about one; the values equal
# e4m3(code) * 2^(scale - 127) of the real form's codes and scales, bit
# for bit (tests/passes/mxfp8/fake.py), on the plain model and on FLOAT16 weights
# of 1M elements (many strips of the recipe) in external data.
. "$top_srcdir/tests/ort/common.sh"
qopt_need_py_onnx
qopt_workdir mxfp8-fake
M="$top_srcdir/tests/passes/mxfp8/models.py"
F="$top_srcdir/tests/passes/mxfp8/fake.py"

"$py" "$M" plain "$work/plain.onnx" >"$work/log" 2>&1 &&
	"$top_builddir/bench/nvfp4-gen" "$work/big.onnx" 8 4 >>"$work/log" 2>&1
check $? "models generated"

for m in plain big; do
	"$QOPT" -q --passes 'mxfp8:min_size=0' "$work/$m.onnx" \
		-o "$work/$m-real.onnx" >>"$work/log" 2>&1
	check $? "$m: real mode"
	QOPT_SPILL_DIR=/nonexistent/qopt-spill "$QOPT" \
		--passes 'mxfp8:min_size=0:mode=fake' --print-after mxfp8 \
		"$work/$m.onnx" -o "$work/$m-fake.onnx" >"$work/$m.ir" \
		2>"$work/$m.err"
	rc=$?
	cat "$work/$m.err" >>"$work/log"
	[ $rc = 0 ] && ! grep -q -e "stay in memory" -e "qopt-spill" -e "spill file" "$work/$m.err"
	check $? "$m: fake mode with no spill folder: exit 0, nothing said"
	want=4
	nd=$(grep -c 'owned (deferred))$' \
		"$work/$m.ir")
	[ "$nd" = $want ] && ! grep -q spilled "$work/$m.ir"
	check $? "$m: the $want fake weights deferred after the pass (found $nd), none spilled"
	"$py" "$F" "$work/$m-real.onnx" "$work/$m-fake.onnx" >"$work/$m.check" 2>&1
	rc=$?
	grep '^not ok' "$work/$m.check" | sed 's/^/# /'
	check $rc "$m: fake weights = the real form's codes times scales, bit for bit"
done
echo "1..$n"
