# tests/lib/common.sh - sourced by the TAP scripts of tests/manager, cli, abi, ...
# Gives: $W (an empty work folder), $PL (the test plugins), $W/m.onnx
# (a small model), and ok/run/has helpers. End with done_testing.
n=0
failed=0
PL="$top_builddir/tests/plugins/.libs"
# The folder is named by the script's path under tests/ (manager/plugins
# and abi/plugins are two tests).
rel=${0##*tests/}
W="$top_builddir/tests/work/${rel%.sh}"
rm -rf "$W"
mkdir -p "$W" || exit 1

# ok STATUS DESCRIPTION: STATUS 0 passes; on failure the last command's
# stderr is shown as diagnostics.
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
		[ -f "$W/err" ] && sed 's/^/# stderr: /' "$W/err" | head -20
		[ -f "$W/out" ] && sed 's/^/# stdout: /' "$W/out" | head -20
	fi
}

# run CMD...: stdout to $W/out, stderr to $W/err, status in $rc.
run() {
	"$@" >"$W/out" 2>"$W/err"
	rc=$?
}

# has TEXT FILE: FILE contains TEXT (fixed string).
has() {
	grep -qF -- "$1" "$2"
}

t() {
	desc=$1
	shift
	if "$@"; then ok 0 "$desc"; else ok 1 "$desc"; fi
}

# skip DESCRIPTION WHY: a check that cannot run here is a TAP SKIP with
# its reason, never a check that silently disappears.
skip() {
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}

done_testing() {
	echo "1..$n"
	[ "$failed" = 0 ]
}

"$top_builddir/tests/lib/mkmodel" "$W/m.onnx" 2>"$W/err" || {
	echo "Bail out! tests/lib/mkmodel cannot write a model: $(cat "$W/err")"
	exit 1
}
