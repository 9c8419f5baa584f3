#!/bin/sh
# tests/cli/plan-autocast.sh - `qopt plan --autocast float16` and
# `--max-float-layers N` (issue 41): TensorRT 11 builds strongly typed
# networks, so a plan's none layers and the rest of the model compute in
# the model's type. The INI ends with [autocast] (to = T) and
# [cast-fold]; `qopt -p` reproduces the plan's model, which the strong
# typing check finds FLOAT16 throughout with no island; the bound takes
# the float layers that add the least score off none and keeps the
# budget; bad values are usage errors.
. "$top_srcdir/tests/ort/common.sh"

qopt_need_py_onnx
qopt_need_ort
qopt_workdir plan-autocast
qopt_calib_env
M="$top_srcdir/tests/torch/models"
X=$M/resnet_cnn.onnx

echo "1..11"
plan() { "$QOPT" plan "$@" >"$work/log" 2>&1; }
jq() { "$py" -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

plan "$X" --data "$M/resnet_cnn.calib" --formats fp8,none --effective-bits 10 \
	--autocast float16 -o "$work/p.ini" --json "$work/p.json" \
	--save-model "$work/p.onnx"
rc=$?
nfloat=$(jq "$work/p.json" 'sum(1 for l in j["layers"] if l["chosen"] == "none")' 2>>"$work/log")
[ $rc = 0 ] && [ "${nfloat:-0}" -gt 1 ] &&
	grep -q "^\[autocast\]$" "$work/p.ini" && grep -q "^to = float16$" "$work/p.ini" &&
	grep -q "^\[cast-fold\]$" "$work/p.ini" &&
	grep -q "^# kept in float (none: float16):" "$work/p.ini"
check $? "--autocast float16: the INI ends with [autocast] to = float16 and [cast-fold] ($nfloat layers none)"
[ "$(jq "$work/p.json" 'j["autocast"]')" = float16 ]
check $? "... the report names it"
(cd / && "$QOPT" -q --strict -p "$work/p.ini" "$X" -o "$work/again.onnx") >>"$work/log" 2>&1 &&
	cmp "$work/p.onnx" "$work/again.onnx" >>"$work/log" 2>&1
check $? "... qopt -p PLAN.ini reproduces the plan's model byte for byte"
"$QOPT" --strict --passes typecheck:expect=float16 --dry-run "$work/p.onnx" \
	>"$work/tc.log" 2>&1 && grep -q "0 FLOAT islands" "$work/tc.log" &&
	! grep -q "FLOAT [0-9]* node(s)" "$work/tc.log"
check $? "... the plan's model computes in FLOAT16 throughout, no island (typecheck --strict)"
cos=$(jq "$work/p.json" 'j["measured_cosine"]' 2>>"$work/log")
"$py" -c 'import sys; sys.exit(0 if float(sys.argv[1]) > 0.999 else 1)' "${cos:-0}"
check $? "... measured in ORT at disabled (FP8 Conv in FLOAT16): cosine $cos"

plan "$X" --data "$M/resnet_cnn.calib" --formats fp8,none --effective-bits 10 \
	--autocast float16 --max-float-layers 2 -o "$work/b.ini" --json "$work/b.json"
rc=$?
n2=$(jq "$work/b.json" 'sum(1 for l in j["layers"] if l["chosen"] == "none")' 2>>"$work/log")
bits=$(jq "$work/b.json" 'j["effective_bits"]' 2>>"$work/log")
forced=$(jq "$work/b.json" 'j["forced_off_float"]' 2>>"$work/log")
[ $rc = 0 ] && [ "$n2" = 2 ] && [ "$forced" = $((nfloat - 2)) ] &&
	"$py" -c 'import sys; sys.exit(0 if float(sys.argv[1]) <= 10 else 1)' "$bits" &&
	grep -q "^# --max-float-layers 2: 2 layers float, $forced taken off none by the bound" "$work/b.ini"
check $? "--max-float-layers 2: 2 layers none ($forced taken off), within the budget ($bits bits)"
# the layers the bound kept float are the ones whose fp8 score is largest
"$py" - "$work/p.json" "$work/b.json" >>"$work/log" 2>&1 <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
was = [l for l in a["layers"] if l["chosen"] == "none"]
kept = sorted(l["node"] for l in b["layers"] if l["chosen"] == "none")
want = sorted(l["node"] for l in sorted(was, key=lambda l: l["formats"]["fp8"]["score"])[-2:])
assert kept == want, (kept, want)
PY
check $? "... keeping the two whose fp8 score is largest"
# the bound's two failures: layers no listed format holds (nvfp4 holds
# no Conv) are more than N; under --max-loss the bound breaks the budget
plan "$X" --data "$M/resnet_cnn.calib" --formats nvfp4,none --effective-bits 16 \
	--max-float-layers 0 -o "$work/x.ini"
[ $? = 1 ] && grep -q "no plan keeps at most 0 layers float: [0-9]* layers no listed format holds stay float" \
	"$work/log" && [ ! -e "$work/x.ini" ]
check $? "--max-float-layers 0 with layers no format holds: exit 1, said, nothing written"
plan "$X" --data "$M/resnet_cnn.calib" --formats fp8,none --max-loss 1e-9 \
	--max-float-layers 0 -o "$work/x.ini"
[ $? = 1 ] && grep -q "within --max-loss 1.0000000000000001e-09: the bound alone makes the summed score" \
	"$work/log" && [ ! -e "$work/x.ini" ]
check $? "--max-float-layers under a --max-loss it breaks: exit 1, said, nothing written"
plan "$X" --data "$M/resnet_cnn.calib" --formats fp8,none --effective-bits 10 \
	--autocast float8 -o "$work/x.ini"
[ $? = 2 ] && grep -q "autocast takes float16 or bfloat16, got 'float8'" "$work/log" &&
	[ ! -e "$work/x.ini" ]
check $? "--autocast float8: usage error, exit 2, nothing written"
plan "$X" --data "$M/resnet_cnn.calib" --formats fp8,none --effective-bits 10 \
	--max-float-layers -1 -o "$work/x.ini"
[ $? = 2 ] && grep -q "max-float-layers takes a count from 0, got '-1'" "$work/log" &&
	[ ! -e "$work/x.ini" ]
check $? "--max-float-layers -1: usage error, exit 2, nothing written"
[ "$failed" = 0 ]
