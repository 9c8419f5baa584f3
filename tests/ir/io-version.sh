#!/bin/sh
# tests/ir/io-version.sh - an IR version newer than qopt knows (99): it
# was accepted without a word (`qopt verify` said ok) and written back
# as 99, which ONNX Runtime refuses. Now qopt warns on load, as for an
# opset newer than it knows, and writes the newest IR version it knows;
# ORT loads the output. The input is never touched.
. "$top_srcdir/tests/ort/common.sh"
qopt_need_py_onnx
qopt_workdir io-version
cd "$work" || exit 1

"$py" - <<'PY' >"$work/log" 2>&1
import onnx
from onnx import helper, TensorProto
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                      "g", [x], [y])
for ir, name in ((99, "ir99.onnx"), (8, "ir8.onnx")):
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = ir
    open(name, "wb").write(m.SerializeToString())
PY
check $? "models with IR versions 99 and 8 written"
cp ir99.onnx ir99.orig

"$QOPT" verify ir99.onnx >"$work/out" 2>"$work/log"
st=$?
grep -q "ir99.onnx: warning: the model's IR version 99 is newer than the newest this qopt knows" "$work/log"
check $(( st != 0 || $? )) "qopt verify: exit 0, with a warning naming the file and IR 99"

"$QOPT" ir99.onnx -o out.onnx >"$work/err" 2>&1
st=$?
known=$(sed -n "s/.*newer than the newest this qopt knows (\([0-9]*\)).*/\1/p" "$work/err")
grep -q "an output is written as IR $known" "$work/err" 2>/dev/null
check $(( st != 0 || $? )) "the round trip says it writes IR $known"
got=$("$py" -c 'import onnx, sys; print(onnx.load(sys.argv[1]).ir_version)' out.onnx 2>"$work/log")
echo "# written: IR $got, newest known: $known" >"$work/log"
check $([ -n "$known" ] && [ "$got" = "$known" ]; echo $?) "the output is IR $known, not 99"
cmp -s ir99.onnx ir99.orig
check $? "the input is untouched"

"$QOPT" ir8.onnx -o out8.onnx >"$work/err" 2>&1
st=$?
got=$("$py" -c 'import onnx, sys; print(onnx.load(sys.argv[1]).ir_version)' out8.onnx 2>"$work/log")
check $(( st != 0 )) "a known IR version (8) loads and saves"
check $([ "$got" = 8 ] && ! grep -q "IR version" "$work/err"; echo $?) \
	"IR 8 is kept, without a warning"

if [ -n "$(qopt_ort_missing)" ]; then
	n=$((n + 1)); echo "ok $n - ONNX Runtime loads the output # SKIP $(qopt_ort_missing)"
else
	qopt_node -e '
const ort = require("onnxruntime-node");
ort.InferenceSession.create(process.argv[1]).then(() => process.exit(0),
	(e) => { console.error(String(e)); process.exit(1); });' out.onnx >"$work/log" 2>&1
	check $? "ONNX Runtime loads the output"
fi
echo "1..$n"
exit $failed
