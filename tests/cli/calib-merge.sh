#!/bin/sh
# tests/cli/calib-merge.sh - `qopt calibrate --merge A.json B.json... -o
# OUT.json` (qopt_calib_merge): files calibrated on parts of the samples
# merge into the file of all of them (each amax bit for bit, the samples
# added up, in either order, once more with a third file), and the fp8
# pass given the merged file writes the bytes it writes with the whole's.
# Refused, nothing written, the inputs untouched: files of two models,
# a method other than max (in one file or both), dtypes that disagree, a
# malformed or missing file (exit 1, naming it); the output one of the
# inputs, one file, measuring options, no -o (usage: exit 2).
. "$top_srcdir/tests/ort/common.sh"

qopt_need_py_onnx
qopt_need_ort
qopt_workdir calib-merge
qopt_calib_env
"$py" "$top_srcdir/tests/cli/calib-merge.py" "$work" ||
	{ echo "Bail out! calib-merge.py"; exit 1; }
cd "$work" || { echo "Bail out! cd $work"; exit 1; }

echo "1..20"

cal() { "$QOPT" calibrate -q "$@" >"$work/log" 2>&1; }
merge() { "$QOPT" calibrate --merge "$@" >"$work/log" 2>&1; }
# same A.json B.json SAMPLES: the same tensors and amax, B over SAMPLES
same() {
	"$py" - "$1" "$2" "$3" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
sys.exit(0 if a["tensors"] == b["tensors"] and a["tensors"] and
         b["samples"] == int(sys.argv[3]) and b["method"] == "max" and
         a["model_hash"] == b["model_hash"] else 1)
PY
}
# refused STATUS TEXT FILE...: exit STATUS, TEXT said, no out.json
refused() {
	want=$1 text=$2
	shift 2
	rm -f out.json
	merge "$@" -o out.json
	[ $? = "$want" ] && [ ! -e out.json ] && grep -qF -- "$text" log
}

cal one.onnx --data all -o all.json && cal one.onnx --data p1 -o p1.json &&
	cal one.onnx --data p2 -o p2.json
check $? "calibrated on all 6 samples, on 2 and on the other 4"
"$py" - <<'PY'
import json
a, b = (json.load(open(f))["tensors"] for f in ("p1.json", "p2.json"))
assert a.keys() == b.keys() and all(a[k] != b[k] for k in a), (a, b)
PY
check $? "the parts' ranges differ on every tensor (the merge has something to do)"
merge p1.json p2.json -o m.json
grep -q "2 tensors over 6 samples (max) from 2 files -> m.json" log
check $? "the merge says what it wrote"
same all.json m.json 6
check $? "p1 + p2 merged: all's ranges, bit for bit, over 6 samples"
merge p2.json p1.json -o m21.json && same all.json m21.json 6
check $? "p2 + p1: the same (max is commutative)"
merge m.json p1.json -o m3.json && same all.json m3.json 8 &&
	merge p1.json p2.json p1.json -o m3b.json && cmp -s m3.json m3b.json
check $? "(p1 + p2) + p1 = p1 + p2 + p1, byte for byte (associative)"
"$QOPT" -q --passes fp8:calibration=all.json one.onnx -o all.onnx \
	>log 2>&1 &&
	"$QOPT" -q --passes fp8:calibration=m.json one.onnx -o m.onnx \
	>>log 2>&1 && cmp all.onnx m.onnx >>log 2>&1
check $? "fp8 with the merged file: the bytes it writes with the whole's"

cp p1.json p1.keep && cp p2.json p2.keep
sed 's/"model_hash": "[0-9a-f]*"/"model_hash": "0123456789abcdef"/' \
	p2.json >other.json
refused 1 "'other.json' does not merge with 'p1.json': model hash 0123456789abcdef, not" \
	p1.json other.json
check $? "files of two models: refused naming both hashes"
cal one.onnx --data p2 --method percentile -o pct.json
refused 1 "'pct.json' does not merge with 'p1.json': method 'percentile': only method max merges" \
	p1.json pct.json
check $? "a percentile file: refused, saying only max merges"
refused 1 "method 'percentile': only method max merges" pct.json pct.json
check $? "two percentile files: refused"
refused 1 "method 'percentile'" pct.json p1.json
check $? "a percentile file first: refused"
sed '0,/"dtype": "FLOAT"/s//"dtype": "FLOAT16"/' p2.json >dt.json
refused 1 "does not merge with 'p1.json': tensor 'x': dtype FLOAT16, not FLOAT" \
	p1.json dt.json
check $? "a tensor's dtype disagreeing: refused naming the tensor"
printf '{"format": "qopt-calibration", "model_hash": "12", "tensors": {' \
	>bad.json
refused 1 "calibration file 'bad.json': expected a string at byte 63" p1.json bad.json
check $? "a malformed file: refused naming it and the byte"
refused 1 "calibration file 'none.json': cannot open it" p1.json none.json
check $? "a missing file: refused naming it"
cp p1.json exists.json
merge p1.json other.json -o exists.json
[ $? = 1 ] && cmp -s p1.json exists.json
check $? "a failed merge leaves an existing output as it was"

merge p1.json p2.json -o p1.json
[ $? = 2 ] && grep -qF "output 'p1.json' is the input 'p1.json'" log &&
	cmp -s p1.json p1.keep && cmp -s p2.json p2.keep
check $? "the output one of the inputs: a usage error, the input untouched"
refused 2 "--merge takes two calibration files or more" p1.json
check $? "one file: a usage error"
refused 2 "--merge reads calibration files and measures nothing" \
	p1.json p2.json --data all
check $? "--merge with --data: a usage error"
merge p1.json p2.json
[ $? = 2 ] && grep -qF -- "--merge needs -o OUT.json" log
check $? "--merge without -o: a usage error"
ls tmp | grep -q . && ls tmp >log
[ $? != 0 ]
check $? "no temporary file left behind"
exit $failed
