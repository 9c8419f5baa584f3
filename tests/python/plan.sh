#!/bin/sh
# tests/python/plan.sh - qopt.plan in process against `qopt plan`
# (tests/python/plan.py): the same INI and choices from a samples
# folder and from NumPy samples, the INI run by qopt.run as by the qopt
# program. SKIP without libqopt's plan (include/qopt/plan.h) or ORT.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/python/common.sh"
. "$top_srcdir/tests/ort/common.sh"
why=$(qopt_session_missing qopt_session_new qopt_session_plan)
if [ -n "$why" ]; then
	echo "1..0 # SKIP $why"
	exit 0
fi
qopt_need_ort
PYTHONPATH="$top_srcdir/tests/python:$PYTHONPATH" \
	py_checks "$top_srcdir/tests/python/plan.py" "$W" "$QOPT"
done_testing
