#!/bin/sh
# FP8 conversion of a million floats against ONNX Runtime's Cast
# (FLOAT -> FLOAT8E4M3FN / FLOAT8E5M2, saturate=1). The C helper writes
# inputs and our codes; node builds the model and compares (TAP).
# Environment (tests/env.sh): NODE, QOPT_ORT_DIR, top_srcdir, top_builddir.
: "${top_srcdir:=.}" "${top_builddir:=.}"
mod="$QOPT_ORT_DIR/node_modules/onnxruntime-node"
if [ -z "$NODE" ] || [ "$NODE" = no ]; then
	echo "1..0 # SKIP node not found"
	exit 0
fi
if [ -z "$QOPT_ORT_DIR" ] || [ ! -d "$mod" ]; then
	echo "1..0 # SKIP onnxruntime-node not installed in ${QOPT_ORT_DIR:-(QOPT_ORT_DIR unset)}"
	exit 0
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/qopt-ort-cast.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
if ! "$top_builddir/tests/kernels/dump-fp8" "$work" 1000000; then
	echo "Bail out! kernels-dump-fp8 failed"
	exit 1
fi
"$NODE" "$top_srcdir/tests/kernels/ort-cast.js" "$work" 1000000
