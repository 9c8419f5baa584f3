#!/bin/sh
# tests/python/runner.sh - the Python package's calibration runner, the
# qopt_calib_runner it hands libqopt (tests/python/runner.py): the
# launcher by the job's kind, a failing launcher's status and message,
# a launcher deaf to SIGTERM ended with its group at the bound, node or
# a launcher missing. Stand-ins for node and the launchers: no ORT.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/python/common.sh"
PYTHONPATH="$top_srcdir/tests/python:$PYTHONPATH" \
	py_checks "$top_srcdir/tests/python/runner.py" "$W"
done_testing
