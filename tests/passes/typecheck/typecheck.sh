#!/bin/sh
# tests/passes/typecheck/typecheck.sh - the strong-typing check: the
# precision summary, FLOAT islands (asked for with allow, else findings
# that --strict turns into a failure), mixed float inputs and a
# QuantizeLinear whose scale is not its input's type.
. "$top_srcdir/tests/ort/common.sh"
qopt_need_py_onnx
qopt_workdir typecheck
M="$top_srcdir/tests/passes/typecheck/models.py"
T="$top_srcdir/tests/torch/models"

"$QOPT" --passes typecheck --dry-run "$T/gpt2.onnx" >"$work/log" 2>&1 &&
	grep -q "precision: FLOAT 87 node(s), 76302 float parameter(s)" "$work/log" &&
	grep -q "0 finding(s)" "$work/log" && ! grep -q "island" "$work/log"
check $? "a FLOAT model: its precision counted, no islands, no findings"

# (GPT-2's two attention-mask Wheres stay FLOAT too: their constant is
# -3.4e38, beyond FLOAT16)
"$QOPT" --passes autocast:exclude=/h.0/c_fc/MatMul "$T/gpt2.onnx" \
	-o "$work/g16.onnx" >"$work/log" 2>&1
check $? "autocast with one layer kept FLOAT"
"$QOPT" --passes typecheck:expect=float16 --dry-run "$work/g16.onnx" \
	>"$work/log" 2>&1 &&
	grep -q "warning: FLOAT island of 1 node(s) at node '/h.0/c_fc/MatMul' (MatMul), 2 Cast(s) at its border, that no 'allow' pattern names" \
		"$work/log" && grep -q "FLOAT16 [0-9]* node(s)" "$work/log"
check $? "expect = float16: the island not asked for is a warning, with its Casts"
"$QOPT" --strict --passes typecheck:expect=float16 --dry-run "$work/g16.onnx" \
	>"$work/log" 2>&1
[ $? = 1 ]
check $? "... and --strict fails the run"
"$QOPT" --strict --passes 'typecheck:expect=float16:include=/h.0/c_fc/*;/h.*/Where' \
	--dry-run "$work/g16.onnx" >"$work/log" 2>&1 &&
	grep -q "FLOAT island of 1 node(s)" "$work/log" &&
	! grep -q "warning" "$work/log"
check $? "an island 'allow' (include) names is said, not a finding"
"$QOPT" --passes typecheck --dry-run "$work/g16.onnx" >"$work/log" 2>&1 &&
	grep -q "FLOAT island of 1 node(s)" "$work/log" &&
	! grep -q "warning" "$work/log"
check $? "expect = any: islands are said, not findings"

# Mixed types: refused when the model is read (the verifier), or found
# by typecheck; either way the node is named.
for k in mixed qscale; do
	"$py" "$M" $k "$work/$k.onnx" >"$work/log" 2>&1
	"$QOPT" --strict --passes typecheck --dry-run "$work/$k.onnx" \
		>"$work/log" 2>&1
	rc=$?
	case $k in mixed) node=add_mixed;; *) node=q_mixed;; esac
	[ $rc != 0 ] && grep -q "node '$node'" "$work/log" &&
		grep -q "FLOAT16.*FLOAT\|FLOAT.*FLOAT16" "$work/log"
	check $? "$k: fails under --strict, naming node '$node' and both types"
done
echo "1..$n"
[ "$failed" = 0 ]
