#!/bin/sh
# tests/cli/calib-method-hist.sh - the histogram math of qopt calibrate's
# methods (tools/qopt-calib-hist.js) on known distributions: the TAP of
# tests/cli/calib-method-hist.js (node only, no ONNX Runtime).
. "$top_srcdir/tests/lib/common.sh"
case $NODE in
''|no) echo "1..0 # SKIP node not found at configure time"; exit 0;;
esac
exec "$NODE" "$top_srcdir/tests/cli/calib-method-hist.js"
