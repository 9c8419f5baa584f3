#!/bin/sh
# tests/passes/mxfp8/torch.sh - the mxfp8 pass on the torch exports of
# tests/torch/models (GQA decoder in FLOAT and FLOAT16, GPT-2 block,
# ViT block): every
# selected linear layer gets MXFP8 weights and its input the dynamic
# chain; the real forms (trt, onnx) verify; the fake form runs in ONNX
# Runtime within the accuracy docs/mxfp8.md reports.
. "$top_srcdir/tests/ort/common.sh"
qopt_workdir mxfp8-torch
ort_why=$(qopt_ort_missing)
D="$top_srcdir/tests/torch/models"

# model, min cosine, min top-1 agreement (4 held-out samples)
while read -r m cos top1; do
	"$QOPT" --passes mxfp8 "$D/$m.onnx" -o "$work/$m-real.onnx" \
		>"$work/out" 2>&1
	rc=$?
	cp "$work/out" "$work/log"
	w=$(sed -n 's/.* \([0-9][0-9]*\) weights quantized.*/\1/p' "$work/out")
	a=$(sed -n 's/.* \([0-9][0-9]*\) activation inputs quantized.*/\1/p' "$work/out")
	[ $rc = 0 ] && [ -n "$w" ] && [ "$w" = "$a" ] &&
		"$QOPT" verify "$work/$m-real.onnx" >>"$work/log" 2>&1
	check $? "$m: real: ${w:-?} layers, each weight and input MXFP8; verified"
	"$QOPT" --passes 'mxfp8:format=onnx' "$D/$m.onnx" -o "$work/$m-onnx.onnx" \
		>"$work/log" 2>&1 &&
		"$QOPT" verify "$work/$m-onnx.onnx" >>"$work/log" 2>&1
	check $? "$m: format = onnx (opset 24) verified"
	"$QOPT" --passes 'mxfp8:mode=fake' "$D/$m.onnx" -o "$work/$m-fake.onnx" \
		>"$work/log" 2>&1 &&
		"$QOPT" verify "$work/$m-fake.onnx" >>"$work/log" 2>&1
	check $? "$m: fake form verified"
	if [ -n "$ort_why" ]; then
		n=$((n + 1))
		echo "ok $n - $m: fake form in ORT # SKIP $ort_why"
		continue
	fi
	"$top_builddir/tools/qopt-ort-check" "$D/$m.onnx" "$work/$m-fake.onnx" \
		--inputs "$D/$m.held" --stats-only --min-cosine "$cos" \
		--min-top1 "$top1" >"$work/log" 2>&1
	rc=$?
	check $rc "$m: fake form in ORT: cosine >= $cos, top-1 >= $top1: $(sed -n 3p "$work/log" | tr -s ' ')"
done <<LIST
gqa 0.998 0.9
gqa_fp16 0.998 0.9
gpt2 0.998 0.9
vit_sdpa 0.995 0.7
LIST
echo "1..$n"
exit $failed
