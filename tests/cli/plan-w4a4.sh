#!/bin/sh
# tests/cli/plan-w4a4.sh - `qopt plan` with the format w4a4 (the pass
# nvfp4 with activations = yes, counted as nvfp4's 4.5 bits per weight).
# vit_sdpa, --formats w4a4,fp8,none: the plan meets its budget and holds
# every format; a Conv falls back from w4a4 with the pass's reason (the
# head Gemm, whose input's rank is inferred, holds it); the INI runs [fp8] first and [nvfp4] second, each with
# its calibration file beside it: fp8's for the input model's hash,
# w4a4's for the hash of the model [fp8] makes (measured on it); `qopt
# -p` reproduces the plan's model byte for byte, each layer in its
# format, and still runs with mode = real in [nvfp4]; a w4a4 file for another model (fp8's file put in its place, or
# an edit of [fp8]) is refused naming the file, nothing written. charlm,
# --formats w4a4,nvfp4,fp8,none: of the two 4.5-bit formats the solver
# takes the one that scores lower per layer; --formats w4a4 alone writes
# only w4a4's file, for the input model.
. "$top_srcdir/tests/ort/common.sh"

qopt_need_py_onnx
qopt_need_ort
qopt_workdir plan-w4a4
qopt_calib_env
. "$top_srcdir/tests/cli/plan-lib.sh"
M="$top_srcdir/tests/torch/models"
L="$top_srcdir/tests/torch/learned"

echo "1..22"

plan() { "$QOPT" plan "$@" >"$work/log" 2>&1; }
# jq FILE EXPR: EXPR (Python, over the JSON file j) printed.
jq() { "$py" -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
# hash MODEL PASSES: the model hash `qopt calibrate` names MODEL by (as
# the passes compare it), from one random sample.
hash() {
	mkdir -p "$work/ort-tmp"	# ORT's mat-debug files, not in $work/tmp
	TMPDIR="$work/ort-tmp" "$QOPT" calibrate "$1" --random 1 --passes "$2" -o "$work/h.json" >>"$work/log" 2>&1 &&
		jq "$work/h.json" 'j["model_hash"]'
}
le() { "$py" -c 'import sys; a, b = map(float, sys.argv[1:]); sys.exit(0 if a <= b * (1 + 1e-9) else 1)' "$1" "$2"; }

# ---- vit_sdpa: w4a4, fp8 or float per layer, 6.5 effective bits ----
V="$M/vit_sdpa.onnx"
D=$work/v
mkdir -p "$D"
plan "$V" --data "$M/vit_sdpa.calib" --formats w4a4,fp8,none \
	--effective-bits 6.5 -o "$D/p.ini" --json "$D/p.json" --save-model "$D/p.onnx"
r=$?
cp "$work/log" "$D/plan.log"
check $r "vit_sdpa: qopt plan --formats w4a4,fp8,none --effective-bits 6.5 runs"
bits=$(jq "$D/p.json" 'j["effective_bits"]')
le "$bits" 6.5 && [ "$(jq "$D/p.json" 'sorted({l["chosen"] for l in j["layers"]})')" = "['fp8', 'none', 'w4a4']" ]
check $? "vit_sdpa: the plan meets the budget ($bits <= 6.5 bits) and holds w4a4, fp8 and float layers"
"$py" - "$D/p.json" >>"$work/log" 2>&1 <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
by = {l["node"]: l for l in j["layers"]}
head, conv = by["/head/Gemm"], by["/patch/Conv"]
# the head Gemm's input A has its rank (inferred through the class
# token's Expand, tests/torch/vit-expand.sh): w4a4 holds it
assert "score" in head["formats"]["w4a4"] and head["formats"]["w4a4"].get("holds", True), head
assert "no NVFP4 convolution" in conv["formats"]["w4a4"]["why"] and conv["chosen"] != "w4a4", conv
# every MatMul holds w4a4 and was measured
assert all("score" in l["formats"]["w4a4"] for l in j["layers"] if l["op"] == "MatMul")
PY
check $? "vit_sdpa: the Conv falls back from w4a4 with the pass's reason; the head Gemm holds it"
"$py" - "$D/p.ini" >>"$work/log" 2>&1 <<'PY'
import sys
t = open(sys.argv[1]).read()
assert t.index("\n[fp8]\n") < t.index("\n[nvfp4]\n"), "fp8 first"
fp8 = t[t.index("\n[fp8]\n"):t.index("\n[nvfp4]\n")]
nv = t[t.index("\n[nvfp4]\n"):]
assert "\ncalibration = p.calib.json\n" in fp8, fp8
assert "\ncalibration = p.w4a4.calib.json\nactivations = yes\n" in nv, nv
assert all(len(l) <= 198 for l in t.split("\n"))
PY
[ $? = 0 ] && [ -f "$D/p.calib.json" ] && [ -f "$D/p.w4a4.calib.json" ] &&
	[ "$(jq "$D/p.json" 'j["calibration_files"]')" = "{'fp8': 'p.calib.json', 'w4a4': 'p.w4a4.calib.json'}" ]
check $? "vit_sdpa: the INI runs [fp8] then [nvfp4] (activations = yes), each naming its calibration file, written beside it"
(cd / && "$QOPT" -q --strict -p "$D/p.ini" "$V" -o "$D/again.onnx") >>"$work/log" 2>&1 &&
	cmp "$D/p.onnx" "$D/again.onnx" >>"$work/log" 2>&1
check $? "vit_sdpa: qopt --strict -p PLAN.ini (from another folder) reproduces the plan's model byte for byte"
# the two files' hashes: fp8's is the input model's; w4a4's is that of
# the model the INI's [fp8] step makes, built here from the INI cut
# before [nvfp4]
fh=$(hash "$V" fp8)
sed '/^\[nvfp4\]$/,$d' "$D/p.ini" >"$D/step.ini"
"$QOPT" -q -p "$D/step.ini" "$V" -o "$D/step.onnx" >>"$work/log" 2>&1
sh=$(hash "$D/step.onnx" nvfp4:activations=yes)
[ -n "$fh" ] && [ -n "$sh" ] && [ "$fh" != "$sh" ] &&
	[ "$(jq "$D/p.calib.json" 'j["model_hash"]')" = "$fh" ] &&
	[ "$(jq "$D/p.w4a4.calib.json" 'j["model_hash"]')" = "$sh" ]
check $? "vit_sdpa: fp8's file is for the input model ($fh), w4a4's for the model [fp8] makes ($sh)"
"$py" - "$D/again.onnx" "$D/p.json" >>"$work/log" 2>&1 <<'PY'
import json, sys, onnx
m = onnx.load(sys.argv[1])
j = json.load(open(sys.argv[2]))
prod = {o: n for n in m.graph.node for o in n.output}
inits = {t.name for t in m.graph.initializer}
byname = {n.name: n for n in m.graph.node}
def op(v):
    return prod[v].op_type if v in prod else None
for l in j["layers"]:
    n = byname[l["node"]]
    a, w = n.input[0], n.input[1]
    if l["chosen"] == "fp8":
        assert op(a) == "DequantizeLinear" and op(w) == "DequantizeLinear", l["node"]
    elif l["chosen"] == "w4a4":
        # the fake NVFP4 chain on the activation, the fake weight plain
        assert "_fp4" in a and op(a) not in (None, "DequantizeLinear"), (l["node"], a)
        assert w in inits, l["node"]
    else:
        assert "_fp4" not in a and op(a) != "DequantizeLinear" and w in inits, l["node"]
PY
[ $? = 0 ] && ! grep -q "w4a4 layers got a quantized activation" "$D/plan.log"
check $? "vit_sdpa: in the plan's model w4a4 layers read a fake NVFP4 chain, fp8 layers DequantizeLinear, float layers their float input"

# mode = real in [nvfp4] (TensorRT's form): fp8 ran first, so w4a4's
# file is still for the model nvfp4 receives
R=$work/real
mkdir -p "$R"
cp "$D/p.calib.json" "$D/p.w4a4.calib.json" "$R/" &&
	sed 's/^mode = fake$/mode = real/' "$D/p.ini" >"$R/p.ini" &&
	grep -q '^mode = real$' "$R/p.ini" &&
	"$QOPT" -q --strict -p "$R/p.ini" "$V" -o "$R/out.onnx" >>"$work/log" 2>&1 &&
	"$py" -c 'import onnx, sys; m = onnx.load(sys.argv[1]); assert any(n.op_type == "TRT_FP4DynamicQuantize" for n in m.graph.node)' "$R/out.onnx" >>"$work/log" 2>&1
check $? "vit_sdpa: with mode = real in [nvfp4] the INI still runs (TensorRT's W4A4 form), w4a4's file still for its model"

# ---- a calibration file for another model is refused ----
T=$work/t
mkdir -p "$T"
cp "$D/p.ini" "$D/p.calib.json" "$T/" && cp "$D/p.calib.json" "$T/p.w4a4.calib.json"
"$QOPT" -p "$T/p.ini" "$V" -o "$T/out.onnx" >"$work/log" 2>&1
r=$?
[ $r != 0 ] && grep -q "nvfp4: error: calibration file '[^']*p.w4a4.calib.json' is for model hash $fh, this model's is $sh" "$work/log" &&
	[ ! -e "$T/out.onnx" ]
check $? "tampered: fp8's file (the input model's) in place of w4a4's is refused naming the file (exit $r), nothing written"
cp "$D/p.w4a4.calib.json" "$T/"
"$py" - "$T/p.ini" >>"$work/log" 2>&1 <<'PY'
import sys
p = sys.argv[1]
t = open(p).read()
# [fp8] edited: its first include dropped (the layer then stays float)
i = t.index("\n[fp8]\n")
k = t.index("\ninclude = ", i) + 1
e = t.index("\n", k)
assert t[e + 1:].startswith("    "), "fp8 includes one layer"
t = t[:k] + "include = " + t[e + 1:].lstrip(" ")
open(p, "w").write(t)
PY
"$QOPT" -p "$T/p.ini" "$V" -o "$T/out.onnx" >"$work/log" 2>&1
r=$?
[ $r != 0 ] && grep -q "nvfp4: error: calibration file '[^']*p.w4a4.calib.json' is for model hash $sh" "$work/log" &&
	[ ! -e "$T/out.onnx" ]
check $? "tampered: after an edit of [fp8] w4a4's file is refused naming it (exit $r), nothing written"
sed 's/"model_hash": "[0-9a-f]*"/"model_hash": "0123456789abcdef"/' "$D/p.w4a4.calib.json" >"$T/p.w4a4.calib.json"
cp "$D/p.ini" "$T/"
"$QOPT" -p "$T/p.ini" "$V" -o "$T/out.onnx" >"$work/log" 2>&1
r=$?
[ $r != 0 ] && grep -q "calibration file '[^']*p.w4a4.calib.json' is for model hash 0123456789abcdef" "$work/log" &&
	[ ! -e "$T/out.onnx" ]
check $? "tampered: w4a4's file with another model's hash is refused naming it (exit $r), nothing written"

# ---- charlm: w4a4 beside nvfp4 (both 4.5 bits), fp8 and float ----
C=$work/c
mkdir -p "$C"
plan "$L/charlm.onnx" --data "$L/charlm.calib" --formats w4a4,nvfp4,fp8,none \
	--effective-bits 6 -o "$C/p.ini" --json "$C/p.json" --save-model "$C/p.onnx"
check $? "charlm: qopt plan --formats w4a4,nvfp4,fp8,none --effective-bits 6 runs"
bits=$(jq "$C/p.json" 'j["effective_bits"]')
le "$bits" 6 && "$QOPT" -q --strict -p "$C/p.ini" "$L/charlm.onnx" -o "$C/again.onnx" >>"$work/log" 2>&1 &&
	cmp "$C/p.onnx" "$C/again.onnx" >>"$work/log" 2>&1
check $? "charlm: the plan meets the budget ($bits <= 6) and its INI reproduces its model byte for byte"
"$py" - "$C/p.json" >>"$work/log" 2>&1 <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert len(j["layers"]) == 15
for l in j["layers"]:
    f = l["formats"]
    w, n = f["w4a4"]["score"], f["nvfp4"]["score"]
    # of two formats of equal bits the solver takes the lower score
    if l["chosen"] in ("w4a4", "nvfp4"):
        assert f[l["chosen"]]["score"] == min(w, n), l
PY
check $? "charlm: every MatMul measured in w4a4 and nvfp4; of the two (4.5 bits each) the plan takes the lower score"
# w4a4 alone: uniform w4a4 as a plan; its one file is for the input model
plan "$L/charlm.onnx" --data "$L/charlm.calib" --formats w4a4 --max-loss 1e30 \
	-o "$C/u.ini" --json "$C/u.json" --save-model "$C/u.onnx"
check $? "charlm: qopt plan --formats w4a4 (uniform w4a4) runs"
[ "$(jq "$C/u.json" '{l["chosen"] for l in j["layers"]} == {"w4a4"} and j["effective_bits"] == 4.5')" = True ] &&
	[ ! -e "$C/u.calib.json" ] && ! grep -q '^\[fp8\]$' "$C/u.ini" &&
	[ "$(jq "$C/u.json" 'j["calibration_files"]')" = "{'w4a4': 'u.w4a4.calib.json'}" ] &&
	grep -q '^calibration = u.w4a4.calib.json$' "$C/u.ini" &&
	[ "$(jq "$C/u.w4a4.calib.json" 'j["model_hash"]')" = "$(hash "$L/charlm.onnx" nvfp4:activations=yes)" ] &&
	"$QOPT" -q --strict -p "$C/u.ini" "$L/charlm.onnx" -o "$C/u2.onnx" >>"$work/log" 2>&1 &&
	cmp "$C/u.onnx" "$C/u2.onnx" >>"$work/log" 2>&1
check $? "charlm: every layer w4a4 (4.5 bits); only w4a4's file, for the input model's hash; the INI reproduces the model"

# charlm's perplexity (docs/plan.md): the w4a4,fp8,none plan at 6 bits
# against uniform w4a4 (above) and the uniform mixes of fewer bits, built
# in one command (fp8 calibrated on the model, w4a4 on fp8's output)
plan "$L/charlm.onnx" --data "$L/charlm.calib" --formats w4a4,fp8,none \
	--effective-bits 6 -o "$C/w6.ini" --json "$C/w6.json" --save-model "$C/w6.onnx"
check $? "charlm: qopt plan --formats w4a4,fp8,none --effective-bits 6 runs ($(jq "$C/w6.json" '"%.4f bits" % j["effective_bits"]'))"
att='/blocks.*/q/MatMul;/blocks.*/k/MatMul;/blocks.*/v/MatMul;/blocks.*/o/MatMul'
mlp='/blocks.*/gate/MatMul;/blocks.*/up/MatMul;/blocks.*/down/MatMul'
W4=nvfp4:activations=yes:mode=fake:min_size=0
mkdir -p "$work/ort-tmp"
mix() {
	TMPDIR="$work/ort-tmp" "$QOPT" -q --passes "$2" "$L/charlm.onnx" --calibration-data "$L/charlm.calib" \
		-o "$C/$1.onnx" >>"$work/log" 2>&1
}
# w4a4 but the head fp8 (4.74 bits); w4a4 on the MLPs, fp8 on attention
# and the head (6.05 bits)
mix w4h8 "fp8:include=/head/MatMul,$W4:include=$att;$mlp" &&
	mix mlp4 "fp8:include=$att;/head/MatMul,$W4:include=$mlp"
check $? "charlm: the uniform mixes of w4a4 and fp8 build"
TMPDIR="$work/ort-tmp" qopt_node "$L/eval.js" charlm "$L" "$L/charlm.onnx" "$C/w6.onnx" \
	"$C/u.onnx" "$C/w4h8.onnx" "$C/mlp4.onnx" >"$C/eval.json" 2>>"$work/log" &&
	"$py" - "$C/eval.json" >"$C/eval.txt" 2>>"$work/log" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
f, p, *u = [m["ppl"] for m in j["models"]]
print("float %.4f, plan %.4f, uniform w4a4 %.4f, w4a4 + fp8 head %.4f, "
      "w4a4 MLPs + fp8 %.4f" % (f, p, *u))
# no worse than each (0.1%% of perplexity, as tests/torch/learned/plan.sh)
assert all(p <= x * 1.001 for x in u), (p, u)
PY
r=$?
echo "# charlm perplexity over $(jq "$C/eval.json" 'j["n"]') windows: $(cat "$C/eval.txt")"
check $r "charlm: the plan's perplexity is no worse than uniform w4a4 (4.5 bits) and the mixes of 4.74 and 6.05 bits"

# ---- bad input ----
plan "$L/charlm.onnx" --data "$L/charlm.calib" --formats w4a4,fp8 --effective-bits 4 -o "$work/bad.ini"
[ $? = 2 ] && grep -q "effective-bits 4 is below the cheapest format given (4.5 bits)" "$work/log" && [ ! -e "$work/bad.ini" ]
check $? "bad input: a budget below w4a4's 4.5 bits is refused (exit 2)"
plan "$L/charlm.onnx" --data "$L/charlm.calib" --formats w4a4,w4a4 --effective-bits 5 -o "$work/bad.ini"
[ $? = 2 ] && grep -q "format 'w4a4' given twice" "$work/log" && [ ! -e "$work/bad.ini" ]
check $? "bad input: w4a4 given twice is refused (exit 2)"
ls "$work/tmp" >"$work/log"
[ ! -s "$work/log" ]
check $? "no temporary folder left behind"

exit $failed
