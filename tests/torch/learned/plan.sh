#!/bin/sh
# tests/torch/learned/plan.sh - `qopt plan` on the models with learned
# weights (tests/torch/learned): plans from the calibration samples
# (.calib), measured on the held-out evaluation sets with eval.js
# (charlm's perplexity, shapes_cnn's top-1). Each plan meets its budget
# and its INI reproduces its model byte for byte (under --strict: the
# INI excludes the layers it leaves out); its model is no worse
# (0.1% of perplexity, one image of 500) than every uniform setting of
# equal or fewer effective bits, and than the uniform settings of more
# bits that it beats here (docs/plan.md, "Models with learned weights").
# shapes_cnn offers NVFP4 only on its Gemm head (TensorRT has no NVFP4
# convolution), so budgets of 5.5 and 6 bits fail with exit 1.
. "$top_srcdir/tests/ort/common.sh"
qopt_need_ort
qopt_need_py_onnx
qopt_workdir learned-plan
qopt_calib_env
. "$top_srcdir/tests/cli/plan-lib.sh"
L="$top_srcdir/tests/torch/learned"
W=$work
NV=nvfp4-weights:mode=fake:min_size=0

# plan MODEL NAME FORMATS BITS: qopt plan into $W/NAME.{ini,json,onnx};
# checks it meets the budget and that `qopt -p` (from another folder)
# rebuilds its model byte for byte.
plan() {
	"$QOPT" plan "$L/$1.onnx" --data "$L/$1.calib" --formats "$3" \
		--effective-bits "$4" -o "$W/$2.ini" --json "$W/$2.json" \
		--save-model "$W/$2.onnx" >"$work/log" 2>&1 &&
	"$py" -c 'import json, sys; j = json.load(open(sys.argv[1]))
assert j["effective_bits"] <= float(sys.argv[2]), j["effective_bits"]
assert j["measured_score"] is not None' "$W/$2.json" "$4" >>"$work/log" 2>&1
	check $? "$1: qopt plan --formats $3 --effective-bits $4 meets its budget ($("$py" -c 'import json, sys; print("%.4f" % json.load(open(sys.argv[1]))["effective_bits"])' "$W/$2.json" 2>/dev/null) bits)"
	(cd / && "$QOPT" -q --strict -p "$W/$2.ini" "$L/$1.onnx" -o "$W/$2.again.onnx") \
		>>"$work/log" 2>&1 && cmp "$W/$2.onnx" "$W/$2.again.onnx" >>"$work/log" 2>&1
	check $? "$1: qopt --strict -p $2.ini reproduces the plan's model byte for byte"
}
# uniform NAME MODEL PASSES: a uniform setting, built by qopt.
uniform() {
	"$QOPT" -q --passes "$3" "$L/$2.onnx" -o "$W/$1.onnx" >>"$work/log" 2>&1
}
# compare KIND "PLAN UNIFORM..."...: reads $W/KIND.eval (eval.js) and
# writes to $W/KIND.cmp one "STATUS|DESCRIPTION" line per claim that
# PLAN is no worse than UNIFORM.
compare() {
	k=$1
	shift
	"$py" - "$W/$k.eval" "$k" "$@" <<'PY' >"$W/$k.cmp" 2>"$work/log"
import json, sys
j = json.load(open(sys.argv[1]))
kind = sys.argv[2]
m = {x["model"].rsplit("/", 1)[-1][:-5]: x for x in j["models"]}
for line in sys.argv[3:]:
    p, *us = line.split()
    for u in us:
        if kind == "charlm":
            a, b = m[p]["ppl"], m[u]["ppl"]
            ok = a <= b * 1.001
            what = "perplexity %.4f <= %.4f" % (a, b)
        else:
            a, b = m[p]["top1"], m[u]["top1"]
            ok = a >= b - 1.0 / j["n"]
            what = "top-1 %.1f%% >= %.1f%%" % (100 * a, 100 * b)
        print("%d|%s: plan %s no worse than %s: %s" %
              (0 if ok else 1, kind, p, u, what))
PY
}

# ---- charlm: 15 MatMuls, 88064 weights; all take NVFP4 and FP8 ----
plan charlm lm55 nvfp4,fp8,none 5.5
plan charlm lm6 nvfp4,fp8,none 6
plan charlm lm8 nvfp4,fp8,none 8
plan charlm lmf8 fp8,none 8.1
C=$W/lmf8.calib.json
att='/blocks.*/q/MatMul;/blocks.*/k/MatMul;/blocks.*/v/MatMul;/blocks.*/o/MatMul'
mlp='/blocks.*/gate/MatMul;/blocks.*/up/MatMul;/blocks.*/down/MatMul'
# uniform settings and their effective bits: nvfp4 everywhere (4.5);
# nvfp4 but the head fp8 (4.74); nvfp4 on the MLPs, fp8 on attention and
# the head (6.05); nvfp4 on attention, fp8 on the MLPs and the head
# (6.70); fp8 everywhere (8)
uniform lm_w4 charlm "$NV" &&
uniform lm_w4h8 charlm "fp8:calibration=$C:include=/head/MatMul,$NV:include=$att;$mlp" &&
uniform lm_mlp4 charlm "fp8:calibration=$C:include=$att;/head/MatMul,$NV:include=$mlp" &&
uniform lm_att4 charlm "fp8:calibration=$C:include=$mlp;/head/MatMul,$NV:include=$att" &&
uniform lm_fp8 charlm "fp8:calibration=$C"
check $? "charlm: the uniform settings build"
set --
for v in lm55 lm6 lm8 lmf8 lm_w4 lm_w4h8 lm_mlp4 lm_att4 lm_fp8; do
	set -- "$@" "$W/$v.onnx"
done
qopt_node "$L/eval.js" charlm "$L" "$L/charlm.onnx" "$@" >"$W/charlm.eval" 2>"$work/log"
check $? "charlm: eval.js measures the float model, 4 plans and 5 uniform settings"
compare charlm "lm55 lm_w4 lm_w4h8 lm_mlp4 lm_att4 lm_fp8" \
	"lm6 lm_w4 lm_w4h8 lm_mlp4 lm_att4 lm_fp8" \
	"lm8 lm_w4 lm_w4h8 lm_mlp4 lm_att4 lm_fp8" "lmf8 lm_fp8"

# ---- shapes_cnn: 5 Convs and a Gemm head; NVFP4 only on the head ----
for b in 5.5 6; do
	"$QOPT" plan "$L/shapes_cnn.onnx" --data "$L/shapes_cnn.calib" \
		--formats nvfp4,fp8,none --effective-bits $b \
		-o "$W/cnn$b.ini" --json "$W/cnn$b.json" >"$work/log" 2>&1
	r=$?
	[ $r = 1 ] && grep -q "no plan meets --effective-bits" "$work/log" &&
		[ ! -e "$W/cnn$b.ini" ] && [ ! -e "$W/cnn$b.json" ]
	check $? "shapes_cnn: --formats nvfp4,fp8,none --effective-bits $b fails (exit $r), writes nothing: NVFP4 holds only the head"
done
# a budget that keeps every layer float: no pipeline to write
"$QOPT" plan "$L/shapes_cnn.onnx" --data "$L/shapes_cnn.calib" \
	--formats fp8,none --effective-bits 16 -o "$W/cnn16.ini" \
	--json "$W/cnn16.json" >"$work/log" 2>&1
r=$?
[ $r = 1 ] && grep -q "keeps every layer in float (none): no pass to write" "$work/log" &&
	[ ! -e "$W/cnn16.ini" ] && [ ! -e "$W/cnn16.json" ]
check $? "shapes_cnn: --effective-bits 16 keeps every layer float: exit $r, said, nothing written"
plan shapes_cnn cnn8 nvfp4,fp8,none 8
plan shapes_cnn cnnf8 fp8,none 8.1
C=$W/cnnf8.calib.json
# fp8 everywhere (8 bits); fp8 on the Convs and nvfp4 on the head (7.95)
uniform cnn_fp8 shapes_cnn "fp8:calibration=$C" &&
uniform cnn_mix shapes_cnn "fp8:calibration=$C:op_types=Conv,$NV"
check $? "shapes_cnn: the uniform settings build"
qopt_node "$L/eval.js" shapes_cnn "$L" "$L/shapes_cnn.onnx" "$W/cnn8.onnx" \
	"$W/cnnf8.onnx" "$W/cnn_fp8.onnx" "$W/cnn_mix.onnx" \
	>"$W/shapes_cnn.eval" 2>"$work/log"
check $? "shapes_cnn: eval.js measures the float model, 2 plans and 2 uniform settings"
compare shapes_cnn "cnn8 cnn_mix cnn_fp8" "cnnf8 cnn_fp8"

for k in charlm shapes_cnn; do
	[ -s "$W/$k.cmp" ]
	check $? "$k: the comparisons ran"
	while IFS='|' read -r s d; do
		check "$s" "$d"
	done <<EOF
$(cat "$W/$k.cmp")
EOF
done

echo "1..$n"
exit $failed
