#!/bin/sh
# tests/cli/calib-subgraph.sh - sub-graph tensors in the calibration
# file (issue 39): two sibling If branches that both name a tensor 'h'
# get one key each ('gate/then_branch/h', 'gate/else_branch/h', the
# scheme of docs/calibration.md) with NumPy's amax per branch; fp8 reads
# each branch's own range back (its Q/DQ scale amax/448), in two steps
# and in one command alike. An If inside a Loop body is refused naming
# both nodes (the other branch's empty tensor would change the scan
# output's shape between iterations), before ONNX Runtime runs; keys
# that still collide (two Ifs of one name) fail naming the key.
. "$top_srcdir/tests/ort/common.sh"

qopt_need_py_onnx
qopt_need_ort
qopt_workdir calib-subgraph
qopt_calib_env
"$py" "$top_srcdir/tests/cli/calib-subgraph.py" "$work" ||
	{ echo "Bail out! calib-subgraph.py"; exit 1; }

echo "1..8"

"$QOPT" calibrate "$work/sib.onnx" --data "$work/sib.cal" --passes fp8 \
	-o "$work/sib.json" >"$work/log" 2>&1
check $? "sibling branches sharing a name: calibrated"
"$py" - "$work/sib.json" "$work/sib.want.json" >>"$work/log" 2>&1 <<'PY'
import json, sys
got = json.load(open(sys.argv[1]))["tensors"]
want = json.load(open(sys.argv[2]))
ok = sorted(got) == ["gate/else_branch/h", "gate/then_branch/h"] and all(
    abs(got["gate/%s_branch/h" % b]["amax"] - want[b]) <= 1e-6 * want[b]
    for b in ("then", "else"))
print(got, want)
sys.exit(0 if ok else 1)
PY
check $? "each branch's 'h' has its own key and NumPy's amax of its branch"
"$QOPT" "$work/sib.onnx" --passes "fp8:calibration=$work/sib.json" \
	-o "$work/sib.fp8.onnx" >"$work/log" 2>&1
check $? "fp8 reads the file (no key listed twice)"
# scales SIB.fp8.onnx: each branch's MatMul reads h through a DQ whose
# scale is that branch's amax / 448
scales() {
	"$py" - "$1" "$work/sib.want.json" >>"$work/log" 2>&1 <<'PY'
import json, sys
import numpy as np
import onnx
from onnx import numpy_helper
m = onnx.load(sys.argv[1])
want = json.load(open(sys.argv[2]))
node = m.graph.node[0]
ok = True
for a in node.attribute:
    g = a.g
    b = "then" if a.name == "then_branch" else "else"
    inits = {i.name: numpy_helper.to_array(i) for i in
             list(g.initializer) + list(m.graph.initializer) if i.data_type == 1}
    by_out = {o: n for n in g.node for o in n.output}
    mm = [n for n in g.node if n.op_type == "MatMul"][0]
    dq = by_out.get(mm.input[0])
    s = inits.get(dq.input[1]) if dq is not None and dq.op_type == "DequantizeLinear" else None
    print(b, s, want[b] / 448)
    ok = ok and s is not None and s.item() == np.float32(want[b] / 448).item()
sys.exit(0 if ok else 1)
PY
}
scales "$work/sib.fp8.onnx"
check $? "each branch's Q/DQ has its own branch's scale"
"$QOPT" "$work/sib.onnx" --passes fp8 --calibration-data "$work/sib.cal" \
	-o "$work/sib.one.onnx" >"$work/log" 2>&1 && scales "$work/sib.one.onnx"
check $? "the one-command form: the same, each branch its own scale"

"$QOPT" calibrate "$work/dup.onnx" --data "$work/sib.cal" --passes fp8 \
	-o "$work/dup.json" >"$work/log" 2>&1
[ $? = 1 ] && [ ! -e "$work/dup.json" ] &&
	grep -qF "error: two tensors have the key 'gate/else_branch/h'" "$work/log"
check $? "two Ifs of one name with same-named branch tensors: refused naming the key"

"$QOPT" calibrate "$work/ifloop.onnx" --data "$work/ifloop.cal" --passes fp8 \
	-o "$work/il.json" >"$work/log" 2>&1
[ $? = 1 ] && [ ! -e "$work/il.json" ] && [ "$(wc -l <"$work/log")" = 1 ] &&
	grep -qF "tensor 'rx' is inside node 'alt' (If), an If in the body of node 'loop' (Loop)" "$work/log" &&
	! grep -q "ONNX Runtime" "$work/log"
check $? "an If inside a Loop body: refused naming both nodes, before ONNX Runtime runs"
"$QOPT" calibrate "$work/ifloop.onnx" --data "$work/ifloop.cal" \
	--passes fp8:exclude=alt_fc -o "$work/il.json" >"$work/log" 2>&1
check $? "... and calibrated once its layer is excluded"
exit $failed
