#!/bin/sh
# Node order is the IR's job, not each pass's (qopt/pass.h): after a
# pass that changed the graph the manager re-sorts it, so a pass that
# appends nodes consumer first still gives a verified, sorted model;
# a real cycle is still an error naming its nodes; fp8-mha on the
# exporter form (scalars as Constant nodes) writes a verified model.
. "$top_srcdir/tests/lib/common.sh"
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

# The exporter form: torch writes scalars as Constant nodes just before
# their first consumer. fp8-mha's scale move places a new Mul above the
# Q, before the Constant feeding it; the manager's re-sort keeps the
# result valid (it failed "used before its producer" before).
if [ "$PYTHON3" != no ] && "$PYTHON3" -c 'import onnx' 2>/dev/null; then
	for form in std custom; do
		"$PYTHON3" "$top_srcdir/tests/passes/fp8/gen.py" "gen-$form.onnx" \
			form=$form attn=sdpa blocks=2 >/dev/null 2>&1 &&
		"$PYTHON3" - "gen-$form.onnx" "const-$form.onnx" <<'PY'
import onnx, sys
from onnx import helper as h
m = onnx.load(sys.argv[1]); g = m.graph
small = {i.name: i for i in g.initializer if list(i.dims) in ([], [1])}
nodes, done = [], set()
for n in g.node:
    for x in n.input:
        if x in small and x not in done:
            done.add(x)
            nodes.append(h.make_node("Constant", [], [x], value=small[x]))
    nodes.append(n)
keep = [i for i in g.initializer if i.name not in small]
del g.initializer[:]; g.initializer.extend(keep)
del g.node[:]; g.node.extend(nodes)
onnx.save(m, sys.argv[2])
PY
		run "$QOPT" --verify-each --passes fp8-mha "const-$form.onnx" -o "fp8-$form.onnx"
		t "fp8-mha, $form Q/DQ with Constant-node scalars: scale Muls moved, verified output" \
			eval '[ $rc = 0 ] && has "scale Muls moved above Q" "$W/err" && [ -s "fp8-$form.onnx" ]'
	done
else
	ok 0 "fp8-mha with Constant-node scalars # SKIP no python3 with onnx"
	ok 0 "fp8-mha with Constant-node scalars (custom ops) # SKIP no python3 with onnx"
fi

done_testing
