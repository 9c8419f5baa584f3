#!/bin/sh
# bench/scaling-bench.sh - no quadratic growth (issue 21, row 9): CPU
# times at N, 2N and 4N of
#   - the IR alone: N initializers added, then removed in two batches
#     (tests/ir/scaling bench; N = SCALING_INITS, default 100000);
#   - fp8-mha on exporter-shaped models with N attention blocks
#     (tests/passes/fp8/gen.py; N = SCALING_BLOCKS, default 2500, so 4N is
#     10,000 blocks: a 440 MB model, about 2.6 GB of memory).
# Linear scaling shows as ratios near 2 and 4 (memory traffic adds a
# little); quadratic as 4 and 16.
set -e
inits=${SCALING_INITS:-100000}
blocks=${SCALING_BLOCKS:-2500}
dir=${SCALING_DIR:-$top_builddir/bench/scaling-work}
rm -rf "$dir"
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT

echo "IR: initializers added and removed"
"$top_builddir/tests/ir/scaling" bench "$inits"

if [ "$PYTHON3" = no ] || ! "$PYTHON3" -c 'import numpy, onnx' 2>/dev/null; then
	echo "fp8-mha: skipped (no python3 with numpy and onnx)"
	exit 0
fi
echo "fp8-mha: attention blocks (user CPU seconds of qopt, load and save included)"
base=
for k in 1 2 4; do
	n=$((k * blocks))
	"$PYTHON3" "$top_srcdir/tests/passes/fp8/gen.py" "$dir/m.onnx" blocks=$n
	/usr/bin/env time -f '%U %M' -o "$dir/time" "$QOPT" -q \
		--passes fp8-mha "$dir/m.onnx" -o "$dir/out.onnx"
	read -r t kb <"$dir/time"
	[ -n "$base" ] || base=$t
	awk -v n="$n" -v t="$t" -v b="$base" -v kb="$kb" 'BEGIN {
		printf "%8d blocks: %6.2f s CPU (%.2f x N'"'"'s), peak %d MiB\n",
		       n, t, t / (b > 0 ? b : 1), kb / 1024 }'
	rm -f "$dir/m.onnx" "$dir/out.onnx"
done
