#!/bin/sh
# tests/ir/validity.sh - valid ONNX is accepted, invalid ONNX is refused.
# Models from tests/ir/validity-models.py (python3-onnx): nodes out of
# topological order (as float16 converters leave them) and an If whose
# branches reuse names must load, round-trip sorted and compute the
# same in ONNX Runtime; each invalid one must fail naming what is wrong
# and write nothing.
. "$top_srcdir/tests/ort/common.sh"

qopt_need_py_onnx
qopt_workdir validity
"$py" "$top_srcdir/tests/ir/validity-models.py" "$work" >"$work/log" 2>&1 ||
	{ echo "Bail out! cannot generate the models"; cat "$work/log"; exit 1; }
ort_why=$(qopt_ort_missing)

# ONNX's own checker requires topological order: it passes on our output.
onnx_check() {
	"$py" -c 'import onnx, sys; onnx.checker.check_model(onnx.load(sys.argv[1]))' "$1"
}

# ORT on the original (or the reference $3) and on qopt's output,
# same inputs, bit-exact.
ort_same() {
	if [ -n "$ort_why" ]; then
		n=$((n + 1))
		echo "ok $n - $1 # SKIP $ort_why"
		return
	fi
	qopt_node "$top_srcdir/tests/ort/run-compare.js" --exact \
		"$work/${3:-$2}.onnx" "$work/$2.out.onnx" >>"$work/log" 2>&1
	check $? "$1"
}

echo "1..40"

"$QOPT" "$work/unsorted.onnx" -o "$work/unsorted.out.onnx" >"$work/log" 2>&1
rc=$?
grep -q "note: nodes were not in topological order; sorted them (1 node moved)" "$work/log"
check $((rc + $?)) "unsorted model (input Cast appended last) loads with a note: 1 node moved"
onnx_check "$work/unsorted.out.onnx" >>"$work/log" 2>&1
check $? "its output is in topological order (onnx.checker passes)"
ort_same "unsorted model: ORT computes the same before and after" unsorted
"$QOPT" --passes opset-check,cast-fold \
	"$work/unsorted.onnx" -o "$work/unsorted.p.onnx" >"$work/log" 2>&1 &&
	onnx_check "$work/unsorted.p.onnx" >>"$work/log" 2>&1
check $? "unsorted model runs through passes"

"$QOPT" "$work/if-same-names.onnx" -o "$work/if-same-names.out.onnx" >"$work/log" 2>&1
check $? "If whose branches both define 't' and 'z' loads and saves"
"$QOPT" verify "$work/if-same-names.out.onnx" >"$work/log" 2>&1
check $? "its output verifies"
onnx_check "$work/if-same-names.out.onnx" >>"$work/log" 2>&1
check $? "its output passes onnx.checker"
ort_same "If with same-named branch values: ORT computes the same" if-same-names
"$QOPT" --passes opset-check:upgrade=yes:target=21 \
	"$work/if-same-names.onnx" -o "$work/if-same-names.p.onnx" >"$work/log" 2>&1
check $? "If with same-named branch values runs through an upgrade"

"$QOPT" "$work/if-unsorted.onnx" -o "$work/if-unsorted.out.onnx" >"$work/log" 2>&1
rc=$?
grep -q "note: nodes were not in topological order; sorted them (1 node moved)" "$work/log"
check $((rc + $?)) "If whose then branch lists a consumer first loads, sorted (1 node moved)"
onnx_check "$work/if-unsorted.out.onnx" >>"$work/log" 2>&1
check $? "its output passes onnx.checker (branch in order)"
# ORT refuses an unsorted subgraph (it sorts only the main graph): the
# sorted output is compared with the same model listed in order.
ort_same "If with an unsorted branch: ORT runs the output, same as the model in order" \
	if-unsorted if-same-names

"$QOPT" dump "$work/vi-input.onnx" >"$work/dump" 2>"$work/log"
grep -q '^  x: FLOAT\[2\]$' "$work/dump"
check $? "value_info of unknown type does not override the declared input type"

# refuse NAME DESCRIPTION TEXT...: qopt fails, says each TEXT, writes
# nothing.
refuse() {
	m=$1 d=$2
	shift 2
	rm -f "$work/$m.out.onnx"
	"$QOPT" "$work/$m.onnx" -o "$work/$m.out.onnx" >"$work/log" 2>&1
	rc=$?
	bad=0
	[ "$rc" = 1 ] || { echo "exit status $rc, expected 1" >>"$work/log"; bad=1; }
	[ -e "$work/$m.out.onnx" ] && { echo "output written" >>"$work/log"; bad=1; }
	for t in "$@"; do
		grep -qF -- "$t" "$work/log" ||
			{ echo "message lacks: $t" >>"$work/log"; bad=1; }
	done
	check $bad "$d"
}

refuse cycle "a cycle is an error naming its nodes" "cycle" "'na' (Add)" "'nb' (Relu)"
refuse shadow "a branch value shadowing an outer name is an error naming both graphs" \
	"graph 'then'" "'c'" "shadows" "enclosing graph 'ifz'"
refuse input-twice "a graph input listed twice" "input 'x' is listed more than once"
refuse output-twice "a graph output listed twice" "output 'y' is listed more than once"
refuse empty-required "an empty name for a required input" "'mm' (MatMul)" "required input 1 is empty"
refuse negative-dim "a negative dim in value_info" "'x2'" "dim 0 is -3"
refuse opset-negative "a negative opset version" "opset import" "version -1"
refuse ir-absurd "an absurd IR version" "IR version 1099511627776"
refuse cast-to-wide "Cast to = 2^32 + 10 is not read as FLOAT16" \
	"'c' (Cast)" "attribute 'to' = 4294967306 is not a data type"
refuse mixed-matmul "a FLOAT16 weight under a FLOAT MatMul (one type T)" \
	"'mm' (MatMul)" "input 1 'w' is FLOAT16 but input 0 'x' is FLOAT"
"$QOPT" verify "$work/mixed-matmul.onnx" >"$work/log" 2>&1
[ $? = 1 ] && grep -qF "input 1 'w' is FLOAT16 but input 0 'x' is FLOAT (MatMul takes one type for both)" "$work/log"
check $? "qopt verify reports the MatMul whose input types disagree"
"$QOPT" verify "$work/where-bool.onnx" >"$work/log" 2>&1
check $? "qopt verify accepts Where(BOOL, FLOAT, FLOAT): the condition has its own type"
rm -f "$work/pad.onnx"
"$QOPT" --passes opset-check:upgrade=yes:target=11 "$work/pad-int8-1000.onnx" \
	-o "$work/pad.onnx" >"$work/log" 2>&1
[ $? = 1 ] && [ ! -e "$work/pad.onnx" ] &&
	grep -q "'pad' (Pad).*pad value 1000 is not a value of the input's type INT8" "$work/log"
check $? "upgrade refuses Pad-2 value 1000 on INT8 (no wrap to -24)"
"$QOPT" --passes opset-check:upgrade=yes:target=11 "$work/pad-int8-100.onnx" \
	-o "$work/pad.onnx" >"$work/log" 2>&1 &&
	"$QOPT" dump "$work/pad.onnx" 2>>"$work/log" | grep -q "INT8\[\] (1 bytes, inline) {100}"
check $? "upgrade carries Pad-2 value 100 on INT8 as an INT8 input"
refuse sparse-attr "a sparse attribute index out of range" \
	"sparse tensor sparse_value: index 7 out of range (2 elements)"
refuse sparse-init "a sparse initializer coordinate out of range" \
	"sparse tensor 's' (graph 'g'): index 5 of dim 1 (size 3) out of range"
refuse attr-type0 "an attribute of type UNDEFINED" "attribute 'odd' has unknown type 0"
refuse attr-type99 "an attribute of unknown type 99" "attribute 'odd' has unknown type 99"

"$QOPT" verify "$work/cycle.onnx" >"$work/log" 2>&1
[ $? = 1 ] && grep -q "cycle: 'n" "$work/log"
check $? "qopt verify reports the cycle too"
"$QOPT" verify "$work/input-twice.onnx" >"$work/log" 2>&1
[ $? = 1 ] && grep -q "listed more than once" "$work/log"
check $? "qopt verify reports the duplicate input"
"$QOPT" verify "$work/unsorted.onnx" >"$work/log" 2>&1
check $? "qopt verify accepts the unsorted model (sorted on load)"
"$QOPT" dump "$work/unsorted.onnx" 2>/dev/null | grep -A1 '^nodes:' | grep -q "Cast(x)"
check $? "the sorted Cast comes first"
"$QOPT" -q "$work/unsorted.onnx" -o "$work/q.onnx" >"$work/log" 2>&1
! grep -q note "$work/log"
check $? "-q silences the note"

# The README's example (under make check-sanitize: with no report).
"$QOPT" -p "$top_srcdir/examples/quantize.ini" "$top_srcdir/examples/mlp.onnx" \
	-o "$work/readme.onnx" >"$work/readme.log" 2>&1 &&
	"$QOPT" verify "$work/readme.onnx" >"$work/log" 2>&1
rc=$?
cat "$work/readme.log" >>"$work/log"
check $rc "the README example runs and its output verifies"
in_size=$(stat -c %s "$top_srcdir/examples/mlp.onnx")
out_size=$(stat -c %s "$work/readme.onnx")
[ "$out_size" -lt $((in_size / 3)) ] && grep -q "2 weights quantized, 32768 bytes before, [0-9]* bytes after" "$work/readme.log" &&
	! grep -q "qopt: summary" "$work/readme.log"
check $? "the README example writes real NVFP4 weights ($in_size -> $out_size bytes), no summary when stderr is no terminal"

# --summary: the before/after table and the passes' lines.
"$QOPT" --summary -p "$top_srcdir/examples/quantize.ini" \
	"$top_srcdir/examples/mlp.onnx" -o "$work/sum.onnx" >"$work/log" 2>&1 &&
	grep -q "^qopt: summary" "$work/log" &&
	grep -Eq "^  model file bytes +$in_size +$(stat -c %s "$work/sum.onnx")  \*$" "$work/log" &&
	grep -Eq "^  opset \(ai.onnx\) +13 +23  \*$" "$work/log" &&
	grep -Eq "^  Cast +2 +0  \*$" "$work/log" &&
	grep -Eq "^  nvfp4-weights +changed .* 2 weights quantized" "$work/log" &&
	grep -Eq "^  opset-check +unchanged" "$work/log"
check $? "--summary prints node counts by op, sizes and opset before and after, and each pass's result"
"$QOPT" --summary --no-summary -p "$top_srcdir/examples/quantize.ini" \
	"$top_srcdir/examples/mlp.onnx" -o "$work/sum.onnx" >"$work/log" 2>&1 &&
	! grep -q "qopt: summary" "$work/log"
check $? "--no-summary turns it off"
exit $failed
