#!/bin/sh
# tests/hostile-fuzz-regress.sh - every input kept under fuzz/regress
# (found by `make fuzz-run`, or hand-made adversarial files) through
# the normal build: loading gives exit 0 or 1, never a crash or a
# sanitizer report; a model that loads round-trips to a model that
# verifies; pipeline inputs give exit 0 or 2.
. "$top_srcdir/tests/core-lib.sh"
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
for f in "$R"/ini/*; do
	[ -f "$f" ] || continue
	b=$(basename "$f")
	run "$QOPT" --print-pipeline -p "$f"
	t "$b: the pipeline parser exits 0 or 2" [ "$rc" = 0 -o "$rc" = 2 ]
	t "$b: the pipeline parser reports no crash" clean
done

done_testing
