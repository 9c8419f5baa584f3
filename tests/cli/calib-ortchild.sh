#!/bin/sh
# tests/cli/calib-ortchild.sh - the ONNX Runtime child of `qopt
# calibrate`, of the one-command form (--calibration-data /
# --calibration-random) and of `qopt plan` (issue 39): a Conv over
# zero input channels (ORT 1.30 never returns from it) refused naming
# the node before ORT sees it; a child that never ends (a stand-in
# script, QOPT_CALIBRATE_ORT / QOPT_PLAN_ORT, deaf to SIGTERM, with a
# process of its own) ended at --ort-timeout or QOPT_ORT_TIMEOUT,
# killed with its group and reaped, exit 1 naming the bound, no
# temporary file left; ORT's own files (mat-debug-PID.log, .ses) never
# left in TMPDIR; a malformed bound a usage error. The bound here only
# ends a hang: the checks are on what happened, never on time.
. "$top_srcdir/tests/ort/common.sh"

qopt_need_py_onnx
qopt_need_ort
qopt_workdir calib-ortchild
qopt_calib_env
unset QOPT_ORT_TIMEOUT
"$py" "$top_srcdir/tests/cli/calib-ortchild.py" "$work" ||
	{ echo "Bail out! calib-ortchild.py"; exit 1; }
n=0
failed=0
run() { "$QOPT" "$@" >"$work/log" 2>&1; }
has() { grep -qF -- "$1" "$work/log"; }
tmp_empty() { [ -z "$(ls -A "$TMPDIR")" ]; }
REAL_ORT=$QOPT_CALIBRATE_ORT

# 1. the zero-channel Conv
run calibrate --passes fp8 "$work/zc.onnx" --random 1 -o "$work/zc.json"
[ $? = 1 ] && has "node 'conv_zero' (Conv): its input 'r' has size 0 on axis 1" &&
	has "refused before ORT runs it" && [ ! -e "$work/zc.json" ]
check $? "calibrate: a Conv over zero input channels refused naming the node, nothing written"
run --passes fp8 "$work/zc.onnx" --calibration-random 1 -o "$work/zc8.onnx"
[ $? = 1 ] && has "node 'conv_zero' (Conv)" && [ ! -e "$work/zc8.onnx" ]
check $? "the one-command form: refused the same way, nothing written"
tmp_empty
check $? "no temporary folder or ORT file left by the refusals"

# 2. a child that never ends: the stand-in writes its pid and the pid
# of a sleep it started (same group), ignores SIGTERM and spins
qopt_hang_js "$work/hang.js"
export QOPT_CALIBRATE_ORT="$work/hang.js"
HANG_PIDS="$work/p1" run calibrate --passes fp8 "$work/mlp.onnx" --data "$work/samples" \
	--ort-timeout 3 -o "$work/h.json"
[ $? = 1 ] && has "ONNX Runtime did not finish within 3 s (--ort-timeout, QOPT_ORT_TIMEOUT)" &&
	has "ended (SIGTERM, then SIGKILL); no calibration file written" && [ ! -e "$work/h.json" ]
check $? "calibrate --ort-timeout 3 on a child that never ends: exit 1, said, nothing written"
qopt_gone "$work/p1"
check $? "the child (deaf to SIGTERM) and the process it started: killed and reaped"
tmp_empty
check $? "the temporary folder and the files the child wrote there removed"
HANG_PIDS="$work/p2" QOPT_ORT_TIMEOUT=3 run --passes fp8 "$work/mlp.onnx" \
	--calibration-data "$work/samples" -o "$work/h.onnx"
[ $? = 1 ] && has "ONNX Runtime did not finish within 3 s" && [ ! -e "$work/h.onnx" ] &&
	qopt_gone "$work/p2" && tmp_empty
check $? "the one-command form, bound by QOPT_ORT_TIMEOUT: ended, reaped, nothing left"
HANG_PIDS="$work/p3" QOPT_ORT_TIMEOUT=3 run --passes fp8 "$work/mlp.onnx" \
	--calibration-random 1 --ort-timeout 4 -o "$work/h.onnx"
[ $? = 1 ] && has "within 4 s" && qopt_gone "$work/p3"
check $? "--ort-timeout wins over QOPT_ORT_TIMEOUT"
for bad in -1 1.5 x 31536001 ''; do
	run calibrate --passes fp8 "$work/mlp.onnx" --random 1 --ort-timeout "$bad" -o "$work/b.json"
	[ $? = 2 ] && has "--ort-timeout takes seconds from 0 (no bound) to 31536000"
	check $? "calibrate --ort-timeout '$bad': usage, 2"
done
run --passes fp8 "$work/mlp.onnx" --ort-timeout 5 -o "$work/b.onnx"
[ $? = 2 ] && has "belong to --calibration-data DIR"
check $? "--ort-timeout without --calibration-data: usage, 2"
QOPT_ORT_TIMEOUT=soon run calibrate --passes fp8 "$work/mlp.onnx" --random 1 -o "$work/b.json"
[ $? = 2 ] && has "QOPT_ORT_TIMEOUT takes seconds" && tmp_empty
check $? "a malformed QOPT_ORT_TIMEOUT: usage, 2, named, nothing left"

# A stop while the child runs, no bound: qopt's guard ends the child,
# SIGKILL after SIGTERM's grace since it is deaf to SIGTERM, then qopt
# ends by the signal. The wait for the pid file and for qopt only end a
# hang (generous); nothing is timed.
HANG_PIDS="$work/p5" "$QOPT" calibrate --passes fp8 "$work/mlp.onnx" --random 1 \
	--ort-timeout 0 -o "$work/s.json" >"$work/log" 2>&1 &
q=$!
k=0
while [ ! -s "$work/p5" ] && [ $k -lt 600 ]; do sleep 0.1; k=$((k + 1)); done
# the signal goes to qopt, the deaf child's parent: $q may be a wrapper
# running qopt (the sanitizer build's tests/san/qopt.sh)
qp=$(ps -o ppid= -p "$(cut -d ' ' -f 1 "$work/p5")" 2>/dev/null | tr -d ' ')
kill -TERM "${qp:-$q}"
k=0
while kill -0 $q 2>/dev/null && [ $k -lt 600 ]; do sleep 0.1; k=$((k + 1)); done
kill -KILL $q 2>/dev/null
wait $q
st=$?
[ $st = 143 ] && qopt_gone "$work/p5" && [ ! -e "$work/s.json" ] && tmp_empty
check $? "SIGTERM to qopt while a child deaf to SIGTERM runs: the child killed and reaped, exit 143, nothing left (got $st)"
# had the guard left it (the failure above), the rest must not see it
kill -KILL $(cat "$work/p5" 2>/dev/null) 2>/dev/null

# qopt plan: its node script (QOPT_PLAN_ORT) bound the same way (nvfp4
# and none: no calibration runs before it)
export QOPT_CALIBRATE_ORT=$REAL_ORT
HANG_PIDS="$work/p4" QOPT_PLAN_ORT="$work/hang.js" run plan "$work/mlp.onnx" \
	--data "$work/samples" --formats nvfp4,none --effective-bits 16 --ort-timeout 3 \
	-o "$work/plan.ini"
[ $? = 1 ] && has "qopt plan: error: ONNX Runtime did not finish within 3 s" &&
	[ ! -e "$work/plan.ini" ] && qopt_gone "$work/p4" && tmp_empty
check $? "qopt plan --ort-timeout 3 on a node script that never ends: ended, reaped, nothing left"
run plan "$work/zc.onnx" --data "$work/samples" --formats fp8,none --effective-bits 16 \
	-o "$work/zplan.ini"
[ $? != 0 ] && has "conv_zero" && [ ! -e "$work/zplan.ini" ]
check $? "qopt plan on the zero-channel Conv: refused naming the node"

# 3. the real script: nothing of ORT's left in TMPDIR (.ses included)
run calibrate --passes fp8 "$work/mlp.onnx" --data "$work/samples" -o "$work/ok.json"
[ $? = 0 ] && [ -s "$work/ok.json" ] && tmp_empty
check $? "calibrate in real ORT: TMPDIR as it was (no mat-debug-PID.log, no .ses)"
run --passes fp8 "$work/mlp.onnx" --calibration-data "$work/samples" -o "$work/ok.onnx"
[ $? = 0 ] && tmp_empty
check $? "the one-command form: the same"
run calibrate --passes fp8 "$work/mlp.onnx" --random 1 --dim nosuch=2 -o "$work/d.json"
[ $? = 2 ] && has "no input dimension 'nosuch' (its symbolic dimensions: 'n')" && tmp_empty
check $? "calibrate --dim naming no dimension of the model: usage, 2, as qopt-ort-check"

echo "1..$n"
[ "$failed" = 0 ]
