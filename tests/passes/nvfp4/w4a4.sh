#!/bin/sh
# tests/passes/nvfp4/w4a4.sh - W4A4 from a plain model (pass nvfp4,
# activations = yes) on the torch exports (GQA decoder, GPT-2, ViT):
# `qopt calibrate --passes nvfp4:activations=yes` measures what the pass
# asks for; the real form puts TensorRT's dynamic NVFP4 chain, typed,
# on every linear input TensorRT can take (the rest is said); the fake
# form runs in ONNX Runtime near the float model; bad requests fail
# clearly with no output.
. "$top_srcdir/tests/ort/common.sh"
qopt_need_ort
qopt_workdir nvfp4-w4a4
qopt_calib_env
M="$top_srcdir/tests/torch/models"

# model, linear inputs made W4A4, activations skipped (none: the ViT's
# head Gemm reads a Gather whose rank comes through the class token's
# Expand, tests/torch/vit-expand.sh), ORT bound (max
# relative error of the fake W4A4 model against the float one on the
# held-out samples; measured 0.16, 0.066, 0.41).
while read -r m lin skip bound; do
	"$QOPT" calibrate --passes nvfp4:activations=yes "$M/$m.onnx" \
		--data "$M/$m.calib" -o "$work/$m.json" >"$work/log" 2>&1 &&
		grep -q '"amax"' "$work/$m.json"
	check $? "$m: qopt calibrate --passes nvfp4:activations=yes"
	o="nvfp4:activations=yes:min_size=0:calibration=$work/$m.json"
	"$QOPT" --stats --passes "$o" "$M/$m.onnx" -o "$work/$m.real.onnx" \
		>"$work/$m.real.log" 2>&1 &&
		grep -q " $lin linear inputs W4A4" "$work/$m.real.log" &&
		{ [ "$skip" = 0 ] && ! grep -q "activations skipped" "$work/$m.real.log" ||
		  grep -q " $skip activations skipped (outside TensorRT's DynamicQuantize)" "$work/$m.real.log"; } &&
		"$QOPT" verify "$work/$m.real.onnx" >>"$work/log" 2>&1
	r=$?
	[ $r = 0 ] || cat "$work/$m.real.log" >>"$work/log"
	check $r "$m: real form on $lin linear inputs ($skip skipped with the reason), verified"
	"$QOPT" dump "$work/$m.real.onnx" >"$work/$m.dump" 2>&1
	q=$(grep -c "= trt::TRT_FP4DynamicQuantize(" "$work/$m.dump")
	t4=$(grep -c "_fp4: FLOAT4E2M1\[" "$work/$m.dump")
	t8=$(grep -c "_fp4_scale: FLOAT8E4M3FN\[" "$work/$m.dump")
	[ "$q" -gt 0 ] && [ "$t4" -ge "$q" ] && [ "$t8" -ge "$q" ] &&
		grep -q "axis=-1 block_size=16 scale_type=17" "$work/$m.dump"
	check $? "$m: $q TRT_FP4DynamicQuantize, outputs typed FLOAT4E2M1 / FLOAT8E4M3FN"
	"$QOPT" --passes "$o:mode=fake" "$M/$m.onnx" -o "$work/$m.fake.onnx" \
		>"$work/log" 2>&1 && "$QOPT" verify "$work/$m.fake.onnx" >"$work/log" 2>&1 &&
		! grep -q "TRT_\|FLOAT4E2M1" "$work/$m.fake.onnx"
	check $? "$m: fake form (standard ops only), verified"
	echo "$m maxrel=$bound $M/$m.onnx $work/$m.fake.onnx $M/$m.held" >>"$work/jobs"
done <<LIST
gqa 15 0 0.25
gpt2 9 0 0.1
vit_sdpa 13 0 0.5
LIST
qopt_node "$top_srcdir/tests/torch/ort.js" "$work/jobs" >"$work/ort" 2>&1
while read -r m mode rest; do
	grep "^$m ok" "$work/ort" >/dev/null
	r=$?
	grep "^$m " "$work/ort" >"$work/log" || cp "$work/ort" "$work/log"
	check $r "$m: the fake W4A4 model runs in ONNX Runtime, ${mode#maxrel=} of the float one: $(cut -d' ' -f2- "$work/log")"
done <"$work/jobs"

# ---- bad requests: an error naming the cause, no output ----
"$QOPT" --passes nvfp4:activations=yes "$M/gpt2.onnx" -o "$work/x.onnx" \
	>"$work/log" 2>&1
[ $? != 0 ] && [ ! -e "$work/x.onnx" ] &&
	grep -q "activations = yes needs calibration = FILE" "$work/log" &&
	grep -q "qopt calibrate --passes nvfp4:activations=yes" "$work/log"
check $? "activations = yes without a calibration file: an error naming qopt calibrate"
"$QOPT" --passes "nvfp4:activations=yes:calibration=$work/gqa.json" \
	"$M/gpt2.onnx" -o "$work/x.onnx" >"$work/log" 2>&1
[ $? != 0 ] && [ ! -e "$work/x.onnx" ] && grep -q "is for model hash" "$work/log"
check $? "a calibration file of another model: refused"
sed 's/"amax": [0-9.e+-]*/"amax": 0/' "$work/gpt2.json" >"$work/zero.json"
"$QOPT" --passes "nvfp4:activations=yes:calibration=$work/zero.json" \
	"$M/gpt2.onnx" -o "$work/x.onnx" >"$work/log" 2>&1
[ $? = 0 ] && grep -q "amax 0 in .* is not a positive finite number" "$work/log" &&
	grep -q "activations skipped (no calibrated amax)" "$work/log"
check $? "amax 0 in the file: the activation is skipped with the reason, never guessed"
"$QOPT" --strict --passes "nvfp4:activations=yes:calibration=$work/zero.json" \
	"$M/gpt2.onnx" -o "$work/x.onnx" >"$work/log" 2>&1
[ $? != 0 ]
check $? "... a warning: --strict fails the run"

echo "1..$n"
exit $failed
