#!/bin/sh
# tools/qopt-ort-check.js: good, bad and skip verdicts in ONNX Runtime,
# and as the test command of qopt bisect. Skipped without node or
# onnxruntime-node (QOPT_ORT_DIR).
. "$top_srcdir/tests/core-lib.sh"
CHK="$top_srcdir/tools/qopt-ort-check.js"
if [ "$NODE" = no ] || [ ! -d "$QOPT_ORT_DIR/node_modules/onnxruntime-node" ]; then
	echo "1..0 # SKIP node or onnxruntime-node not available ($QOPT_ORT_DIR)"
	exit 0
fi
cd "$W" || exit 1
ck() { "$NODE" "$CHK" "$@"; }

run ck m.onnx m.onnx
t "a model against itself is good" eval '[ $rc = 0 ]'
printf 'junk' >junk.onnx
run ck m.onnx junk.onnx
t "a candidate ORT cannot load: 125" eval '[ $rc = 125 ] && has "junk.onnx" "$W/err"'
run ck m.onnx
t "usage error: 2" eval '[ $rc = 2 ]'
"$QOPT" --load "$PL/counter.so" --passes t-perturb:bad=3 m.onnx -o p.onnx 2>"$W/err"
run ck m.onnx p.onnx --seed 7
t "a changed weight makes the outputs differ: 1" \
	eval '[ $rc = 1 ] && has "Y: element 2" "$W/err"'
run ck m.onnx p.onnx --atol 2
t "within --atol it is good" eval '[ $rc = 0 ]'

D="$QOPT_TESTDATA/node/test_abs"
if [ -f "$D/model.onnx" ]; then
	run ck "$D/model.onnx" "$D/model.onnx" --inputs "$D/test_data_set_0"
	t "inputs from input_N.pb" eval '[ $rc = 0 ]'
	run ck "$D/model.onnx" "$QOPT_TESTDATA/node/test_neg/model.onnx" --inputs "$D/test_data_set_0"
	t "abs vs neg on the same inputs differ" eval '[ $rc = 1 ]'
fi

run "$QOPT" bisect --load "$PL/counter.so" --passes t-count:count=5,t-perturb:bad=3 \
	m.onnx --test "'$NODE' '$CHK' m.onnx {}" -o bis
t "bisect with qopt-ort-check finds the perturbing rewrite" \
	has "first bad point: (10) rewrite in pass run (7) t-perturb: W[2]" "$W/out"

done_testing
