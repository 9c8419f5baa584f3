# tests/python/common.sh - sourced by the tests of python/ after
# tests/lib/common.sh: $py (a python3 with numpy and onnx, else the
# test SKIPs) running this tree's package against this tree's libqopt,
# passes and ONNX Runtime launchers (docs/python.md, "Finding libqopt").
# qopt_need_session: SKIP unless libqopt has the session API.
py=
for p in /usr/bin/python3 "$PYTHON3"; do
	if [ -x "$p" ] && "$p" -c 'import numpy, onnx' 2>/dev/null; then
		py=$p
		break
	fi
done
if [ -z "$py" ]; then
	echo "1..0 # SKIP no python3 with numpy and onnx"
	exit 0
fi
# In a sanitizer build libqopt needs the ASan and UBSan runtimes loaded
# first, which python3 is not linked with: $py preloads them (leak checks
# off: they would report the interpreter's own allocations), and the
# check scripts drop LD_PRELOAD at once (tests/python/checks.py), so
# node and qopt, their children, start as in any other test.
if [ "$QOPT_SANITIZED" = yes ]; then
	{
		echo '#!/bin/sh'
		echo "LD_PRELOAD='$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)'"
		echo 'ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"'
		echo 'export LD_PRELOAD ASAN_OPTIONS'
		echo "exec '$py' \"\$@\""
	} >"$W/python3-san" && chmod +x "$W/python3-san" && py="$W/python3-san"
fi
PYTHONPATH="$top_srcdir/python${PYTHONPATH:+:$PYTHONPATH}"
PYTHONDONTWRITEBYTECODE=1
QOPT_LIBRARY="$top_builddir/.libs/libqopt.so.4"
QOPT_CALIBRATE_ORT="$top_builddir/tools/qopt-calibrate-ort"
QOPT_PLAN_ORT="$top_builddir/tools/qopt-plan-ort"
QOPT_NODE=$NODE
# This tree's built-in passes, never an installed copy's.
QOPT_BUILTIN_DIR="$top_builddir/passes/.libs"
export PYTHONPATH PYTHONDONTWRITEBYTECODE QOPT_LIBRARY QOPT_CALIBRATE_ORT \
	QOPT_PLAN_ORT QOPT_NODE QOPT_BUILTIN_DIR
mkdir -p "$W/tmp" && TMPDIR="$W/tmp" && export TMPDIR

# What the session API needs, or nothing when this libqopt has it.
qopt_session_missing() {
	"$py" -c '
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
for f in sys.argv[2:]:
    if not hasattr(lib, f):
        print("libqopt has no %s() (include/qopt/session.h, plan.h)" % f)
        break
' "$QOPT_LIBRARY" "$@"
}

# py_checks SCRIPT ARGS...: runs a Python check script whose lines
# "PASS text", "FAIL text" and "SKIP text # why" become TAP checks
# (other lines are diagnostics); a script that dies is a failed check.
py_checks() {
	"$py" "$@" >"$W/py.out" 2>"$W/py.err"
	py_rc=$?
	while IFS= read -r line; do
		case $line in
		"PASS "*) ok 0 "${line#PASS }";;
		"FAIL "*) ok 1 "${line#FAIL }";;
		"SKIP "*) d=${line#SKIP }; skip "${d%% \# *}" "${d#* \# }";;
		*) echo "# $line";;
		esac
	done <"$W/py.out"
	sed 's/^/# stderr: /' "$W/py.err" | tail -n 30
	ok "$py_rc" "$(basename "$1") ran to its end"
}
