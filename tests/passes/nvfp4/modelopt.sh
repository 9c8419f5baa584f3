#!/bin/sh
# tests/passes/nvfp4/modelopt.sh - a ModelOpt-style W4A4 export (weights behind
# trt::TRT_FP4QDQ, activations through trt::TRT_FP4DynamicQuantize and
# two DequantizeLinear; with and without FP8 attention quantizers;
# tests/passes/nvfp4/modelopt.py): nvfp4 mode = fake
# turns both into standard ops that ONNX Runtime runs, equal to a NumPy
# reference of the exporter's semantics; the real mode types the
# dynamic quantizer's outputs; the weight the export left float stays
# float unless include says otherwise; a TRT_FP4QDQ on an activation is
# an error naming the node, or, with a calibration file, the dynamic
# form.
. "$top_srcdir/tests/ort/common.sh"
qopt_need_py_onnx
qopt_workdir nvfp4-modelopt

"$py" "$top_srcdir/tests/passes/nvfp4/modelopt.py" "$work" >"$work/log" 2>&1
check $? "generate the export and the NumPy reference"

"$QOPT" --stats --passes nvfp4:mode=fake "$work/w4a4.onnx" \
	-o "$work/fake.onnx" >"$work/fake.log" 2>&1 &&
	grep -q "2 TRT_FP4DynamicQuantize to fake form" "$work/fake.log" &&
	grep -q " 2 weights quantized" "$work/fake.log" &&
	grep -q "1 left float (not marked by the export)" "$work/fake.log" &&
	grep -q "weight 'head.weight' left float" "$work/fake.log" &&
	"$QOPT" verify "$work/fake.onnx" >"$work/log" 2>&1
r=$?
[ $r = 0 ] || cat "$work/fake.log" >>"$work/log"
check $r "mode = fake: both dynamic chains and both placeholders in standard ops; the head the export left float stays float, said"

if [ -n "$(qopt_ort_missing)" ]; then
	n=$((n + 1))
	echo "ok $n - ORT vs NumPy # SKIP $(qopt_ort_missing)"
else
	qopt_node "$top_srcdir/tests/passes/nvfp4/modelopt.js" "$work/fake.onnx" \
		"$work" >"$work/log" 2>&1
	check $? "the fake form in ONNX Runtime equals the exporter's semantics (NumPy): $(cat "$work/log")"
fi

# With FP8 attention quantizers (NVFP4_FP8_MHA_CONFIG): nvfp4 then fp8-mha.
"$QOPT" --stats --passes nvfp4:mode=fake,fp8-mha "$work/attn.onnx" \
	-o "$work/attn.fake.onnx" >"$work/attn.log" 2>&1 &&
	grep -q "4 TRT_FP4DynamicQuantize to fake form" "$work/attn.log" &&
	grep -q " 4 weights quantized" "$work/attn.log" &&
	grep -q "attention: 1 of 1 blocks fusible" "$work/attn.log" &&
	"$QOPT" verify "$work/attn.fake.onnx" >"$work/log" 2>&1
r=$?
[ $r = 0 ] || cat "$work/attn.log" >>"$work/log"
check $r "with FP8 attention: nvfp4 mode = fake, fp8-mha: every linear layer W4A4 in standard ops, the block fusible"
if [ -n "$(qopt_ort_missing)" ]; then
	n=$((n + 1))
	echo "ok $n - ORT vs NumPy # SKIP $(qopt_ort_missing)"
else
	qopt_node "$top_srcdir/tests/passes/nvfp4/modelopt.js" "$work/attn.fake.onnx" \
		"$work" attn_ >"$work/log" 2>&1
	check $? "... in ONNX Runtime equal to the exporter's semantics (NumPy): $(cat "$work/log")"
fi
"$QOPT" --stats --passes nvfp4,fp8-mha "$work/attn.onnx" -o "$work/attn.real.onnx" \
	>"$work/log" 2>&1 &&
	grep -q "attention: 1 of 1 blocks fusible" "$work/log" &&
	grep -q "4 TRT_FP4DynamicQuantize outputs typed" "$work/log" &&
	"$QOPT" verify "$work/attn.real.onnx" >>"$work/log" 2>&1
check $? "... real mode: chains typed, the block fusible, verified"

"$QOPT" --stats --passes nvfp4 "$work/w4a4.onnx" -o "$work/real.onnx" \
	>"$work/real.log" 2>&1 &&
	grep -q "2 TRT_FP4DynamicQuantize outputs typed" "$work/real.log" &&
	"$QOPT" dump "$work/real.onnx" >"$work/real.dump" 2>&1 &&
	grep -q "^  l1_in_f4: FLOAT4E2M1\[2,8,64\]" "$work/real.dump" &&
	grep -q "^  l1_in_s8: FLOAT8E4M3FN\[2,8,4\]" "$work/real.dump" &&
	"$QOPT" verify "$work/real.onnx" >"$work/log" 2>&1
r=$?
[ $r = 0 ] || cat "$work/real.log" >>"$work/log"
check $r "real mode: the chains stay, TRT_FP4DynamicQuantize outputs typed FLOAT4E2M1 / FLOAT8E4M3FN"

"$QOPT" --stats --passes nvfp4-weights "$work/w4a4.onnx" -o "$work/w.onnx" \
	>"$work/log" 2>&1 && grep -q " 2 weights quantized" "$work/log" &&
	grep -q "1 left float (not marked by the export)" "$work/log"
check $? "nvfp4-weights too: only the weights the export marked"

"$QOPT" --stats --passes 'nvfp4:mode=fake:include=*:min_size=0' \
	"$work/w4a4.onnx" -o "$work/all.onnx" >"$work/log" 2>&1 &&
	grep -q " 3 weights quantized" "$work/log"
check $? "include = * (set explicitly) selects the float head too"

"$QOPT" --passes nvfp4-weights "$work/bad.onnx" -o "$work/bad.out.onnx" \
	>"$work/log" 2>&1
[ $? != 0 ] && [ ! -e "$work/bad.out.onnx" ] &&
	grep -q "trt::TRT_FP4QDQ node 'act/TRT_FP4QDQ' quantizes 'x', an activation" "$work/log" &&
	grep -q "no engine can be built" "$work/log"
check $? "TRT_FP4QDQ on an activation: an error naming the node and the cause, no output"

# The file's hash must be the model's: taken from the refusal.
printf '{"model_hash": "0", "tensors": {"x": {"amax": 3.5}}}\n' >"$work/c0.json"
"$QOPT" --passes "nvfp4:activations=yes:calibration=$work/c0.json" \
	"$work/bad.onnx" -o "$work/x.onnx" >"$work/log" 2>&1
h=$(sed -n "s/.*this model's is \([0-9a-f]*\).*/\1/p" "$work/log")
printf '{"model_hash": "%s", "tensors": {"x": {"amax": 3.5}}}\n' "$h" >"$work/c.json"
"$QOPT" --stats --passes "nvfp4:activations=yes:mode=fake:calibration=$work/c.json" \
	"$work/bad.onnx" -o "$work/dyn.onnx" >"$work/log" 2>&1 &&
	grep -q "1 TRT_FP4QDQ on activations made dynamic" "$work/log" &&
	"$QOPT" verify "$work/dyn.onnx" >>"$work/log" 2>&1 &&
	! grep -q "TRT_" "$work/dyn.onnx"
check $? "... with activations = yes and its amax in the calibration file: the dynamic form"

echo "1..$n"
exit $failed
