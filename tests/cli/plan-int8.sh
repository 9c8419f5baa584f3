#!/bin/sh
# tests/cli/plan-int8.sh - `qopt plan` with the format int8 (the pass
# int8: TensorRT's explicit INT8, 8 bits per weight, for GPUs without
# FP8). mixed (tests/passes/fp8/int8-gen.py: one MatMul INT8 holds
# better, one whose weight has an outlier row that only FP8 holds),
# --formats int8,fp8,none at 8 bits: the plan meets its budget and takes
# int8 for one layer, fp8 for the other; the INI runs [fp8] then [int8],
# each with its calibration file beside it: fp8's for the input model's
# hash, int8's for the hash of the model [fp8] makes (measured on it);
# `qopt -p` reproduces the plan's model byte for byte, each layer in its
# format; int8's file swapped for fp8's is refused naming it.
# resnet_cnn, --formats int8,none (an Ampere plan): only [int8], its
# file for the input model, the INI reproduces the model. Bad input.
. "$top_srcdir/tests/ort/common.sh"

qopt_need_py_onnx
qopt_need_ort
qopt_workdir plan-int8
qopt_calib_env
. "$top_srcdir/tests/cli/plan-lib.sh"
M="$top_srcdir/tests/torch/models"
gen() { "$py" "$top_srcdir/tests/passes/fp8/int8-gen.py" "$@" ||
	{ echo "Bail out! int8-gen.py $*"; exit 1; }; }

echo "1..12"

plan() { "$QOPT" plan "$@" >"$work/log" 2>&1; }
jq() { "$py" -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
hash() {
	mkdir -p "$work/ort-tmp"
	TMPDIR="$work/ort-tmp" "$QOPT" calibrate "$1" --random 1 --passes "$2" -o "$work/h.json" >>"$work/log" 2>&1 &&
		jq "$work/h.json" 'j["model_hash"]'
}
le() { "$py" -c 'import sys; a, b = map(float, sys.argv[1:]); sys.exit(0 if a <= b * (1 + 1e-9) else 1)' "$1" "$2"; }

# ---- mixed: int8 and fp8 in one plan ----
X=$work/mixed.onnx D=$work/m
mkdir -p "$D"
gen model mixed "$X"
gen samples mixed "$work/mixed.cal" 6 1
plan "$X" --data "$work/mixed.cal" --formats int8,fp8,none --effective-bits 8 \
	-o "$D/p.ini" --json "$D/p.json" --save-model "$D/p.onnx"
check $? "mixed: qopt plan --formats int8,fp8,none --effective-bits 8 runs"
bits=$(jq "$D/p.json" 'j["effective_bits"]')
le "$bits" 8 && [ "$(jq "$D/p.json" '[(l["node"], l["chosen"]) for l in j["layers"]]')" = "[('mm1', 'int8'), ('mm2', 'fp8')]" ]
check $? "mixed: the plan meets the budget ($bits <= 8 bits): mm1 int8, mm2 (its outlier row) fp8"
"$py" - "$D/p.ini" >>"$work/log" 2>&1 <<'PY'
import sys
t = open(sys.argv[1]).read()
assert t.index("\n[fp8]\n") < t.index("\n[int8]\n"), "fp8 first"
fp8 = t[t.index("\n[fp8]\n"):t.index("\n[int8]\n")]
i8 = t[t.index("\n[int8]\n"):]
assert "\ncalibration = p.calib.json\ninclude = node=mm2\n" in fp8, fp8
assert "\ncalibration = p.int8.calib.json\ninclude = node=mm1\n" in i8, i8
PY
[ $? = 0 ] && [ -f "$D/p.calib.json" ] && [ -f "$D/p.int8.calib.json" ] &&
	[ "$(jq "$D/p.json" 'j["calibration_files"]')" = "{'fp8': 'p.calib.json', 'int8': 'p.int8.calib.json'}" ]
check $? "mixed: the INI runs [fp8] then [int8], each naming its calibration file, written beside it"
(cd / && "$QOPT" -q --strict -p "$D/p.ini" "$X" -o "$D/again.onnx") >>"$work/log" 2>&1 &&
	cmp "$D/p.onnx" "$D/again.onnx" >>"$work/log" 2>&1
check $? "mixed: qopt --strict -p PLAN.ini (from another folder) reproduces the plan's model byte for byte"
fh=$(hash "$X" fp8)
sed '/^\[int8\]$/,$d' "$D/p.ini" >"$D/step.ini"
"$QOPT" -q -p "$D/step.ini" "$X" -o "$D/step.onnx" >>"$work/log" 2>&1
sh=$(hash "$D/step.onnx" int8)
[ -n "$fh" ] && [ -n "$sh" ] && [ "$fh" != "$sh" ] &&
	[ "$(jq "$D/p.calib.json" 'j["model_hash"]')" = "$fh" ] &&
	[ "$(jq "$D/p.int8.calib.json" 'j["model_hash"]')" = "$sh" ]
check $? "mixed: fp8's file is for the input model ($fh), int8's for the model [fp8] makes ($sh)"
"$py" - "$D/again.onnx" >>"$work/log" 2>&1 <<'PY'
import sys, onnx
m = onnx.load(sys.argv[1])
prod = {o: n for n in m.graph.node for o in n.output}
inits = {t.name: t for t in m.graph.initializer}
by = {n.name: n for n in m.graph.node}
def code_type(node):
    dq = prod[by[node].input[1]]
    assert dq.op_type == "DequantizeLinear", node
    assert prod[by[node].input[0]].op_type == "DequantizeLinear", node
    return inits[dq.input[0]].data_type
assert code_type("mm1") == 3, "mm1 INT8"
assert code_type("mm2") == 17, "mm2 FLOAT8E4M3FN"
PY
check $? "mixed: in the plan's model mm1 reads INT8 codes, mm2 FP8 codes, both inputs behind a DequantizeLinear"
T=$work/t
mkdir -p "$T"
cp "$D/p.ini" "$D/p.calib.json" "$T/" && cp "$D/p.calib.json" "$T/p.int8.calib.json"
"$QOPT" -p "$T/p.ini" "$X" -o "$T/out.onnx" >"$work/log" 2>&1
r=$?
[ $r != 0 ] && grep -q "int8: error: calibration file '[^']*p.int8.calib.json' is for model hash $fh, this model's is $sh" "$work/log" &&
	[ ! -e "$T/out.onnx" ]
check $? "tampered: fp8's file (the input model's) in place of int8's is refused naming the file (exit $r), nothing written"

# ---- resnet_cnn: an Ampere plan, int8 or float ----
R=$M/resnet_cnn.onnx A=$work/a
mkdir -p "$A"
plan "$R" --data "$M/resnet_cnn.calib" --formats int8,none --effective-bits 10 \
	-o "$A/p.ini" --json "$A/p.json" --save-model "$A/p.onnx"
check $? "resnet_cnn: qopt plan --formats int8,none --effective-bits 10 runs"
bits=$(jq "$A/p.json" 'j["effective_bits"]')
le "$bits" 10 && [ "$(jq "$A/p.json" 'sorted({l["chosen"] for l in j["layers"]})')" = "['int8', 'none']" ] &&
	! grep -q '^\[fp8\]$' "$A/p.ini" && [ ! -e "$A/p.calib.json" ] &&
	[ "$(jq "$A/p.json" 'j["calibration_files"]')" = "{'int8': 'p.int8.calib.json'}" ] &&
	[ "$(jq "$A/p.int8.calib.json" 'j["model_hash"]')" = "$(hash "$R" int8)" ] &&
	"$QOPT" -q --strict -p "$A/p.ini" "$R" -o "$A/again.onnx" >>"$work/log" 2>&1 &&
	cmp "$A/p.onnx" "$A/again.onnx" >>"$work/log" 2>&1
check $? "resnet_cnn: the plan meets the budget ($bits <= 10), int8 and float layers, only int8's file (the input model's), the INI reproduces the model"

# ---- bad input ----
plan "$R" --data "$M/resnet_cnn.calib" --formats int8,int8 --effective-bits 9 -o "$work/bad.ini"
[ $? = 2 ] && grep -q "format 'int8' given twice" "$work/log" && [ ! -e "$work/bad.ini" ]
check $? "bad input: int8 given twice is refused (exit 2)"
plan "$R" --data "$M/resnet_cnn.calib" --formats int8 --effective-bits 7 -o "$work/bad.ini"
[ $? = 2 ] && grep -q "effective-bits 7 is below the cheapest format given (8 bits)" "$work/log" && [ ! -e "$work/bad.ini" ]
check $? "bad input: a budget below int8's 8 bits is refused (exit 2)"
ls "$work/tmp" >"$work/log"
[ ! -s "$work/log" ]
check $? "no temporary folder left behind"
exit $failed
