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
