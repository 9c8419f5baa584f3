#!/bin/sh
# tests/ir/infer-ort.sh - qopt's shape inference against the shapes ONNX
# Runtime computes at run time, on random graphs of shape arithmetic
# (tests/ir/infer-ort.js): every static dim and element type qopt claims
# must be ORT's. `make check` runs a fixed slice of seeds
# (QOPT_INFER_ORT_SEED, default 1; QOPT_INFER_ORT_COUNT, default 250);
# `make fuzz-infer` runs many thousands from a fresh seed.
. "$top_srcdir/tests/ort/common.sh"
qopt_need_ort
[ -x "$QOPT" ] || { echo "Bail out! $QOPT not built"; exit 1; }
qopt_workdir infer-ort
# tests/env.sh runs the binary libtool's wrapper would (one shell less
# a model) outside sanitizer builds.
export QOPT
qopt_node "$top_srcdir/tests/ir/infer-ort.js" "${QOPT_INFER_ORT_SEED:-1}" \
	"${QOPT_INFER_ORT_COUNT:-250}" "$work"
