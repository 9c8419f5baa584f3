#!/bin/sh
# Node order is the IR's job, not each pass's (qopt/pass.h): after a
# pass that changed the graph the manager re-sorts it, so a pass that
# appends nodes consumer first still gives a verified, sorted model;
# a real cycle is still an error naming its nodes.
. "$top_srcdir/tests/core-lib.sh"
G="--load $PL/reorder.so"
cd "$W" || exit 1

run "$QOPT" $G --verify-each --passes t-reverse m.onnx -o o.onnx
t "nodes appended in reverse order: the run verifies and writes" \
	eval '[ $rc = 0 ] && [ -s o.onnx ]'
run "$QOPT" verify o.onnx
t "... the written model verifies on its own" eval '[ $rc = 0 ]'
run "$QOPT" dump o.onnx
# rev = Neg(X), rev_1 = Neg(rev), ...: producers first in the file
t "... producers come before their consumers" eval '
	a=$(grep -n "^  rev = Neg(X)" "$W/out" | cut -d: -f1)
	b=$(grep -n "^  rev_1 = Neg(rev)" "$W/out" | cut -d: -f1)
	c=$(grep -n "^  rev_3 = Neg(rev_2)" "$W/out" | cut -d: -f1)
	[ -n "$a" ] && [ -n "$b" ] && [ -n "$c" ] && [ "$a" -lt "$b" ] && [ "$b" -lt "$c" ]'
t "... the model's own nodes keep their place (stable sort)" eval '
	grep "^  [A-Za-z_0-9]* = " "$W/out" | head -3 | tr -d "\n" |
	grep -q "A = Relu(X).*B = Add(A, W).*Y = Identity(B)"'

run "$QOPT" $G --print-after t-reverse --passes t-reverse:count=2 m.onnx -o o2.onnx
t "--print-after shows the sorted IR" eval '
	a=$(grep -n "rev = Neg(X)" "$W/out" | cut -d: -f1)
	b=$(grep -n "rev_1 = Neg(rev)" "$W/out" | cut -d: -f1)
	[ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ]'

run "$QOPT" $G --passes t-cycle m.onnx -o c.onnx
t "a real cycle: the pass is named, the nodes too, no output" eval '
	[ $rc = 1 ] && has "t-cycle: error: the IR has a cycle after this pass" "$W/err" &&
	has "cyc_a" "$W/err" && [ ! -e c.onnx ]'

done_testing
