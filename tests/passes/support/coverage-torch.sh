#!/bin/sh
# tests/passes/support/coverage-torch.sh - the coverage counters of
# nvfp4-weights, mxfp8 and fp8 on models torch.onnx.export wrote
# (tests/torch/models), checked exactly against what the input and
# output models say (coverage-torch.py counts the candidates and which
# of them left the output as float initializers): candidate weights and
# bytes, per format, float left. fp8 needs `qopt calibrate`, so ORT.
. "$top_srcdir/tests/ort/common.sh"
qopt_need_py_onnx
qopt_workdir coverage-torch
M="$top_srcdir/tests/torch/models"

# cov PASS FORMAT MODEL PASSES: runs PASSES on MODEL, checks the counters
cov() {
	"$QOPT" -q --stats-json "$work/$3.$1.json" --passes "$4" "$M/$3.onnx" \
		-o "$work/$3.$1.onnx" >"$work/log" 2>&1 &&
	"$py" "$top_srcdir/tests/passes/support/coverage-torch.py" "$1" "$2" \
		"$M/$3.onnx" "$work/$3.$1.onnx" "$work/$3.$1.json" >"$work/fig" 2>&1
	rc=$?
	cat "$work/fig" >>"$work/log"
	sed "s/^/# $3: /" "$work/fig"	# the figures, as TAP comments
	return $rc
}

for m in gpt2 bert; do
	cov nvfp4-weights nvfp4 $m nvfp4-weights
	check $? "nvfp4-weights on $m: candidates, nvfp4 and float counts and bytes exact"
	cov mxfp8 mxfp8 $m mxfp8:activations=no
	check $? "mxfp8 on $m: candidates, mxfp8 and float counts and bytes exact"
done
# min_size (default 4096) leaves gqa's K/V projections float: still
# exact, and said per reason
cov nvfp4-weights nvfp4 gqa nvfp4-weights
check $? "nvfp4-weights on gqa: exact with weights below min_size"
"$QOPT" --passes nvfp4-weights "$M/gqa.onnx" -o "$work/g.onnx" \
	>"$work/log" 2>&1
grep -q "coverage: left float (below min_size): 4 weights, 32.0 KiB" "$work/log"
check $? "... the 4 weights below min_size said as a reason with their bytes"

if [ -n "$(qopt_ort_missing)" ]; then
	for m in resnet_cnn unet_cnn; do
		n=$((n + 1))
		echo "ok $n - fp8 on $m # SKIP $(qopt_ort_missing)"
	done
else
	qopt_calib_env
	for m in resnet_cnn unet_cnn; do
		"$QOPT" calibrate "$M/$m.onnx" --data "$M/$m.calib" --passes fp8 \
			-o "$work/$m.calib.json" >"$work/log" 2>&1 &&
		cov fp8 fp8 $m "fp8:calibration=$work/$m.calib.json"
		check $? "fp8 on $m: candidates, fp8 and float counts and bytes exact"
	done
	# min_size leaves the small convolutions float (both inputs)
	cov fp8 fp8 resnet_cnn \
		"fp8:calibration=$work/resnet_cnn.calib.json:min_size=20000" &&
		grep -q "fp8: [1-9][0-9]* of 12 weights" "$work/fig"
	check $? "fp8 on resnet_cnn with min_size = 20000: exact, some left float"
fi

echo "1..$n"
exit $failed
