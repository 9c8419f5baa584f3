#!/bin/sh
# What the manager guarantees a pass before it runs (pass.h): the input
# verifies, its nodes in topological order.
. "$top_srcdir/tests/lib/common.sh"
cd "$W" || exit 1

"$top_builddir/tests/lib/mkmodel" --unsorted unsorted.onnx 2>"$W/err"
# Read the file's own node order (qopt's load would sort it): the bytes,
# so no python with onnx is needed; the last node's name comes first.
t "a model listing its nodes backwards is written" \
	eval '[ "$(grep -ao "out_id\|relu1" unsorted.onnx | head -n 1)" = out_id ]'

run "$QOPT" --passes cast-fold unsorted.onnx -o out.onnx
# Either the load sorts it (then the output verifies) or the manager
# refuses it before the first pass; never a pass on an unsorted model.
t "no pass runs on a model that does not verify" \
	eval '{ [ $rc = 1 ] && has "does not verify" "$W/err" && ! has "cast-fold: done" "$W/err" && [ ! -e out.onnx ]; } || { [ $rc = 0 ] && "$QOPT" verify out.onnx >/dev/null 2>&1; }'
t "nodes out of order are sorted at load and the pass runs" \
	eval '[ $rc = 0 ] && "$QOPT" dump out.onnx | grep -A1 "^nodes:" | grep -q relu1'
t "the sort is reported as a note" has "sorted them (2 nodes moved)" "$W/err"

"$top_builddir/tests/lib/mkmodel" sorted.onnx 2>"$W/err"
run "$QOPT" --passes cast-fold sorted.onnx -o sorted-out.onnx
t "a model that verifies runs as before" eval '[ $rc = 0 ] && [ -e sorted-out.onnx ]'
done_testing
