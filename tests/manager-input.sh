#!/bin/sh
# What the manager guarantees a pass before it runs (pass.h): the input
# verifies, its nodes in topological order.
. "$top_srcdir/tests/core-lib.sh"
cd "$W" || exit 1

"$top_builddir/tests/core-mkmodel" --unsorted unsorted.onnx 2>"$W/err"
t "a model listing its nodes backwards is written" \
	eval '"$QOPT" dump unsorted.onnx | grep -A1 "^nodes:" | grep -q out_id'

run "$QOPT" --passes cast-fold unsorted.onnx -o out.onnx
# Either the load sorts it (then the output verifies) or the manager
# refuses it before the first pass; never a pass on an unsorted model.
t "no pass runs on a model that does not verify" \
	eval '{ [ $rc = 1 ] && has "does not verify" "$W/err" && ! has "cast-fold: done" "$W/err" && [ ! -e out.onnx ]; } || { [ $rc = 0 ] && "$QOPT" verify out.onnx >/dev/null 2>&1; }'
# TODO: needs the load-time topological sort of issue 9; then the
# model loads sorted and the pass runs (remove the TODO mark).
n=$((n + 1))
if [ $rc = 0 ] && "$QOPT" dump out.onnx | grep -A1 "^nodes:" | grep -q relu1; then
	echo "ok $n - nodes out of order are sorted at load and the pass runs # TODO load-time toposort (issue 9)"
else
	echo "not ok $n - nodes out of order are sorted at load and the pass runs # TODO load-time toposort (issue 9)"
fi

"$top_builddir/tests/core-mkmodel" sorted.onnx 2>"$W/err"
run "$QOPT" --passes cast-fold sorted.onnx -o sorted-out.onnx
t "a model that verifies runs as before" eval '[ $rc = 0 ] && [ -e sorted-out.onnx ]'
done_testing
