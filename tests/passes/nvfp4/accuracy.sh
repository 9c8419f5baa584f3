#!/bin/sh
# tests/passes/nvfp4/accuracy.sh - the accuracy table of docs/graph-forms.md
# ("W4A4 accuracy"): the torch exports as W4A16 (nvfp4-weights), W4A4
# (nvfp4, activations = yes), FP8 attention alone (fp8-mha on the
# attention MatMuls) and W4A4 + FP8 attention (fp8-mha, then nvfp4
# calibrated on its output: NVFP4_FP8_MHA_CONFIG), all in fake form, run
# in ONNX Runtime against the float model on the held-out samples. The
# numbers are printed as TAP comments; the checks hold the pipeline's
# structure (every block fusible, every linear layer W4A4) and loose
# bounds.
. "$top_srcdir/tests/ort/common.sh"
qopt_need_ort
qopt_workdir nvfp4-accuracy
qopt_calib_env
M="$top_srcdir/tests/torch/models"
W=$work

acc() { qopt_node "$top_srcdir/tests/passes/nvfp4/accuracy.js" "$@"; }
cal() { "$QOPT" calibrate "$@" >>"$work/log" 2>&1; }

# model, attention MatMuls (fp8-mha's include), linear inputs, top-1 bound
while read -r m att lin top; do
	f=$M/$m.onnx
	printf '[fp8-mha]\ninclude = %s\n' "$att" >"$W/$m.ini"
	"$QOPT" -q --passes nvfp4-weights:mode=fake:min_size=0 "$f" \
		-o "$W/$m.w4a16.onnx" >>"$work/log" 2>&1 &&
	cal --passes nvfp4:activations=yes "$f" --data "$M/$m.calib" -o "$W/$m.c1.json" &&
	"$QOPT" -q --passes "nvfp4:activations=yes:mode=fake:min_size=0:calibration=$W/$m.c1.json" \
		"$f" -o "$W/$m.w4a4.onnx" >>"$work/log" 2>&1 &&
	cal -p "$W/$m.ini" "$f" --data "$M/$m.calib" -o "$W/$m.c2.json" &&
	printf 'calibration = %s\n' "$W/$m.c2.json" >>"$W/$m.ini" &&
	"$QOPT" --stats -p "$W/$m.ini" "$f" -o "$W/$m.fp8.onnx" >"$W/$m.fp8.log" 2>&1 &&
	grep -q "attention: 2 of 2 blocks fusible" "$W/$m.fp8.log" &&
	cal --passes nvfp4:activations=yes "$W/$m.fp8.onnx" --data "$M/$m.calib" \
		-o "$W/$m.c3.json" &&
	"$QOPT" --stats --passes "nvfp4:activations=yes:mode=fake:min_size=0:calibration=$W/$m.c3.json" \
		"$W/$m.fp8.onnx" -o "$W/$m.w4a4fp8.onnx" >"$W/$m.nv.log" 2>&1 &&
	grep -q " $lin linear inputs W4A4" "$W/$m.nv.log"
	r=$?
	[ $r = 0 ] || cat "$W/$m.fp8.log" "$W/$m.nv.log" >>"$work/log" 2>/dev/null
	check $r "$m: W4A16, W4A4, FP8 attention (2 of 2 blocks fusible), W4A4 + FP8 attention ($lin linear inputs W4A4)"
	for v in w4a16 w4a4 fp8 w4a4fp8; do
		acc "$f" "$W/$m.$v.onnx" "$M/$m.held" >"$W/$m.$v.acc" 2>&1
		echo "# $m $v $(cat "$W/$m.$v.acc")"
		"$PYTHON3" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["maxrel"] <= 0.5 and d["top1"] >= float(sys.argv[2]) else 1)' \
			"$W/$m.$v.acc" "$top" >"$work/log" 2>&1 || cat "$W/$m.$v.acc" >>"$work/log"
		check $? "$m $v: runs in ONNX Runtime, max relative error <= 0.5, top-1 agreement >= $top"
	done
done <<LIST
gpt2 /h.?/MatMul,/h.?/MatMul_1 9 0.9
gqa /layers.?/MatMul,/layers.?/MatMul_1 15 0.75
vit_sdpa /attn/MatMul,/attn/MatMul_1,/attn_1/MatMul,/attn_1/MatMul_1 13 0.75
LIST
echo "1..$n"
exit $failed
