#!/bin/sh
# tests/cli/calib-inline.sh - calibration and quantization in one command
# (issue 31 item 4): `qopt --passes P MODEL --calibration-data DIR -o OUT`
# (and -p INI) measures, before each pass that reads a calibration file,
# the ranges it asks for on the model as it is at that point, and equals
# the two-step form (`qopt calibrate` then `P:calibration=FILE`) byte for
# byte: fp8 on resnet_cnn and on Convs in If branches and a Loop body,
# fp8-mha on gpt2 and gqa. fp8-mha + nvfp4 W4A4
# from a plain model in one command (two calibrations, the second on
# fp8-mha's output) has the nodes and initializers of the three-step
# form and runs in ONNX Runtime. Bad input: a missing or empty folder, a
# sample with the wrong input name or shape, calibration= given too, a
# Scan model, no pass that calibrates (a warning; --strict an error),
# bad option combinations; the input never touched, no output and no
# temporary folder left on failure.
. "$top_srcdir/tests/ort/common.sh"

qopt_need_py_onnx
qopt_need_ort
qopt_workdir calib-inline
# the temporary folders go in $work/tmp; checks want none left
qopt_calib_env
M="$top_srcdir/tests/torch/models"
W=$work

echo "1..23"

left() { ls "$work/tmp" | grep -q "^qopt-calib-"; }
run() { "$QOPT" "$@" >"$work/log" 2>&1; }
cal() { "$QOPT" calibrate "$@" >>"$work/log" 2>&1; }

# The input models as copies whose bytes are checked at the end.
for m in resnet_cnn gpt2 gqa; do cp "$M/$m.onnx" "$W/$m.onnx"; done
sum0=$(cat "$W/resnet_cnn.onnx" "$W/gpt2.onnx" "$W/gqa.onnx" | cksum)

# fp8 on resnet_cnn: one command == two steps, byte for byte.
cal --passes fp8 "$W/resnet_cnn.onnx" --data "$M/resnet_cnn.calib" -o "$W/r.json" &&
	"$QOPT" -q --passes "fp8:calibration=$W/r.json" "$W/resnet_cnn.onnx" \
		-o "$W/r2.onnx" >>"$work/log" 2>&1 &&
	run --passes fp8 "$W/resnet_cnn.onnx" --calibration-data "$M/resnet_cnn.calib" \
		-o "$W/r1.onnx" &&
	cmp "$W/r1.onnx" "$W/r2.onnx" >>"$work/log" 2>&1 &&
	grep -q "^qopt: fp8: calibration: 16 tensors over 4 samples (max) -> the pass" "$work/log" &&
	! left
check $? "fp8 (resnet_cnn): --calibration-data equals calibrate + calibration=FILE byte for byte; no temporary folder left"

# Layers in If branches and a Loop body (fp8-gen.py): the values the
# pass asks for found in the model's copy graph by graph; the same.
st=0
for k in ifconv loopconv; do
	"$py" "$top_srcdir/tests/passes/fp8/fp8-gen.py" model $k "$W/$k.onnx" &&
		"$py" "$top_srcdir/tests/passes/fp8/fp8-gen.py" samples $k "$W/$k.cal" 4 1 ||
		{ echo "Bail out! fp8-gen.py $k"; exit 1; }
	cal --passes fp8 "$W/$k.onnx" --data "$W/$k.cal" -o "$W/$k.json" &&
		"$QOPT" -q --passes "fp8:calibration=$W/$k.json" "$W/$k.onnx" \
			-o "$W/$k.2.onnx" >>"$work/log" 2>&1 &&
		"$QOPT" -q --passes fp8 "$W/$k.onnx" --calibration-data "$W/$k.cal" \
			-o "$W/$k.1.onnx" >>"$work/log" 2>&1 &&
		cmp "$W/$k.1.onnx" "$W/$k.2.onnx" >>"$work/log" 2>&1 || st=1
done
check $st "fp8 on Convs in If branches and a Loop body: one command equals the two-step form byte for byte"

# fp8-mha (-p INI) on gpt2 and gqa: the same.
while read -r m att; do
	printf '[fp8-mha]\ninclude = %s\n' "$att" >"$W/$m.ini"
	cp "$W/$m.ini" "$W/$m.two.ini"
	cal -p "$W/$m.ini" "$W/$m.onnx" --data "$M/$m.calib" -o "$W/$m.json" &&
		printf 'calibration = %s\n' "$W/$m.json" >>"$W/$m.two.ini" &&
		"$QOPT" -q -p "$W/$m.two.ini" "$W/$m.onnx" -o "$W/$m.2.onnx" \
			>>"$work/log" 2>&1 &&
		run -p "$W/$m.ini" "$W/$m.onnx" --calibration-data "$M/$m.calib" \
			-o "$W/$m.1.onnx" &&
		cmp "$W/$m.1.onnx" "$W/$m.2.onnx" >>"$work/log" 2>&1 &&
		grep -q "attention: 2 of 2 blocks fusible" "$work/log"
	check $? "fp8-mha ($m, -p INI): one command equals the two-step form byte for byte, 2 of 2 blocks fusible"
done <<LIST
gpt2 /h.?/MatMul,/h.?/MatMul_1
gqa /layers.?/MatMul,/layers.?/MatMul_1
LIST

# W4A4 + FP8 attention from the plain gpt2 in one command: fp8-mha
# calibrated on the model, nvfp4 on fp8-mha's output (the old way: three
# steps through a file).
printf '[fp8-mha]\ninclude = /h.?/MatMul,/h.?/MatMul_1\n[nvfp4]\nactivations = yes\nmode = fake\nmin_size = 0\n' \
	>"$W/w4a4.ini"
run --stats -p "$W/w4a4.ini" "$W/gpt2.onnx" --calibration-data "$M/gpt2.calib" \
	-o "$W/w4a4.onnx"
[ $? = 0 ] && grep -q "^qopt: fp8-calibrate-place: calibration: 8 tensors over 4 samples" "$work/log" &&
	grep -q "^qopt: nvfp4: calibration: 9 tensors over 4 samples" "$work/log" &&
	grep -q "attention: 2 of 2 blocks fusible" "$work/log" &&
	grep -q " 9 linear inputs W4A4" "$work/log" && ! left
check $? "fp8-mha + nvfp4 W4A4 in one command: two calibrations, 2 of 2 blocks fusible, 9 linear inputs W4A4"
cp "$work/log" "$W/w4a4.log"
cal --passes nvfp4:activations=yes "$W/gpt2.2.onnx" --data "$M/gpt2.calib" -o "$W/c3.json" &&
	"$QOPT" -q --passes "nvfp4:activations=yes:mode=fake:min_size=0:calibration=$W/c3.json" \
		"$W/gpt2.2.onnx" -o "$W/w4a4.3.onnx" >>"$work/log" 2>&1 &&
	"$py" - "$W/w4a4.onnx" "$W/w4a4.3.onnx" >>"$work/log" 2>&1 <<'PY'
import sys, onnx
a, b = (onnx.load(p).graph for p in sys.argv[1:3])
ser = lambda xs: [x.SerializeToString() for x in xs]
assert ser(a.node) == ser(b.node), "nodes differ"
assert ser(a.initializer) == ser(b.initializer), "initializers differ"
assert ser(a.input) == ser(b.input) and ser(a.output) == ser(b.output)
PY
check $? "W4A4 + FP8 attention: the nodes and initializers of the three-step form (fp8-mha, save, calibrate, nvfp4)"
qopt_node "$top_srcdir/tests/passes/nvfp4/accuracy.js" "$W/gpt2.onnx" \
	"$W/w4a4.onnx" "$M/gpt2.held" >"$W/w4a4.acc" 2>>"$work/log" &&
	"$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["maxrel"] <= 0.5 and d["top1"] >= 0.9 else 1)' \
		"$W/w4a4.acc" >>"$work/log" 2>&1
st=$?
echo "# gpt2 W4A4 + FP8 attention, one command: $(cat "$W/w4a4.acc")"
check $st "W4A4 + FP8 attention (one command) runs in ONNX Runtime: max relative error <= 0.5, top-1 >= 0.9"

# --calibration-random: a smoke test, said as such.
run --passes fp8 "$W/resnet_cnn.onnx" --calibration-random 2 --seed 5 -o "$W/rnd.onnx"
[ $? = 0 ] && grep -q "^qopt: fp8: calibration: warning: 2 seeded random samples (seed 5)" "$work/log" &&
	[ -s "$W/rnd.onnx" ]
check $? "--calibration-random 2 --seed 5: runs, says it is a smoke test"

# Bad input: each fails with its message and leaves no output.
fails() {	# STATUS OUT: the exit status and no output file, no temporary folder
	[ "$1" = "$2" ] && [ ! -e "$3" ] && ! left
}
mkdir -p "$W/empty" "$W/wname/s" "$W/wshape/s"
"$py" -c '
import sys, numpy as np
np.save(sys.argv[1] + "/wname/s/z.npy", np.zeros((1, 3, 32, 32), np.float32))
np.save(sys.argv[1] + "/wshape/s/x.npy", np.zeros((1, 3, 7), np.float32))' "$W"
run --passes fp8 "$W/resnet_cnn.onnx" --calibration-data "$W/nope" -o "$W/bad.onnx"
fails $? 1 "$W/bad.onnx" && grep -q "^qopt: error: $W/nope: No such file or directory" "$work/log"
check $? "a missing sample folder: exit 1, named, no output"
run --passes fp8 "$W/resnet_cnn.onnx" --calibration-data "$W/empty" -o "$W/bad.onnx"
fails $? 1 "$W/bad.onnx" &&
	grep -q "^qopt: fp8: calibration: error: $W/empty: no data for input 'x' (FLOAT\[1,3,32,32\])" "$work/log" &&
	grep -q "^qopt: error: pass 'fp8' failed; no output written" "$work/log"
check $? "an empty sample folder: exit 1, the pass and the input named, no output"
run --passes fp8 "$W/resnet_cnn.onnx" --calibration-data "$W/wname" -o "$W/bad.onnx"
fails $? 1 "$W/bad.onnx" &&
	grep -q "^qopt: fp8: calibration: error: $W/wname/s/z.npy: the model has no input 'z' (inputs: x)" "$work/log"
check $? "a sample with the wrong input name: exit 1, named, no output"
run --passes fp8 "$W/resnet_cnn.onnx" --calibration-data "$W/wshape" -o "$W/bad.onnx"
fails $? 1 "$W/bad.onnx" &&
	grep -q "^qopt: fp8: calibration: error: $W/wshape/s/x.npy: input 'x' has shape \[1,3,7\], the model wants \[1,3,32,32\]" "$work/log"
check $? "a sample with the wrong shape: exit 1, named, no output"
run --passes "fp8:calibration=$W/r.json" "$W/resnet_cnn.onnx" \
	--calibration-data "$M/resnet_cnn.calib" -o "$W/bad.onnx"
fails $? 2 "$W/bad.onnx" &&
	grep -q "^qopt: error: pass 'fp8' is given calibration= and --calibration-data measures it too: give one" "$work/log"
check $? "calibration=FILE and --calibration-data: exit 2 naming the pass"
run --passes "fp8-mha:calibration=$W/gpt2.json" "$W/gpt2.onnx" \
	--calibration-data "$M/gpt2.calib" -o "$W/bad.onnx"
fails $? 2 "$W/bad.onnx" &&
	grep -q "^qopt: error: pass 'fp8-calibrate-place' (a step of 'fp8-mha') is given calibration=" "$work/log"
check $? "calibration= given to the pipeline fp8-mha and --calibration-data: exit 2 naming the step and its pipeline"
"$py" "$top_srcdir/tests/passes/fp8/fp8-gen.py" model scanconv "$W/scan.onnx" &&
	"$py" "$top_srcdir/tests/passes/fp8/fp8-gen.py" samples scanconv "$W/scan.cal" 2 1 ||
	{ echo "Bail out! fp8-gen.py scanconv"; exit 1; }
run --passes fp8 "$W/scan.onnx" --calibration-data "$W/scan.cal" -o "$W/bad.onnx"
fails $? 1 "$W/bad.onnx" &&
	grep -q "^qopt: fp8: calibration: error: tensor 'xt' is inside node 'scan' (Scan): only If branches and Loop bodies can be calibrated" "$work/log"
check $? "a Conv in a Scan body: exit 1, the tensor and the node named, no output"
run --passes nvfp4-weights "$W/gpt2.onnx" --calibration-data "$M/gpt2.calib" -o "$W/nocal.onnx"
[ $? = 0 ] && [ -s "$W/nocal.onnx" ] &&
	grep -q "^qopt: warning: --calibration-data given, but no pass of the pipeline (--passes) reads a calibration file: nothing to calibrate" "$work/log"
check $? "--calibration-data with no pass that calibrates: a warning, the run goes on"
run --strict --passes nvfp4-weights "$W/gpt2.onnx" --calibration-data "$M/gpt2.calib" -o "$W/bad.onnx"
fails $? 2 "$W/bad.onnx" &&
	grep -q "^qopt: error: --calibration-data given, but no pass .*\[--strict\]" "$work/log"
check $? "--calibration-data with no pass that calibrates, --strict: exit 2, no output"
run --passes fp8 "$W/resnet_cnn.onnx" --calibration-data "$M/resnet_cnn.calib" \
	--calibration-random 2 -o "$W/bad.onnx"
fails $? 2 "$W/bad.onnx" && grep -q "give either --calibration-data DIR or --calibration-random N, not both" "$work/log"
check $? "--calibration-data and --calibration-random: usage, exit 2"
run --passes fp8 "$W/resnet_cnn.onnx" --calibration-data "$M/resnet_cnn.calib" --dim x=3 -o "$W/bad.onnx"
fails $? 2 "$W/bad.onnx" && grep -q "\-\-dim belongs to --calibration-random" "$work/log"
check $? "--dim without --calibration-random: usage, exit 2"
run dump "$W/resnet_cnn.onnx" --calibration-data "$M/resnet_cnn.calib"
[ $? = 2 ] && grep -q "belong to the main command (qopt MODEL -o OUT), not to 'dump'" "$work/log"
check $? "qopt dump --calibration-data: usage, exit 2"

# SIGINT to qopt, then to the script, while the second pass's ranges
# are measured: exit 130, no output, the temporary folder (the model's
# copy, the first pass's file) removed. The stand-in for node
# (qopt_interrupt) runs the first calibration in the real node, then
# records its pid and waits.
printf '#!/bin/sh\ncase $(cat "%s/calls" 2>/dev/null) in\n"") echo 1 >"%s/calls"; exec "%s" "$@";;\nesac\necho $$ >"%s/slow.pid"\nexec sleep 60\n' \
	"$work" "$work" "$NODE" "$work" >"$work/slow-node"
chmod +x "$work/slow-node"
for who in qopt script; do
	rm -f "$work/calls"
	qopt_interrupt INT $who "$QOPT" -p "$W/w4a4.ini" "$W/gpt2.onnx" \
		--calibration-data "$M/gpt2.calib" -o "$W/int.onnx"
	[ $st = 130 ] && [ -n "$spid" ] && ! kill -0 "$spid" 2>/dev/null &&
		[ ! -e "$W/int.onnx" ] && ! left
	check $? "SIGINT to the $who during the second calibration: exit 130, no output, temporary folder removed (got $st)"
done

[ "$(cat "$W/resnet_cnn.onnx" "$W/gpt2.onnx" "$W/gqa.onnx" | cksum)" = "$sum0" ] && ! left
check $? "the input models are untouched, no temporary folder left"
exit $failed
