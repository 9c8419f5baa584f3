# tests/ort/common.sh - sourced by shell tests that use ONNX Runtime.
# Needs tests/env.sh (AM_TESTS_ENVIRONMENT sources it).

# Why ORT cannot be used, or nothing when it can.
qopt_ort_missing() {
	case $NODE in
	''|no) echo "node not found at configure time"; return;;
	esac
	if [ ! -f "$QOPT_ORT_DIR/.stamp" ] ||
	   [ ! -d "$QOPT_ORT_DIR/node_modules/onnxruntime-node" ]; then
		if [ -s "$QOPT_ORT_DIR/setup.log" ]; then
			echo "ONNX Runtime not installed: $(head -n1 "$QOPT_ORT_DIR/setup.log")"
		else
			echo "ONNX Runtime not installed (tests/ort/setup.sh has not run)"
		fi
	fi
}

# Prints a TAP skip plan and exits when ORT is unavailable.
qopt_need_ort() {
	why=$(qopt_ort_missing)
	if [ -n "$why" ]; then
		echo "1..0 # SKIP $why"
		exit 0
	fi
}

# qopt_need_py_onnx: sets $py to a python3 with numpy and onnx (Debian's
# first), or skips the whole test saying so.
qopt_need_py_onnx() {
	py=
	for p in /usr/bin/python3 "$PYTHON3"; do
		if [ -x "$p" ] && "$p" -c 'import numpy, onnx' 2>/dev/null; then
			py=$p
			return 0
		fi
	done
	echo "1..0 # SKIP no python3 with numpy and onnx"
	exit 0
}

# qopt_workdir NAME: a fresh folder under the build tree, removed on
# exit unless QOPT_KEEP_WORK is set. Sets $work.
# qopt_calib_env: after qopt_workdir, what every `qopt calibrate` test
# sets: its temporary folders under $work/tmp (a check may want none
# left), this tree's node and ORT script.
qopt_calib_env() {
	mkdir -p "$work/tmp" || { echo "Bail out! cannot create $work/tmp"; exit 1; }
	TMPDIR="$work/tmp"
	QOPT_NODE=$NODE
	QOPT_CALIBRATE_ORT="$top_builddir/tools/qopt-calibrate-ort"
	export TMPDIR QOPT_NODE QOPT_CALIBRATE_ORT
}

qopt_workdir() {
	work="$top_builddir/tests/work/$1"
	rm -rf "$work"
	mkdir -p "$work" || { echo "Bail out! cannot create $work"; exit 1; }
	if [ -z "$QOPT_KEEP_WORK" ]; then
		trap 'rm -rf "$work"' EXIT
		trap 'rm -rf "$work"; exit 1' HUP INT TERM
	fi
}

# qopt_interrupt SIG WHO CMD...: a stop while the calibration script
# runs. CMD (qopt, or a wrapper running it as a child, as in the
# sanitizer build) runs in the background with QOPT_NODE=$work/slow-node,
# a stand-in for node that writes its pid to $work/slow.pid and waits
# (written here unless the test wrote its own);
# SIG is restored to the default (a background job of a script starts
# with SIGINT ignored, and qopt leaves an ignored signal ignored). Once
# the pid is there (30 s at most), SIG goes to qopt (WHO=qopt: the
# stand-in's parent) or to the stand-in (WHO=script). Needs $py. Sets
# $st (CMD's exit status), $spid (the stand-in's pid, empty if it never
# started) and $tmp_before (qopt-calib- folders in $TMPDIR just before
# the signal). CMD's output goes to $work/log.
qopt_interrupt() {
	sig=$1 who=$2
	shift 2
	if [ ! -x "$work/slow-node" ]; then
		printf '#!/bin/sh\necho $$ >"%s/slow.pid"\nexec sleep 60\n' \
			"$work" >"$work/slow-node" && chmod +x "$work/slow-node"
	fi
	rm -f "$work/slow.pid"
	QOPT_NODE="$work/slow-node" "$py" -c 'import os, signal, sys
signal.signal(getattr(signal, "SIG" + sys.argv[1]), signal.SIG_DFL)
os.execvp(sys.argv[2], sys.argv[2:])' "$sig" "$@" >"$work/log" 2>&1 &
	qpid=$!
	k=0
	while [ ! -s "$work/slow.pid" ] && [ $k -lt 300 ]; do
		sleep 0.1
		k=$((k + 1))
	done
	tmp_before=$(ls "$TMPDIR" | grep -c "^qopt-calib-")
	spid=$(cat "$work/slow.pid" 2>/dev/null)
	ppid=$(ps -o ppid= -p "$spid" 2>/dev/null | tr -d ' ')
	if [ "$who" = qopt ]; then
		kill -"$sig" "${ppid:-$qpid}"
	else
		kill -"$sig" "$spid"
	fi
	wait $qpid
	st=$?
}

# Runs node with the ORT helpers resolvable from the build tree.
qopt_node() {
	NODE_PATH="$QOPT_ORT_DIR/node_modules${NODE_PATH:+:$NODE_PATH}" \
		"$NODE" "$@"
}

# check STATUS DESCRIPTION: one TAP line, numbered in $n. A failure sets
# failed=1 and shows $work/log as diagnostics; the log is emptied after
# every check so each one shows only its own output.
n=0
failed=0
check() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=1
		[ -s "$work/log" ] && sed 's/^/# /' "$work/log" | head -n 30
	fi
	: >"$work/log"
}

# qopt_hang_js FILE: a stand-in for a node script that never ends: it
# writes its pid and that of a sleep it starts (same group) to
# $HANG_PIDS, leaves the files ONNX Runtime's node package leaves in
# TMPDIR (mat-debug-PID.log, .ses), ignores SIGTERM and spins. The
# bounds tests give it 3 s and more, so that node has started it and
# it has written its pids before the bound ends it, on a loaded machine
# too.
qopt_hang_js() {
	cat >"$1" <<'JS'
'use strict';
const fs = require('fs'), cp = require('child_process');
process.on('SIGTERM', () => {});
const kid = cp.spawn('sleep', ['1000'], { stdio: 'ignore' });
fs.writeFileSync(process.env.HANG_PIDS, `${process.pid} ${kid.pid}\n`);
fs.writeFileSync(`${process.env.TMPDIR}/mat-debug-${process.pid}.log`, '');
fs.writeFileSync(`${process.env.TMPDIR}/.ses`, '');
for (;;);
JS
}

qopt_dead_or_zombie() {
	case $(ps -o stat= -p "$1" 2>/dev/null | tr -d ' ') in ''|Z*) true;; *) false;; esac
}

# qopt_gone FILE: the stand-in (the first pid in FILE) ended and reaped:
# no process, no zombie; what it started (the second) ended: gone, or a
# zombie of init (which reaps it; a container's init may not). The
# stand-in is reaped before qopt returns; the sleep's SIGKILL may still
# be on its way on a loaded machine, so its end is waited for (a
# generous bound on a hang, nothing timed).
qopt_gone() {
	set -- $(cat "$1")
	[ $# = 2 ] && [ -z "$(ps -o stat= -p "$1" 2>/dev/null)" ] || return 1
	k=0
	while ! qopt_dead_or_zombie "$2" && [ $k -lt 300 ]; do
		sleep 0.1
		k=$((k + 1))
	done
	qopt_dead_or_zombie "$2"
}
