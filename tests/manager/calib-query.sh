#!/bin/sh
# tests/manager/calib-query.sh - `qopt calibrate` asks the passes of a pipeline
# what to measure (calibration_targets, ABI 3.0): a test plugin's pass
# asking for one named tensor gets exactly it measured, through
# --passes or -p; fp8-mha's include/exclude/op_types narrow what it
# asks for; a pipeline without such a pass, a failing query or one that
# changes the model is an error; qopt_want_range() outside the query
# answers QOPT_EUSAGE.
. "$top_srcdir/tests/ort/common.sh"

qopt_need_py_onnx
qopt_need_ort
qopt_workdir calib-query
mkdir -p "$work/tmp"
TMPDIR="$work/tmp"
QOPT_NODE=$NODE
QOPT_CALIBRATE_ORT="$top_builddir/tools/qopt-calibrate-ort"
export TMPDIR QOPT_NODE QOPT_CALIBRATE_ORT
PL="$top_builddir/tests/plugins/.libs"
L="--load $PL/calib-one.so"
"$top_builddir/tests/lib/mkmodel" "$work/m.onnx" ||
	{ echo "Bail out! tests/lib/mkmodel"; exit 1; }
"$py" "$top_srcdir/tests/cli/calib-gen.py" model exact "$work/exact.onnx" ||
	{ echo "Bail out! calib-gen.py"; exit 1; }

echo "1..14"

# names FILE: the measured tensors' names, sorted, on one line.
names() {
	"$py" -c 'import json, sys
print(" ".join(sorted(json.load(open(sys.argv[1]))["tensors"])))' "$1"
}
cal() { "$QOPT" calibrate "$@" >"$work/log" 2>&1; }

cal "$work/m.onnx" --random 2 $L --passes t-calib-one:tensor=A \
	-o "$work/a.json"
[ $? = 0 ] && [ "$(names "$work/a.json")" = "A" ]
check $? "calibrate --passes: exactly the tensor the pass asks for is measured"

printf '[t-calib-one]\ntensor = B\n' >"$work/b.ini"
cal "$work/m.onnx" --random 2 $L -p "$work/b.ini" -o "$work/b.json"
[ $? = 0 ] && [ "$(names "$work/b.json")" = "B" ]
check $? "calibrate -p FILE: the pass's options come from the file"

cal "$work/m.onnx" --random 2 $L --passes 't-calib-one:tensor=A,t-calib-one:tensor=B,t-calib-one:tensor=A' \
	-o "$work/ab.json"
[ $? = 0 ] && [ "$(names "$work/ab.json")" = "A B" ]
check $? "calibrate: every pass of the pipeline is asked, a tensor asked twice measured once"

cal "$work/exact.onnx" --random 2 -o "$work/all.json"
cal "$work/exact.onnx" --random 2 --passes fp8-mha -o "$work/fp8.json"
[ $? = 0 ] && [ -n "$(names "$work/all.json")" ] &&
	[ "$(names "$work/all.json")" = "$(names "$work/fp8.json")" ]
check $? "calibrate: the default pipeline is fp8-mha"

# exact.onnx: x -> MatMul fc1, a1 -> Gemm fc2, a2 -> MatMul fc3.
cal "$work/exact.onnx" --random 2 --passes "fp8-mha:exclude=fc1" -o "$work/ex.json"
[ $? = 0 ] && [ "$(names "$work/all.json")" = "a1 a2 x" ] &&
	[ "$(names "$work/ex.json")" = "a1 a2" ]
check $? "calibrate: fp8-mha's exclude (a node name) leaves out that node's inputs"

cal "$work/exact.onnx" --random 2 --passes "fp8-mha:op_types=Gemm" -o "$work/gemm.json"
[ $? = 0 ] && [ "$(names "$work/gemm.json")" = "a1" ]
check $? "calibrate: fp8-mha's op_types names the operators measured"

cal "$work/exact.onnx" --random 2 --passes "fp8-mha:include=nothing*" -o "$work/inc.json"
[ $? = 1 ] && grep -q "qopt: fp8-calibrate-place: calibration: no MatMul, Gemm or Conv with a non-constant float input selected by include/exclude/op_types" "$work/log" &&
	grep -q "the pipeline's passes ask for no tensor" "$work/log" && [ ! -e "$work/inc.json" ]
check $? "calibrate: include matching nothing asks for nothing, and says so"

cal "$work/m.onnx" --random 2 --passes infer-shapes -o "$work/none.json"
[ $? = 2 ] && grep -q "no pass of the pipeline (--passes) reads a calibration file" "$work/log"
check $? "calibrate: a pipeline without a pass that reads calibration is a usage error"

cal "$work/m.onnx" --random 2 $L --passes t-calib-one:misbehave=mutate -o "$work/mut.json"
[ $? = 1 ] && grep -q "qopt: t-calib-one: error: changed the model while asking" "$work/log" &&
	[ ! -e "$work/mut.json" ]
check $? "calibrate: a query that changes the model fails, naming the pass"

cal "$work/m.onnx" --random 2 $L --passes t-calib-one:tensor=nope -o "$work/nope.json"
[ $? = 1 ] && grep -q "t-calib-one: error: no value 'nope'" "$work/log" &&
	grep -q "t-calib-one: error: asking which tensors to calibrate failed" "$work/log"
check $? "calibrate: a failing query fails the command with the pass's message"

for how in foreign freed; do
	cal "$work/m.onnx" --random 2 $L --passes t-calib-one:misbehave=$how -o "$work/$how.json"
	[ $? = 1 ] && grep -q "t-calib-one: error: qopt_want_range() was given a value that is not one of the model being calibrated" "$work/log" &&
		grep -q "t-calib-one: error: pass misused the qopt API" "$work/log" &&
		[ ! -e "$work/$how.json" ]
	check $? "calibrate: a value of another model ($how) is refused, failing the query"
done

cal "$work/m.onnx" --random 2 --passes no-such-pass -o "$work/x.json"
[ $? = 2 ] && grep -q "unknown pass 'no-such-pass'" "$work/log"
check $? "calibrate: an unknown pass is a usage error as in the main command"

"$QOPT" $L --passes t-calib-one "$work/m.onnx" --dry-run >"$work/log" 2>&1
[ $? = 0 ] && grep -q "qopt_want_range outside calibration_targets: 6 (" "$work/log"
check $? "qopt_want_range() outside calibration_targets answers QOPT_EUSAGE"

exit $failed
