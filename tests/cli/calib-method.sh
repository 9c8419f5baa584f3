#!/bin/sh
# tests/cli/calib-method.sh - qopt calibrate --method max|percentile|
# entropy|mse: usage errors (exit 2 naming the method), the file records
# the method (and the percentile or the bins its result depends on),
# fp8-mha reads it; the accuracy the methods give INT8 on a model with a
# rare activation spike (tests/cli/calib-method-gen.py), each Q/DQ model
# built from that method's file and run in ONNX Runtime against the
# float model on held-back samples; the percentile from the histogram
# within a bin of NumPy's; memory that does not grow with the samples
# (the script's --verbose stat).
. "$top_srcdir/tests/ort/common.sh"

qopt_need_py_onnx
qopt_need_ort
qopt_workdir calib-method
qopt_calib_env
gen() { "$py" "$top_srcdir/tests/cli/calib-method-gen.py" "$@" ||
	{ echo "Bail out! calib-method-gen.py $*"; exit 1; }; }
gen model "$work/m.onnx"
gen samples "$work/cal" 48 1
gen samples "$work/held" 32 2

echo "1..25"

cal() { "$QOPT" calibrate "$@" >"$work/log" 2>&1; }
# field FILE KEY: the top-level KEY of a calibration file ("-" if none).
field() {
	"$py" -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], "-"))' "$1" "$2"
}

# --- usage ---
cal "$work/m.onnx" --data "$work/cal" --method kl -o "$work/bad.json"
[ $? = 2 ] && grep -q "method takes max, percentile, entropy or mse, got kl" "$work/log" &&
	[ ! -e "$work/bad.json" ]
check $? "calibrate --method kl: exit 2 naming it, nothing written"
cal "$work/m.onnx" --data "$work/cal" --method entropy --percentile 99 -o "$work/bad.json"
[ $? = 2 ] && grep -q "percentile belongs to --method percentile, not to --method entropy" "$work/log" &&
	[ ! -e "$work/bad.json" ]
check $? "calibrate --method entropy --percentile 99: exit 2"
"$QOPT" --passes fp8-mha "$work/m.onnx" --calibration-data "$work/cal" \
	--method Entropy -o "$work/bad.onnx" >"$work/log" 2>&1
[ $? = 2 ] && grep -q "got 'Entropy'" "$work/log" && [ ! -e "$work/bad.onnx" ]
check $? "qopt --calibration-data --method Entropy: exit 2 naming it"
"$QOPT" --passes fp8-mha "$work/m.onnx" --method mse -o "$work/bad.onnx" >"$work/log" 2>&1
[ $? = 2 ] && grep -q "method and --ort-timeout belong to --calibration-data" "$work/log"
check $? "qopt --method without --calibration-data: exit 2"

# --- the file ---
for m in max entropy mse percentile; do
	cal "$work/m.onnx" --data "$work/cal" --method $m -o "$work/$m.json"
	[ $? = 0 ] && [ "$(field "$work/$m.json" method)" = $m ] &&
		grep -q "2 tensors over 48 samples ($m)" "$work/log"
	check $? "calibrate --method $m: the file and the log say $m"
done
[ "$(field "$work/entropy.json" bins)" = 4096 ] &&
	[ "$(field "$work/mse.json" bins)" = 4096 ] &&
	[ "$(field "$work/entropy.json" percentile)" = - ] &&
	[ "$(field "$work/max.json" percentile)" = 100 ] &&
	[ "$(field "$work/max.json" bins)" = - ]
check $? "entropy and mse record their 4096 bins and no percentile; max its percentile 100, no bins"
[ "$(field "$work/percentile.json" percentile)" = 99.99 ] &&
	[ "$(field "$work/percentile.json" bins)" = 4096 ]
check $? "--method percentile alone: percentile 99.99 recorded with the bins"
cal "$work/m.onnx" --data "$work/cal" --percentile 99 -o "$work/p99.json"
[ $? = 0 ] && [ "$(field "$work/p99.json" method)" = percentile ] &&
	[ "$(field "$work/p99.json" percentile)" = 99 ]
check $? "--percentile 99 alone (as before --method): method percentile"
"$QOPT" --passes "fp8-mha:calibration=$work/entropy.json" "$work/m.onnx" \
	-o "$work/fp8.onnx" >"$work/log" 2>&1
check $? "fp8-mha reads a file of --method entropy"
sed 's/"method": "entropy"/"method": 5/' "$work/entropy.json" >"$work/num.json"
"$QOPT" --passes "fp8-mha:calibration=$work/num.json" "$work/m.onnx" \
	-o "$work/num.onnx" >"$work/log" 2>&1
[ $? != 0 ] && grep -q '"method" must be a string' "$work/log" && [ ! -e "$work/num.onnx" ]
check $? "fp8-mha refuses a \"method\" that is not a string, saying so"
"$QOPT" --passes fp8-mha "$work/m.onnx" --calibration-data "$work/cal" \
	--method mse -o "$work/inline.onnx" >"$work/log" 2>&1
[ $? = 0 ] && grep -q "(mse)" "$work/log"
check $? "one command: --calibration-data DIR --method mse"

# --- accuracy: INT8 Q/DQ on x and r from each method's file ---
amax() { "$py" -c 'import json, sys; print(json.load(open(sys.argv[1]))["tensors"][sys.argv[2]]["amax"])' "$1" "$2"; }
for m in max entropy mse percentile; do
	gen qdq "$work/m.onnx" "$work/$m.json" "$work/$m.qdq.onnx"
	qopt_node "$top_srcdir/tests/cli/calib-method-eval.js" "$work/m.onnx" \
		"$work/$m.qdq.onnx" "$work/held" >"$work/$m.acc" 2>>"$work/log" ||
		echo '{"top1": -1, "rms": 99}' >"$work/$m.acc"
	echo "# $m: amax x $(amax "$work/$m.json" x), r $(amax "$work/$m.json" r): $(cat "$work/$m.acc")"
done
# acc METHOD KEY
acc() { "$py" -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$work/$1.acc" "$2"; }
# less A B: A < B as numbers
less() { "$py" -c 'import sys; sys.exit(not float(sys.argv[1]) < float(sys.argv[2]))' "$1" "$2"; }
less "$(acc max top1)" 0.95
check $? "max-calibrated INT8 loses accuracy: top-1 $(acc max top1) of 512 rows (< 0.95)"
less "$(amax "$work/entropy.json" x)" 10 && less "$(amax "$work/mse.json" x)" 40
check $? "entropy and mse clip x's spike at 40: $(amax "$work/entropy.json" x), $(amax "$work/mse.json" x)"
less "$(acc max top1)" "$("$py" -c "print($(acc entropy top1) - 0.03)")"
check $? "entropy closes most of the gap: top-1 $(acc entropy top1) against max's $(acc max top1)"
less "$(acc mse rms)" "$(acc max rms)"
check $? "mse gives the lower RMS error: $(acc mse rms) against max's $(acc max rms)"
less "$(acc max rms)" "$(acc entropy rms)"
check $? "where entropy does not: a clipped held-back spike doubles the RMS error ($(acc entropy rms) against $(acc max rms))"
gen big "$work/clean" 28 5
for m in max entropy; do
	qopt_node "$top_srcdir/tests/cli/calib-method-eval.js" "$work/m.onnx" \
		"$work/$m.qdq.onnx" "$work/clean" >"$work/$m-clean.acc" 2>>"$work/log" ||
		echo '{"top1": -1, "rms": 99}' >"$work/$m-clean.acc"
done
half=$("$py" -c "print($(acc max-clean rms) / 2)")
less "$(acc entropy-clean rms)" "$half"
check $? "on samples without a spike entropy's RMS error is under half max's: $(acc entropy-clean rms) against $(acc max-clean rms)"

# --- the percentile from the histogram, and bounded memory ---
gen big "$work/big" 60 3
"$QOPT" calibrate "$work/m.onnx" --data "$work/big" --method percentile \
	--percentile 99.9 -v -o "$work/big.json" >"$work/big.log" 2>&1
st=$?
"$py" - "$work/big" "$work/big.json" >"$work/log" 2>&1 <<'PY'
import glob, json, sys
import numpy as np
from onnx import TensorProto, numpy_helper
xs = []
for f in sorted(glob.glob(sys.argv[1] + "/*/input_0.pb")):
    t = TensorProto()
    t.ParseFromString(open(f, "rb").read())
    xs.append(np.abs(numpy_helper.to_array(t)).ravel())
a = np.sort(np.concatenate(xs).astype(np.float64))
exact = a[int(np.ceil(0.999 * a.size)) - 1]
got = json.load(open(sys.argv[2]))["tensors"]["x"]["amax"]
rng = 2.0 ** np.ceil(np.log2(a[-1]))
rng = rng * 2 if rng <= a[-1] else rng
print("exact", exact, "got", got, "bin", rng / 4096)
sys.exit(not (exact <= got <= exact + rng / 4096))
PY
[ $st = 0 ] && [ $? = 0 ]
check $? "245760 values: the 99.9th percentile from the bins within one bin above NumPy's nearest rank"
grep -q "debug: tensor 'x': 4096 bins, 0 values kept, 245760 elements" "$work/big.log"
check $? "--verbose: 60 samples keep 4096 bins and no value"
gen big "$work/big2" 120 4
"$QOPT" calibrate "$work/m.onnx" --data "$work/big2" --method percentile \
	-v -o "$work/big2.json" >"$work/big2.log" 2>&1 &&
	grep -q "debug: tensor 'x': 4096 bins, 0 values kept, 491520 elements" "$work/big2.log"
check $? "--verbose: 120 samples keep the same 4096 bins and no value"
cal "$work/m.onnx" --data "$work/held" --method percentile -v -o "$work/small.json" &&
	grep -q "debug: tensor 'x': 4096 bins, 0 values kept, 131072 elements" "$work/log"
check $? "131072 values (over the exact percentile's 65536): none kept"
mkdir -p "$work/few" && cp -r "$work/cal/000" "$work/cal/001" "$work/few/" &&
	cal "$work/m.onnx" --data "$work/few" --method percentile -v -o "$work/few.json" &&
	grep -q "debug: tensor 'x': 4096 bins, 8192 values kept, 8192 elements" "$work/log"
check $? "8192 values: kept for the exact nearest rank"
exit $failed
