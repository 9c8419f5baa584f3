#!/bin/sh
# tests/cli/calib-messages.sh - what `qopt calibrate` says when it fails
# (issue 28): one error line (no second "script failed" line, no ORT
# log line of its own unless -v), names escaped as in every qopt message
# (control bytes as \xNN), inputs of one sample that disagree on a
# symbolic dim named before ORT runs, FP4 models refused with the hint
# to use nvfp4-weights mode=fake, --dim checked against the model (the
# rule qopt-ort-check shares), and the percentile written as a plain
# number.
. "$top_srcdir/tests/ort/common.sh"

qopt_need_py_onnx
qopt_need_ort
qopt_workdir calib-messages
qopt_calib_env
"$py" "$top_srcdir/tests/cli/calib-messages.py" "$work" ||
	{ echo "Bail out! calib-messages.py"; exit 1; }

echo "1..13"

cal() { "$QOPT" calibrate "$@" >"$work/log" 2>&1; }
# one_error: the log holds exactly one line, an error of qopt calibrate.
one_error() {
	[ "$(wc -l <"$work/log")" = 1 ] && grep -q "^qopt calibrate: error: " "$work/log"
}
esc=$(printf '\033')

cal "$work/esc.onnx" --data "$work/huge" -o "$work/o.json"
[ $? = 1 ] && grep -qF "tensor 'a\\x1b[2Jx' holds Inf" "$work/log" &&
	! grep -q "$esc" "$work/log"
st=$?
cp "$work/log" "$work/log1"
check $st "calibrate: a tensor name holding ESC is printed as \\x1b, never raw"
cp "$work/log1" "$work/log"
one_error
check $? "calibrate: a failure in the script is one error line (no 'failed (exit status 3)' after it)"

cal "$work/reshape.onnx" --data "$work/good" -o "$work/o.json"
[ $? = 1 ] && one_error && grep -q "cannot run the model" "$work/log" &&
	! grep -q "\[E:onnxruntime" "$work/log"
check $? "calibrate: ORT failing at run time: one line of qopt's, ORT's own log quiet"
"$QOPT" calibrate -v "$work/reshape.onnx" --data "$work/good" \
	-o "$work/o.json" >"$work/log" 2>&1
grep -q "\[E:onnxruntime" "$work/log" && [ "$(grep -c "qopt calibrate: error" "$work/log")" = 1 ]
check $? "calibrate -v: ORT's log shown too"

mkdir -p "$work/escfile/s"
mkfifo "$work/escfile/s/x$esc[2J.npy"
cal "$work/plain.onnx" --data "$work/escfile" -o "$work/o.json"
[ $? = 1 ] && one_error && grep -qF 'x\x1b[2J.npy' "$work/log" &&
	! grep -q "$esc" "$work/log"
check $? "calibrate: a sample file name holding ESC is printed as \\x1b"

cal "$work/two.onnx" --data "$work/disagree" -o "$work/o.json"
[ $? = 1 ] && one_error &&
	grep -qF "disagree/s: inputs 'a' and 'b' disagree on dimension 'seq' (3 and 5)" "$work/log"
check $? "calibrate: two inputs of a sample disagreeing on 'seq' named before ORT runs"

"$QOPT" --passes nvfp4-weights:min_size=1 "$work/wide.onnx" \
	-o "$work/fp4.onnx" >"$work/log" 2>&1
cal "$work/fp4.onnx" --data "$work/wide" -o "$work/o.json"
[ $? = 1 ] && one_error && grep -q "no kernel for FLOAT4E2M1" "$work/log" &&
	grep -q "mode=fake" "$work/log"
check $? "calibrate on an NVFP4 model: ORT has no FP4 kernel, use nvfp4-weights mode=fake"

cal "$work/two.onnx" --random 1 --dim sq=3 -o "$work/o.json"
[ $? = 2 ] && one_error &&
	grep -qF "no input dimension 'sq' (its symbolic dimensions: 'seq')" "$work/log"
check $? "calibrate --dim with a name the model has not: usage (2, as qopt-ort-check), an error naming its dims"
cal "$work/two.onnx" --random 1 -o /dev/null
grep -qF "symbolic dimension 'seq' not set: 1 used (set it with --dim seq=VALUE)" "$work/log"
check $? "calibrate --random without --dim: 1 used and said, as qopt-ort-check does"
cal "$work/two.onnx" --random 1 --dim seq=3 -o /dev/null
check $? "calibrate --random --dim seq=3: runs"

cal "$work/plain.onnx" --data "$work/good" -o "$work/max.json" &&
	grep -q '"percentile": 100,' "$work/max.json"
check $? "calibrate: the percentile written as 100, not 1e+02"
cal "$work/plain.onnx" --data "$work/good" --percentile 99.99 -o "$work/p.json" &&
	grep -q '"percentile": 99.99,' "$work/p.json"
check $? "calibrate --percentile 99.99: written as 99.99"
cal "$work/plain.onnx" --data "$work/good" --percentile 99.5 -o "$work/p.json" &&
	"$py" -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["percentile"] != 99.5)' "$work/p.json"
check $? "calibrate: the percentile reads back exactly"

exit $failed
