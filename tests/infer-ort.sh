#!/bin/sh
# tests/infer-ort.sh - qopt's shape inference against the shapes ONNX
# Runtime computes at run time, on random graphs of shape arithmetic
# (tests/infer-ort.js): every static dim and element type qopt claims
# must be ORT's. `make check` runs a fixed slice of seeds
# (QOPT_INFER_ORT_SEED, default 1; QOPT_INFER_ORT_COUNT, default 250);
# `make fuzz-infer` runs many thousands from a fresh seed.
. "$top_srcdir/tests/ort/common.sh"
qopt_need_ort
[ -x "$QOPT" ] || { echo "Bail out! $QOPT not built"; exit 1; }
qopt_workdir infer-ort
# libtool's wrapper script costs a shell per model: run the binary it
# wraps where there is one (a sanitizer build keeps tests/san-qopt.sh)
if [ "$QOPT_SANITIZED" != yes ] && [ -x "$top_builddir/.libs/qopt" ]; then
	QOPT="$top_builddir/.libs/qopt"
	LD_LIBRARY_PATH="$top_builddir/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	export LD_LIBRARY_PATH
fi
export QOPT
qopt_node "$top_srcdir/tests/infer-ort.js" "${QOPT_INFER_ORT_SEED:-1}" \
	"${QOPT_INFER_ORT_COUNT:-250}" "$work"
