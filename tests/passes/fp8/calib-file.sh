#!/bin/sh
# tests/passes/fp8/calib-file.sh - the calibration file reader
# (core/calib/calib-read.c, issue 39): every member the format
# defines is checked (format, version, model_hash, percentile, samples,
# model, method, source; a tensor's dtype), a key given twice is refused
# naming it (at the top, in a tensor's object), each with exit 1, the
# file named and no output written; the files of the current writer, of
# the node writer before it, a minimal one (model_hash and tensors) and
# one with a "method" of another name are read.
. "$top_srcdir/tests/ort/common.sh"

qopt_need_py_onnx
qopt_need_ort
qopt_workdir calib-file
qopt_calib_env
"$py" "$top_srcdir/tests/passes/fp8/fp8-degenerate.py" model "$work/m.onnx" ||
	{ echo "Bail out! fp8-degenerate.py"; exit 1; }
"$QOPT" calibrate "$work/m.onnx" --random 2 --passes fp8 -o "$work/c.json" \
	>"$work/log" 2>&1 || { cat "$work/log"; echo "Bail out! calibrate"; exit 1; }
h=$("$py" -c 'import json, sys; print(json.load(open(sys.argv[1]))["model_hash"])' "$work/c.json")
[ -n "$h" ] || { echo "Bail out! no hash"; exit 1; }

echo "1..18"

# run FILE: fp8 with calibration = FILE
run() {
	rm -f "$work/o.onnx"
	"$QOPT" "$work/m.onnx" -o "$work/o.onnx" \
		--passes "fp8:calibration=$1" >"$work/log" 2>&1
}
# refused TEXT WHAT: a file holding TEXT is refused saying WHAT
refused() {
	printf '%s\n' "$1" >"$work/bad.json"
	run "$work/bad.json"
	[ $? = 1 ] && [ ! -e "$work/o.onnx" ] &&
		grep -qF "calibration file '$work/bad.json': $2" "$work/log"
}
# read TEXT: a file holding TEXT is read (the layer cw FP8)
read_ok() {
	printf '%s\n' "$1" >"$work/ok.json"
	run "$work/ok.json" && [ -e "$work/o.onnx" ] &&
		! grep -q "error" "$work/log"
}
t='"tensors": {"x": {"dtype": "FLOAT", "amax": 1}}'

refused "{\"model_hash\": \"$h\", \"model_hash\": \"$h\", $t}" 'key "model_hash" given twice'
check $? "a top-level key given twice is refused naming it"
refused "{\"model_hash\": \"$h\", $t, \"tensors\": {\"y\": {\"amax\": 1}}}" 'key "tensors" given twice'
check $? "\"tensors\" given twice is refused, not merged"
refused "{\"model_hash\": \"$h\", \"source\": \"a\", $t, \"source\": \"b\"}" 'key "source" given twice'
check $? "a repeated member the reader would skip is refused too"
refused "{\"model_hash\": \"$h\", \"tensors\": {\"x\": {\"amax\": 1, \"amax\": 2}}}" "tensor 'x': key \"amax\" given twice"
check $? "a key given twice in a tensor's object is refused naming the tensor and the key"
refused "{\"format\": \"onnx-calibration\", \"model_hash\": \"$h\", $t}" "\"format\" at byte 11 is 'onnx-calibration', not 'qopt-calibration'"
check $? "a wrong format is refused naming it"
refused "{\"format\": 1, \"model_hash\": \"$h\", $t}" '"format" must be a string'
check $? "a format that is not a string is refused"
refused "{\"version\": 2, \"model_hash\": \"$h\", $t}" '"version" at byte 12 must be an integer from 1 to 1'
check $? "a version other than 1 is refused"
refused "{\"model_hash\": \"$h\", \"tensors\": {\"x\": {\"dtype\": \"FLOAT9\", \"amax\": 1}}}" "\"dtype\" 'FLOAT9' at byte"
check $? "a dtype that is no ONNX element type is refused naming it"
refused "{\"model_hash\": \"$h\", \"tensors\": {\"x\": {\"dtype\": 1, \"amax\": 1}}}" '"dtype" must be a string'
check $? "a dtype that is not a string is refused"
refused "{\"model_hash\": \"xyz\", $t}" '"model_hash" at byte 15 must be 1 to 16 hexadecimal digits'
check $? "a model_hash that is not hexadecimal is refused"
refused "{\"model_hash\": 12, $t}" '"model_hash" must be a string'
check $? "a model_hash that is not a string is refused"
refused "{\"model_hash\": \"$h\", \"percentile\": 40, $t}" '"percentile" at byte'
check $? "a percentile outside 50..100 is refused"
refused "{\"model_hash\": \"$h\", \"samples\": 1.5, $t}" '"samples" at byte'
check $? "a sample count that is not a non-negative integer is refused"
refused "{\"model_hash\": \"$h\", \"method\": null, $t}" '"method" must be a string'
check $? "a method that is not a string is refused"

read_ok "$(cat "$work/c.json")"
check $? "the file qopt calibrate writes is read"
read_ok "{
 \"format\": \"qopt-calibration\",
 \"version\": 1,
 \"model\": \"m.onnx\",
 \"model_hash\": \"$h\",
 \"method\": \"percentile\",
 \"percentile\": 99.9,
 \"samples\": 2,
 \"source\": \"random (seed 1): smoke test only, not a calibration\",
 \"tensors\": {
  \"x\": {
   \"dtype\": \"FLOAT\",
   \"amax\": 1
  }
 }
}"
check $? "the node writer's file (JSON.stringify(doc, null, 1)) is read"
read_ok "{\"model_hash\": \"$h\", \"tensors\": {\"x\": {\"amax\": 1}}}"
check $? "a minimal file (model_hash and tensors) is read"
read_ok "{\"model_hash\": \"$h\", \"method\": \"entropy\", \"future\": [1, {\"a\": 2}], $t}"
check $? "a method of another name and a member the format does not define are read"
exit $failed
