#!/bin/sh
# tests/manager/calib-forward.sh - the one-command form (`qopt MODEL
# --calibration-data DIR`, core/calib/calib-run.c) through the manager's
# hook (core/manager/calib-query.c), with the test plugin calib-pipe: the
# file measured for a step of a named pipeline goes to that step and to
# the later steps of the same pipeline that take option `calibration`,
# not to an earlier step, not past the pipeline (a second expansion of
# it measures its own); a pass that asks for ranges but has no option
# `calibration` fails the run, named, with no output.
. "$top_srcdir/tests/ort/common.sh"

qopt_need_py_onnx
qopt_need_ort
qopt_workdir calib-forward
qopt_calib_env
L="--load $top_builddir/tests/plugins/.libs/calib-pipe.so"
"$top_builddir/tests/lib/mkmodel" "$work/m.onnx" ||
	{ echo "Bail out! tests/lib/mkmodel"; exit 1; }
# two samples of the model's input X [1, 4]
"$py" -c 'import numpy as np, os, sys
for i in range(2):
    d = os.path.join(sys.argv[1], "s%d" % i)
    os.makedirs(d)
    np.save(os.path.join(d, "X.npy"), np.linspace(-1, i + 1, 4, dtype=np.float32).reshape(1, 4))' \
	"$work/cal" || { echo "Bail out! samples"; exit 1; }

echo "1..5"

q() { "$QOPT" $L "$@" >"$work/log" 2>&1; }
left() { ls "$work/tmp" | grep -q "^qopt-calib-"; }
# said: what each step said of its option, one line each, in run order
said() { sed -n 's/^qopt: \(t-calib-[a-z]*\): calibration \(.*\)$/\1 \2/p' "$work/log"; }

q --passes t-calib-pipe,t-calib-echo "$work/m.onnx" --calibration-data "$work/cal" \
	-o "$work/o.onnx"
rc=$?
said >"$work/said"
f=$(sed -n '2s/^t-calib-read \(.*\) (readable)$/\1/p' "$work/said")
[ $rc = 0 ] && [ -n "$f" ] && grep -q "t-calib-read: read: holds the tensor" "$work/log" &&
	grep -q "t-calib-read: calibration: 1 tensors over 2 samples (max) -> the pass" "$work/log" &&
	[ "$(sed -n 3p "$work/said")" = "t-calib-echo $f (readable)" ]
check $? "the file measured for a pipeline's step (its tensor over the 2 samples) goes to a later step of it, there when it runs"
[ "$(sed -n 1p "$work/said")" = "t-calib-echo none" ] &&
	[ "$(sed -n 4p "$work/said")" = "t-calib-echo none" ] &&
	[ "$(wc -l <"$work/said")" = 4 ] && [ -s "$work/o.onnx" ] && ! left
check $? "not to the step before it, nor to a pass after the pipeline; temporary folder removed"

q --passes t-calib-pipe:tensor=X,t-calib-pipe:tensor=A "$work/m.onnx" \
	--calibration-data "$work/cal" -o "$work/o2.onnx"
rc=$?
said >"$work/said"
f1=$(sed -n '2s/^t-calib-read \(.*\) (readable)$/\1/p' "$work/said")
f2=$(sed -n '5s/^t-calib-read \(.*\) (readable)$/\1/p' "$work/said")
[ $rc = 0 ] && [ -n "$f1" ] && [ -n "$f2" ] && [ "$f1" != "$f2" ] &&
	[ "$(sed -n 3p "$work/said")" = "t-calib-echo $f1 (readable)" ] &&
	[ "$(sed -n 4p "$work/said")" = "t-calib-echo none" ] &&
	[ "$(sed -n 6p "$work/said")" = "t-calib-echo $f2 (readable)" ] &&
	[ "$(grep -c "t-calib-read: read: holds the tensor" "$work/log")" = 2 ] && ! left
check $? "the pipeline twice: each expansion measures its own, the first's file not handed to the second"

q --passes t-calib-echo,t-calib-blind "$work/m.onnx" --calibration-data "$work/cal" \
	-o "$work/blind.onnx"
[ $? = 1 ] && grep -q "^qopt: t-calib-blind: error: asks which tensors to calibrate but has no option 'calibration' to read them from$" "$work/log" &&
	! grep -q "t-calib-blind: ran" "$work/log" && [ ! -e "$work/blind.onnx" ] && ! left
check $? "a pass that asks for ranges without option 'calibration': exit 1 naming it, no output"

q --passes t-calib-blind "$work/m.onnx" -o "$work/plain.onnx"
[ $? = 0 ] && grep -q "t-calib-blind: ran" "$work/log" && [ -s "$work/plain.onnx" ]
check $? "the same pass without --calibration-data runs"

exit $failed
