#!/bin/sh
# tests/torch/learned/accuracy.sh - what each format qopt writes costs on
# models with learned weights (tests/torch/learned, made by gen.py):
# the character LM's perplexity and the shapes CNN's top-1 accuracy on
# their held-out evaluation sets, in ONNX Runtime (graph optimization
# basic: FP8 Q/DQ; the NVFP4 and MXFP8 forms are fake, standard ops).
# For each model: fp8 (calibrated by `qopt calibrate --passes fp8`),
# nvfp4-weights (W4A16), nvfp4 W4A4 (calibrated) and mxfp8, each within
# bounds that a broken pass would miss (accuracy.py), and an FP8 model
# with one layer's weight scale zeroed must fail those bounds. Prints
# the table (docs/accuracy.md).
. "$top_srcdir/tests/ort/common.sh"
qopt_need_ort
qopt_need_py_onnx
qopt_workdir learned-accuracy
qopt_calib_env
L="$top_srcdir/tests/torch/learned"
W=$work

# qrun NAME ARGS...: one qopt command, its output in $W/NAME.log.
qrun() {
	k=$1
	shift
	"$QOPT" "$@" >"$W/$k.log" 2>&1 </dev/null
	r=$?
	[ $r = 0 ] || tail -n 6 "$W/$k.log" >"$work/log"
	return $r
}

# Model, options of the NVFP4 and MXFP8 passes, layer to break. TensorRT
# has no NVFP4 Conv: target=ort keeps NVFP4 Conv weights for ORT (the
# CNN's stem, K = 1, is skipped). min_size=0: the CNN's head is small.
while read -r m nvopt mxopt bad; do
	[ -n "$m" ] || continue
	f=$L/$m.onnx
	qrun $m.c1 calibrate --passes fp8 "$f" --data "$L/$m.calib" \
		-o "$W/$m.fp8.json" &&
	qrun $m.fp8 --stats --passes "fp8:calibration=$W/$m.fp8.json" "$f" \
		-o "$W/$m.fp8.onnx"
	check $? "$m: qopt calibrate --passes fp8, then fp8"
	qrun $m.w4a16 --stats --passes "nvfp4-weights:mode=fake:$nvopt" "$f" \
		-o "$W/$m.w4a16.onnx"
	check $? "$m: nvfp4-weights (W4A16, mode=fake)"
	qrun $m.c2 calibrate --passes "nvfp4:activations=yes:$nvopt" "$f" \
		--data "$L/$m.calib" -o "$W/$m.nv.json" &&
	qrun $m.w4a4 --stats --passes \
		"nvfp4:activations=yes:mode=fake:$nvopt:calibration=$W/$m.nv.json" \
		"$f" -o "$W/$m.w4a4.onnx" &&
	grep -q " [1-9][0-9]* linear inputs W4A4" "$W/$m.w4a4.log"
	check $? "$m: qopt calibrate --passes nvfp4:activations=yes, then nvfp4 W4A4 (mode=fake)"
	qrun $m.mxfp8 --stats --passes "mxfp8:mode=fake:$mxopt" "$f" \
		-o "$W/$m.mxfp8.onnx"
	check $? "$m: mxfp8 (mode=fake)"
	"$py" "$L/accuracy.py" break "$W/$m.fp8.onnx" "$W/$m.broken.onnx" \
		"$bad" >"$work/log" 2>&1
	check $? "$m: a broken FP8 model (the weight scale of $bad zeroed)"

	set -- "$f"
	for v in fp8 w4a16 w4a4 mxfp8 broken; do
		[ -f "$W/$m.$v.onnx" ] && set -- "$@" "$W/$m.$v.onnx"
	done
	qopt_node "$L/eval.js" $m "$L" "$@" >"$W/$m.json" 2>"$work/log"
	check $? "$m: eval.js measures the float model and $(($# - 1)) quantized ones in ONNX Runtime"
	"$py" "$L/accuracy.py" bounds "$W/$m.json" >"$W/$m.bounds" 2>"$work/log"
	check $? "$m: accuracy.py reads the measurements"
	grep '^#' "$W/$m.bounds"
	grep -c '^[01]|' "$W/$m.bounds" | grep -qx 5
	check $? "$m: bounds checked for 4 formats and the broken model"
	while IFS='|' read -r s d; do
		case $d in
		*' broken:'*)
			[ "$s" = 1 ]
			check $? "$m: the broken model fails the bounds (${d#* broken: })";;
		*)
			check "$s" "$d";;
		esac
	done <<EOF
$(grep '^[01]|' "$W/$m.bounds")
EOF
done <<LIST
charlm min_size=0 min_size=0 /blocks.0/q/
shapes_cnn min_size=0:op_types=Conv;Gemm:target=ort min_size=0 /down1/
LIST

echo "1..$n"
exit $failed
