#!/bin/sh
# tests/passes/nvfp4/check.sh - nvfp4-weights output against a checker written
# from docs/numerics.md alone (tests/passes/nvfp4/check.py, numpy), bit for bit.
. "$top_srcdir/tests/ort/common.sh"

qopt_need_py_onnx
qopt_workdir nvfp4-check
"$py" "$top_srcdir/tests/passes/nvfp4/check.py" gen "$work/in.onnx" ||
	{ echo "Bail out! cannot generate the model"; exit 1; }
printf '[nvfp4-weights]\nmin_size = 0\n' >"$work/p.ini"
if ! "$QOPT" -q -p "$work/p.ini" "$work/in.onnx" -o "$work/out.onnx" \
	2>"$work/err"; then
	sed 's/^/# /' "$work/err"
	echo "Bail out! qopt failed"
	exit 1
fi
"$py" "$top_srcdir/tests/passes/nvfp4/check.py" check "$work/in.onnx" "$work/out.onnx"
