#!/bin/sh
# tests/hostile/fuzz-regress.sh - every input kept under fuzz/regress
# (found by `make fuzz-run`, or hand-made adversarial files) through
# the normal build: loading gives exit 0 or 1, never a crash or a
# sanitizer report; a model that loads round-trips to a model that
# verifies; pipeline inputs give exit 0 or 2; models the pass fuzzer
# kept go through its pipelines with exit 0 or 1.
. "$top_srcdir/tests/lib/common.sh"
R="$top_srcdir/fuzz/regress"

clean() {
	! grep -qE 'runtime error|Sanitizer|Segmentation' "$W/err"
}

for f in "$R"/load/*; do
	[ -f "$f" ] || continue
	b=$(basename "$f")
	run "$QOPT" verify "$f"
	t "$b: verify exits 0 or 1" [ "$rc" = 0 -o "$rc" = 1 ]
	t "$b: verify reports no crash" clean
	rm -f "$W/o.onnx"
	run "$QOPT" "$f" -o "$W/o.onnx"
	t "$b: a round trip exits 0 or 1" [ "$rc" = 0 -o "$rc" = 1 ]
	t "$b: the round trip reports no crash" clean
	if [ "$rc" = 0 ]; then
		run "$QOPT" verify "$W/o.onnx"
		t "$b: what was written verifies" [ "$rc" = 0 ]
	else
		t "$b: nothing written on failure" [ ! -e "$W/o.onnx" ]
	fi
done
# The pass fuzzer's inputs, through fuzz/fuzz-passes.c's pipelines
# (keep the two lists alike): a pass may refuse (exit 1), never crash.
set -- \
	"infer-shapes,opset-check,cast-fold,hadamard-rotate:min_size=0,nvfp4-weights:min_size=0,fp8-mha" \
	"hadamard-rotate:min_size=0:fold=no:quantizer=nvfp4:block_size=16,nvfp4-weights:min_size=0:mode=fake:rotate=rotate_back,fp8-mha:weight_mode=fake:rotate=rotate_back:weight_axis=yes" \
	"hadamard-rotate:min_size=0:quantizer=fp8" \
	"nvfp4-weights:min_size=0:op_types=MatMul;Gemm;Conv:target=ort" \
	"fp8-mha" "cast-fold" "mxfp8:min_size=0" "mxfp8:min_size=0:mode=fake" \
	"mxfp8:min_size=0:format=onnx:activations=no"
for f in "$R"/passes/*; do
	[ -f "$f" ] || continue
	b=$(basename "$f")
	i=0
	for p in "$@"; do
		i=$((i + 1))
		rm -f "$W/o.onnx"
		run "$QOPT" --passes "$p" "$f" -o "$W/o.onnx"
		t "$b, pipeline $i: exits 0 or 1" [ "$rc" = 0 -o "$rc" = 1 ]
		t "$b, pipeline $i: no crash" clean
		if [ "$rc" = 0 ]; then
			run "$QOPT" verify "$W/o.onnx"
			t "$b, pipeline $i: what was written verifies" [ "$rc" = 0 ]
		fi
	done
done
for f in "$R"/ini/*; do
	[ -f "$f" ] || continue
	b=$(basename "$f")
	run "$QOPT" --print-pipeline -p "$f"
	t "$b: the pipeline parser exits 0 or 2" [ "$rc" = 0 -o "$rc" = 2 ]
	t "$b: the pipeline parser reports no crash" clean
done

done_testing
