#!/bin/sh
# tests/cli/calib-options.sh - calibrate's options and hints (issue 39):
# `qopt calibrate -q` is accepted and, like `qopt -q` with
# --calibration-data, prints no "N tensors over M samples" line; the
# --dim warning is said once; a pass that needs calibration and gets
# none (fp8, fp8-mha on a plain model with attention, nvfp4
# activations = yes) suggests both the one-command --calibration-data
# and the two-step qopt calibrate.
. "$top_srcdir/tests/ort/common.sh"

qopt_need_py_onnx
qopt_need_ort
qopt_workdir calib-options
qopt_calib_env
"$py" "$top_srcdir/tests/cli/calib-options.py" "$work/seq.onnx" &&
	"$py" "$top_srcdir/tests/cli/calib-gen.py" model vit "$work/vit.onnx" &&
	"$py" "$top_srcdir/tests/cli/calib-gen.py" samples vit "$work/s" 2 1 ||
	{ echo "Bail out! fixtures"; exit 1; }

echo "1..9"

"$QOPT" calibrate -q "$work/vit.onnx" --data "$work/s" -o "$work/q.json" \
	>"$work/log" 2>&1 && [ -s "$work/q.json" ] && [ ! -s "$work/log" ]
check $? "qopt calibrate -q: accepted, writes the file, prints nothing"
"$QOPT" calibrate --quiet "$work/vit.onnx" --data "$work/s" -o /dev/null \
	>"$work/log" 2>&1 && [ ! -s "$work/log" ]
check $? "qopt calibrate --quiet: accepted, prints nothing"
"$QOPT" calibrate "$work/vit.onnx" --data "$work/s" -o "$work/v.json" \
	>"$work/log" 2>&1 && grep -q "tensors over 2 samples (max) -> " "$work/log"
check $? "qopt calibrate without -q still says what it wrote"
"$QOPT" -q --passes fp8-mha "$work/vit.onnx" --calibration-data "$work/s" \
	-o "$work/q.onnx" >"$work/log" 2>&1 && [ -s "$work/q.onnx" ] &&
	! grep -q "tensors over" "$work/log"
check $? "qopt -q --calibration-data: no 'calibration: N tensors over' line"
"$QOPT" calibrate "$work/seq.onnx" --random 1 -o /dev/null >"$work/log" 2>&1 &&
	[ "$(grep -c "symbolic dimension 'seq' not set" "$work/log")" = 1 ]
check $? "qopt calibrate --random: the unset --dim warning said once"
"$QOPT" --passes fp8-mha "$work/seq.onnx" --calibration-random 1 \
	-o "$work/r.onnx" >"$work/log" 2>&1 &&
	[ "$(grep -c "symbolic dimension 'seq' not set" "$work/log")" = 1 ]
check $? "--calibration-random: the unset --dim warning said once"

# both_forms: the log's error suggests --calibration-data and qopt calibrate
both_forms() {
	grep "error" "$work/log" | grep -F -- "--calibration-data DIR" |
		grep -qF "qopt calibrate"
}
"$QOPT" --passes fp8 "$work/vit.onnx" -o "$work/n.onnx" >"$work/log" 2>&1
[ $? = 1 ] && [ ! -e "$work/n.onnx" ] && both_forms
check $? "fp8 without calibration: both forms suggested"
"$QOPT" --passes fp8-mha "$work/vit.onnx" -o "$work/n.onnx" >"$work/log" 2>&1
[ $? = 1 ] && [ ! -e "$work/n.onnx" ] && both_forms
check $? "fp8-mha on a plain model with attention, without calibration: both forms suggested"
"$QOPT" --passes nvfp4:activations=yes "$work/vit.onnx" \
	-o "$work/n.onnx" >"$work/log" 2>&1
[ $? = 1 ] && [ ! -e "$work/n.onnx" ] && both_forms
check $? "nvfp4 activations = yes without calibration: both forms suggested"
exit $failed
