# tests/passes/fp8/lib.sh - sourced by the fp8-mha test scripts (which set
# $work): running qopt on a model of $work and reading its log.

# run IN OUT [QOPT ARGS...]: qopt --stats on $work/IN.onnx into
# $work/OUT.onnx (removed first); log in $work/OUT.log, status in $rc.
run() {
	in=$1 out=$2
	shift 2
	rm -f "$work/$out.onnx"
	"$QOPT" --stats "$@" "$work/$in.onnx" -o "$work/$out.onnx" \
		>"$work/$out.log" 2>&1
	rc=$?
}

# has OUT TEXT: the log of OUT holds TEXT (a fixed string); else the
# log's head goes to $work/log for the failure report.
has() {
	grep -F -q -- "$2" "$work/$1.log" || {
		echo "missing: $2" >"$work/log"
		sed 's/^/  /' "$work/$1.log" | head -n 20 >>"$work/log"
		return 1
	}
}
