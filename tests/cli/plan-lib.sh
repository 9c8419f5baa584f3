# tests/cli/plan-lib.sh - sourced by the qopt plan tests (after
# tests/ort/common.sh, qopt_workdir and qopt_calib_env).
QOPT_PLAN_ORT="$top_builddir/tools/qopt-plan-ort"
export QOPT_PLAN_ORT

# plan_measure DATA FLOAT RESULT MODEL...: each MODEL's score, cosine and
# top-1 against FLOAT over the samples in DATA, by the script qopt plan
# measures with, written to RESULT (two header lines, then a line per
# model in order). ORT's own mat-debug files go to $work/ort-tmp, not
# $work/tmp, which qopt plan must leave empty.
plan_measure() {
	data=$1 float=$2 res=$3
	shift 3
	"$py" - "$work/measure.json" "$data" "$float" "$res" "$@" <<'PY'
import json, sys
out, data, flt, res = sys.argv[1:5]
json.dump({"model": flt, "float": flt, "data": data, "result": res,
           "verbose": 0, "quiet": 1,
           "candidates": [{"file": f, "what": f} for f in sys.argv[5:]]},
          open(out, "w"))
PY
	mkdir -p "$work/ort-tmp"
	TMPDIR="$work/ort-tmp" qopt_node "$QOPT_PLAN_ORT" "$work/measure.json" \
		>>"$work/log" 2>&1
}
