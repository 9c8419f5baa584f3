#!/bin/sh
# tests/cli/plan.sh - `qopt plan` on the torch test models (resnet_cnn:
# Convs and a Gemm; gpt2: MatMuls, 9 of them with constant weights):
# the plan meets its budget (--effective-bits, --max-loss); the INI it
# writes names its calibration file (beside it, relative) and `qopt -p`
# on it reproduces the model the plan measured byte for byte; on the
# held-out samples (.held) the plan is at least as close to the float
# model as every uniform setting that fits the same budget; a format a
# layer cannot hold falls back to the next one, said in the report, and
# to float only with a warning; bad input (unknown format, a budget
# below the cheapest format, no data, no plan possible) fails with exit
# 2 or 1 and writes nothing.
. "$top_srcdir/tests/ort/common.sh"

qopt_need_py_onnx
qopt_need_ort
qopt_workdir plan
qopt_calib_env
. "$top_srcdir/tests/cli/plan-lib.sh"
M="$top_srcdir/tests/torch/models"

echo "1..28"

plan() { "$QOPT" plan "$@" >"$work/log" 2>&1; }
# jq FILE EXPR: EXPR (Python, over the report j) printed.
jq() { "$py" -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
# held DATA FLOAT MODEL...: each model's score (output MSE over the float
# output's variance) against FLOAT over DATA, one per line.
held() {
	data=$1 float=$2
	shift 2
	plan_measure "$data" "$float" "$work/held.txt" "$@" &&
		tail -n +3 "$work/held.txt" | cut -d' ' -f1
}
# le A B: A <= B (B may be a score a hair above A for equal models)
le() { "$py" -c 'import sys; a, b = map(float, sys.argv[1:]); sys.exit(0 if a <= b * (1 + 1e-9) + 1e-12 else 1)' "$1" "$2"; }

# ---- resnet_cnn: fp8 or float per layer, 9 effective bits ----
R="$M/resnet_cnn.onnx"
mkdir -p "$work/r"
plan "$R" --data "$M/resnet_cnn.calib" --formats fp8,none \
	--effective-bits 9 -o "$work/r/p.ini" --json "$work/r/p.json" \
	--save-model "$work/r/p.onnx"
check $? "resnet_cnn: qopt plan --formats fp8,none --effective-bits 9 runs"
bits=$(jq "$work/r/p.json" 'j["effective_bits"]')
le "$bits" 9 && [ "$(jq "$work/r/p.json" 'len(j["layers"])')" = 12 ] &&
	[ "$(jq "$work/r/p.json" 'sum(l["chosen"] == "none" for l in j["layers"]) > 0')" = True ]
check $? "resnet_cnn: the plan meets the budget ($bits <= 9 effective bits over 12 layers) and keeps some layer in float"
[ -f "$work/r/p.calib.json" ] && grep -q '^calibration = p.calib.json$' "$work/r/p.ini" &&
	grep -q '^\[fp8\]$' "$work/r/p.ini" && grep -q '^#   /stem/stem.0/Conv (Conv, 432 params, [a-z]*): fp8 ' "$work/r/p.ini"
check $? "resnet_cnn: the INI names its calibration file, written beside it, by a relative path; each layer's scores are comments"
(cd / && "$QOPT" -q -p "$work/r/p.ini" "$R" -o "$work/r/again.onnx") >>"$work/log" 2>&1 &&
	cmp "$work/r/p.onnx" "$work/r/again.onnx" >>"$work/log" 2>&1
check $? "resnet_cnn: qopt -p PLAN.ini (from another folder) reproduces the plan's model byte for byte"
# the uniform setting within 9 bits: fp8 everywhere (8 bits)
"$QOPT" -q --passes "fp8:calibration=$work/r/p.calib.json" "$R" -o "$work/r/fp8.onnx" >>"$work/log" 2>&1
set -- $(held "$M/resnet_cnn.held" "$R" "$work/r/p.onnx" "$work/r/fp8.onnx")
[ $# = 2 ] && le "$1" "$2"
check $? "resnet_cnn: on the held-out samples the plan ($1) is at least as close to float as fp8 everywhere ($2)"
"$py" - "$work/r/p.json" >>"$work/log" 2>&1 <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
# solver check: the kept-float layers are those whose score per bit saved
# is largest; at least the predicted score is the sum of the chosen ones
s = sum(l["formats"][l["chosen"]]["score"] for l in j["layers"])
assert abs(s - j["predicted_score"]) <= 1e-9 * max(1, s), (s, j["predicted_score"])
assert j["measured_score"] is not None and j["ort_sessions"] == 12 + 1 + 2
PY
check $? "resnet_cnn: the report's predicted score is the sum of the chosen layers' scores; 15 ORT sessions (float, 12 candidates, plan + float)"

# --max-loss: the fewest bits whose summed score stays within X
half=$(jq "$work/r/p.json" 'sum(l["formats"]["fp8"]["score"] for l in j["layers"]) / 2')
plan "$R" --data "$M/resnet_cnn.calib" --formats fp8,none --max-loss "$half" \
	-o "$work/r/l.ini" --json "$work/r/l.json"
check $? "resnet_cnn: qopt plan --max-loss runs"
le "$(jq "$work/r/l.json" 'j["predicted_score"]')" "$half" &&
	[ "$(jq "$work/r/l.json" '8 < j["effective_bits"] < 16')" = True ]
check $? "resnet_cnn: --max-loss $half honoured with fewer bits than float"

# nvfp4 cannot take a Conv (TensorRT has none): it falls back to fp8
plan "$R" --data "$M/resnet_cnn.calib" --formats nvfp4,fp8 --effective-bits 16 \
	-o "$work/r/n.ini" --json "$work/r/n.json"
[ $? = 0 ] && [ "$(jq "$work/r/n.json" '[l["chosen"] for l in j["layers"] if l["op"] == "Conv"] == ["fp8"] * 11')" = True ] &&
	grep -q 'nvfp4 cannot hold it (TensorRT has no NVFP4 convolution' "$work/r/n.json"
check $? "resnet_cnn: a Conv falls back from nvfp4 to fp8, the reason in the report"
# with no format left it stays float, with a warning
plan "$R" --data "$M/resnet_cnn.calib" --formats nvfp4 --effective-bits 16 -o "$work/r/w.ini"
[ $? = 0 ] && grep -q "warning: layer '/stem/stem.0/Conv': no format of --formats holds it" "$work/log"
check $? "resnet_cnn: a layer no given format holds stays float with a warning, never silently"

# ---- gpt2: nvfp4, fp8 or float per MatMul weight ----
G="$M/gpt2.onnx"
mkdir -p "$work/g"
# the least bits: nvfp4 wherever it holds, fp8 elsewhere (uniform nvfp4)
plan "$G" --data "$M/gpt2.calib" --formats nvfp4,fp8 --max-loss 1e30 \
	-o "$work/g/u.ini" --json "$work/g/u.json" --save-model "$work/g/u.onnx"
check $? "gpt2: uniform nvfp4 (fp8 where nvfp4 cannot hold a weight) as a plan"
ubits=$(jq "$work/g/u.json" 'j["effective_bits"]')
plan "$G" --data "$M/gpt2.calib" --formats nvfp4,fp8,none --effective-bits 6 \
	-o "$work/g/p.ini" --json "$work/g/p.json" --save-model "$work/g/p.onnx"
check $? "gpt2: qopt plan --formats nvfp4,fp8,none --effective-bits 6 runs"
gbits=$(jq "$work/g/p.json" 'j["effective_bits"]')
le "$gbits" 6 && le "$ubits" 6
check $? "gpt2: the plan meets the budget ($gbits <= 6; uniform nvfp4 $ubits)"
grep -q '^\[nvfp4-weights\]$' "$work/g/p.ini" && grep -q '^mode = fake$' "$work/g/p.ini" &&
	"$QOPT" -q -p "$work/g/p.ini" "$G" -o "$work/g/again.onnx" >>"$work/log" 2>&1 &&
	cmp "$work/g/p.onnx" "$work/g/again.onnx" >>"$work/log" 2>&1
check $? "gpt2: the INI (nvfp4-weights in fake form after fp8) reproduces the plan's model byte for byte"
"$py" - "$work/g/again.onnx" "$work/g/p.json" >>"$work/log" 2>&1 <<'PY'
import json, sys, onnx
m = onnx.load(sys.argv[1])
j = json.load(open(sys.argv[2]))
prod = {o: n for n in m.graph.node for o in n.output}
inits = {t.name for t in m.graph.initializer}
byname = {n.name: n for n in m.graph.node}
for l in j["layers"]:
    n = byname[l["node"]]
    w = n.input[1]
    src = prod.get(w)
    # fp8: the weight behind one DequantizeLinear of FP8 codes; nvfp4
    # (fake) and none: a float initializer, nothing stacked on it
    if l["chosen"] == "fp8":
        assert src is not None and src.op_type == "DequantizeLinear", l["node"]
        assert src.input[0] in inits, l["node"]
    else:
        assert w in inits, (l["node"], l["chosen"])
PY
check $? "gpt2: passes in one pipeline keep to their own layers (fp8 layers behind one DQ, others plain initializers)"
set -- $(held "$M/gpt2.held" "$G" "$work/g/p.onnx" "$work/g/u.onnx")
[ $# = 2 ] && le "$1" "$2"
check $? "gpt2: on the held-out samples the plan ($1) is at least as close to float as uniform nvfp4 ($2)"

# hadamard+nvfp4: hadamard-rotate (fold = no) then nvfp4-weights on the
# layer; the measured score decides between it and plain nvfp4
plan "$G" --data "$M/gpt2.calib" --formats hadamard+nvfp4,nvfp4,fp8,none \
	--effective-bits 6 -o "$work/g/h.ini" --json "$work/g/h.json" \
	--save-model "$work/g/h.onnx" &&
	"$QOPT" -q -p "$work/g/h.ini" "$G" -o "$work/g/h2.onnx" >>"$work/log" 2>&1 &&
	cmp "$work/g/h.onnx" "$work/g/h2.onnx" >>"$work/log" 2>&1
check $? "gpt2: a plan offering hadamard+nvfp4 reproduces its model byte for byte"
"$py" - "$work/g/h.json" "$work/g/h.ini" >>"$work/log" 2>&1 <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
ini = open(sys.argv[2]).read()
both = 0
for l in j["layers"]:
    f = l["formats"]
    h, n = f["hadamard+nvfp4"], f["nvfp4"]
    if "score" not in h or "score" not in n:
        continue
    both += 1
    # of two formats of equal bits the solver takes the lower score
    if l["chosen"] in ("hadamard+nvfp4", "nvfp4"):
        assert f[l["chosen"]]["score"] == min(h["score"], n["score"]), l
assert both > 0
if any(l["chosen"] == "hadamard+nvfp4" for l in j["layers"]):
    assert ini.index("[hadamard-rotate]") < ini.index("[nvfp4-weights]")
    assert "fold = no" in ini
PY
check $? "gpt2: hadamard+nvfp4 measured per layer, taken where it scores lower than nvfp4, rotated before nvfp4-weights"

# ---- bad input ----
rm -f "$work/bad.ini"
plan "$R" --data "$M/resnet_cnn.calib" --formats fp8,fp9 --effective-bits 9 -o "$work/bad.ini"
[ $? = 2 ] && grep -q "unknown format 'fp9' in --formats" "$work/log" && [ ! -e "$work/bad.ini" ]
check $? "bad input: an unknown format is refused by name (exit 2)"
plan "$R" --data "$M/resnet_cnn.calib" --formats fp8,none --effective-bits 7 -o "$work/bad.ini"
[ $? = 2 ] && grep -q "effective-bits 7 is below the cheapest format given (8 bits)" "$work/log" && [ ! -e "$work/bad.ini" ]
check $? "bad input: a budget below the cheapest format is refused (exit 2)"
plan "$R" --data "$work/no-such" --formats fp8 --effective-bits 9 -o "$work/bad.ini"
[ $? = 1 ] && grep -q "no-such" "$work/log" && [ ! -e "$work/bad.ini" ]
check $? "bad input: a missing data folder is refused by name (exit 1)"
plan "$R" --formats fp8 --effective-bits 9 -o "$work/bad.ini"
[ $? = 2 ] && grep -q "data DIR is required" "$work/log" && [ ! -e "$work/bad.ini" ]
check $? "bad input: no --data (exit 2)"
plan "$R" --data "$M/resnet_cnn.calib" --formats nvfp4,fp8 --effective-bits 5 -o "$work/bad.ini"
# the cheapest plan: nvfp4 on the Gemm head, fp8 on every Conv (no
# report is written on this path, so the message says it)
[ $? = 1 ] && grep -q "no plan meets --effective-bits 5 with the formats these layers hold: the cheapest takes 7\.9[0-9]* bits (--verbose lists" "$work/log" && [ ! -e "$work/bad.ini" ]
check $? "bad input: a budget no plan meets (Convs fall back to fp8) fails (exit 1), says the cheapest plan's bits, nothing written"
plan "$R" --data "$M/resnet_cnn.calib" --formats nvfp4,fp8 --effective-bits 5 -v -o "$work/bad.ini"
[ $? = 1 ] && [ "$(grep -c "^qopt plan: layer '.*' ([0-9]* weights) holds: fp8\$" "$work/log")" = 11 ] &&
	grep -q "^qopt plan: layer '/fc/Gemm' (640 weights) holds: nvfp4, fp8\$" "$work/log"
check $? "... with --verbose, the formats each layer holds"
plan "$R" --data "$M/resnet_cnn.calib" --formats nvfp4,fp8 --max-loss 1e-12 -o "$work/bad.ini"
[ $? = 1 ] && grep -q "no plan meets --max-loss 1e-12 with the formats these layers hold: the lowest predicted loss is [0-9.e+-]* (--verbose lists" "$work/log" && [ ! -e "$work/bad.ini" ]
check $? "bad input: a --max-loss no plan meets (no none offered) fails (exit 1), says the lowest loss, nothing written"
# float by the solver's choice is no fallback: nvfp4 cannot hold the
# Convs, but fp8 could, so no "fell back to none" warning
plan "$R" --data "$M/resnet_cnn.calib" --formats nvfp4,fp8,none --effective-bits 9 -o "$work/choice.ini" --json "$work/choice.json"
[ $? = 0 ] && ! grep -q "fell back to none" "$work/log" &&
	[ "$(jq "$work/choice.json" 'sum(l["chosen"] == "none" and l["reason"].endswith("the solver\x27s choice") for l in j["layers"])')" = \
	  "$(jq "$work/choice.json" 'sum(l["chosen"] == "none" for l in j["layers"])')" ] &&
	[ "$(jq "$work/choice.json" 'sum(l["chosen"] == "none" for l in j["layers"])')" -gt 0 ]
check $? "a layer kept float though fp8 held it is the solver's choice, not a fallback (no warning)"
plan "$R" --data "$M/resnet_cnn.calib" --formats fp8 --effective-bits 9 -o /dev/null
[ $? = 2 ] && grep -q "o needs a file, not /dev/null" "$work/log"
check $? "bad input: -o /dev/null is refused (the INI names a file beside it) (exit 2)"
ls "$work/tmp" >"$work/log"
[ ! -s "$work/log" ]
check $? "no temporary folder left behind"

exit $failed
