#!/bin/sh
# tests/passes/fp8/int8.sh - the pass int8 (issue 42): `qopt calibrate
# --passes int8` then `int8:calibration=FILE` on the torch-exported CNNs
# (tests/torch/models: resnet_cnn, unet_cnn) and small models of
# tests/passes/fp8/int8-gen.py and fp8-gen.py (an opset-11 Gemm with
# transB and a MatMul, FLOAT16, Convs in If branches). The output's form
# (fp8-check.py form-int8: every layer INT8 on both inputs, per-channel
# INT8 weights whose scales and codes equal NumPy's bit for bit,
# TensorRT's INT8 Q/DQ rules, the residual rule), the codes equal ONNX
# Runtime's QuantizeLinear of the float weights byte for byte, `qopt
# verify` accepts it, ORT runs it at graph optimization basic within
# cosine bounds of the float model, every layer left in float named
# with its reason, bad options refused.
. "$top_srcdir/tests/ort/common.sh"

qopt_need_py_onnx
qopt_need_ort
qopt_workdir int8
qopt_calib_env
gen() { "$py" "$top_srcdir/tests/passes/fp8/int8-gen.py" "$@" ||
	{ echo "Bail out! int8-gen.py $*"; exit 1; }; }
gen8() { "$py" "$top_srcdir/tests/passes/fp8/fp8-gen.py" "$@" ||
	{ echo "Bail out! fp8-gen.py $*"; exit 1; }; }
tm="$top_srcdir/tests/torch/models"
for k in gemm11 nanconv asym; do
	gen model $k "$work/$k.onnx"
	gen samples $k "$work/$k.cal" 4 1
	gen samples $k "$work/$k.held" 4 2
done
for k in ifconv fp16conv; do
	gen8 model $k "$work/$k.onnx"
	gen8 samples $k "$work/$k.cal" 6 1
	gen8 samples $k "$work/$k.held" 4 2
done

echo "1..27"

cal() { "$QOPT" calibrate "$@" >"$work/log" 2>&1; }
int8() { "$QOPT" "$1" -o "$2" --passes "int8:calibration=$3${4:+:$4}" -v \
	>"$work/log" 2>&1; }
form() { "$py" "$top_srcdir/tests/passes/fp8/fp8-check.py" form-int8 "$@" \
	>>"$work/log" 2>&1; }
ortcheck() { "$top_builddir/tools/qopt-ort-check" "$@" --stats-only \
	>>"$work/log" 2>&1; }
# ortcodes ORIG OUT: ORT's QuantizeLinear of ORIG's weights = OUT's codes
ortcodes() {
	rm -rf "$work/oq" && mkdir "$work/oq" &&
		gen ortq "$1" "$2" "$work/oq" >"$work/oq/n" &&
		[ "$(cat "$work/oq/n")" -gt 0 ] &&
		qopt_node "$top_srcdir/tests/ort/run-compare.js" --exact \
			"$work/oq/q.onnx" "$work/oq/codes.onnx" >>"$work/log" 2>&1
}
verify() { "$QOPT" verify "$1" >>"$work/log" 2>&1; }

# The torch-exported CNNs.
for m in resnet_cnn unet_cnn; do
	cal "$tm/$m.onnx" --data "$tm/$m.calib" --passes int8 -o "$work/$m.json" &&
		int8 "$tm/$m.onnx" "$work/$m.i8.onnx" "$work/$m.json" &&
		form "$tm/$m.onnx" "$work/$m.i8.onnx"
	check $? "$m: every Conv/ConvTranspose/Gemm INT8 on both inputs, per-channel INT8 weights exact, TensorRT's rules, residual rule"
	ortcodes "$tm/$m.onnx" "$work/$m.i8.onnx"
	check $? "$m: the weight codes are ONNX Runtime's QuantizeLinear of the float weights, byte for byte"
	verify "$work/$m.i8.onnx"
	check $? "$m: qopt verify accepts the output"
done
cal "$tm/resnet_cnn.onnx" --data "$tm/resnet_cnn.calib" --passes fp8 -o "$work/r8.json" &&
	int8 "$tm/resnet_cnn.onnx" "$work/r8.onnx" "$work/r8.json" &&
	cmp "$work/r8.onnx" "$work/resnet_cnn.i8.onnx" >>"$work/log" 2>&1
check $? "resnet_cnn: a file from qopt calibrate --passes fp8 serves int8 (the same tensors): the same model byte for byte"
"$QOPT" "$tm/resnet_cnn.onnx" -o "$work/r.onnx" \
	--passes "int8:calibration=$work/resnet_cnn.json" -v 2>&1 |
	grep -c "Q/DQ on its shortcut" >"$work/n" && [ "$(cat "$work/n")" = 4 ]
check $? "resnet_cnn: each of its 4 residual Adds gets its shortcut Q/DQ"
ortcheck "$tm/resnet_cnn.onnx" "$work/resnet_cnn.i8.onnx" \
	--inputs "$tm/resnet_cnn.held" --min-cosine 0.999 --min-top1 0.75
check $? "resnet_cnn: ORT (basic) runs it, cosine >= 0.999, top-1 >= 0.75 vs float"
ortcheck "$tm/unet_cnn.onnx" "$work/unet_cnn.i8.onnx" \
	--inputs "$tm/unet_cnn.held" --min-cosine 0.999
check $? "unet_cnn: ORT (basic) runs it, cosine >= 0.999 vs float"
"$py" "$top_srcdir/tests/passes/fp8/fp8-check.py" count "$work/unet_cnn.i8.onnx" \
	DequantizeLinear >"$work/n" && [ "$(cat "$work/n")" = 26 ]
check $? "unet_cnn: 13 layers, 26 DequantizeLinear (ConvTranspose weights on axis 1)"

# Opset 11: raised to 13 for per-axis DQ; Gemm per output column with
# transB = 1 (axis 0), MatMul per column (axis 1).
g=$work/gemm11
cal "$g.onnx" --data "$g.cal" --passes int8 -o "$g.json" &&
	int8 "$g.onnx" "$g.i8.onnx" "$g.json" &&
	grep -q "upgraded ai.onnx opset 11 -> 13 for per-axis INT8 DequantizeLinear" "$work/log" &&
	form "$g.onnx" "$g.i8.onnx"
check $? "gemm11: opset 11 raised to 13, Gemm (transB) and MatMul per output column, exact"
ortcheck "$g.onnx" "$g.i8.onnx" --inputs "$g.held" --min-cosine 0.999 &&
	ortcodes "$g.onnx" "$g.i8.onnx"
check $? "gemm11: ORT runs it (cosine >= 0.999) and its QuantizeLinear gives the stored codes"
printf '[qopt]\nmax_opset = 12\n[int8]\ncalibration = %s\n' "$g.json" >"$work/p.ini"
"$QOPT" "$g.onnx" -o "$work/no.onnx" -p "$work/p.ini" >"$work/log" 2>&1
[ $? != 0 ] && grep -q "max_opset" "$work/log" && grep -q "INT8" "$work/log" &&
	[ ! -e "$work/no.onnx" ]
check $? "[qopt] max_opset = 12: the upgrade INT8 needs is refused with the reason, nothing written"

# FLOAT16: scales in FLOAT16 need opset 19 (QuantizeLinear-13 takes
# FLOAT scales only); ORT checked at disabled (docs/fp8.md: ORT's
# FLOAT16 DQ -> Conv -> Q rewrite at basic).
h=$work/fp16conv
cal "$h.onnx" --data "$h.cal" --passes int8 -o "$h.json" &&
	int8 "$h.onnx" "$h.i8.onnx" "$h.json" &&
	grep -q "opset 17 -> 19 for INT8 Q/DQ with FLOAT16 or BFLOAT16 scales" "$work/log" &&
	form "$h.onnx" "$h.i8.onnx"
check $? "fp16conv: FLOAT16 scales, opset raised to 19, INT8 weights exact"
ortcheck "$h.onnx" "$h.i8.onnx" --inputs "$h.held" --min-cosine 0.999 \
	--opt-level disabled && ortcodes "$h.onnx" "$h.i8.onnx"
check $? "fp16conv: ORT runs it (cosine >= 0.999) and its QuantizeLinear gives the stored codes"

# Convs in both branches of an If.
f=$work/ifconv
cal "$f.onnx" --data "$f.cal" --passes int8 -o "$f.json" &&
	int8 "$f.onnx" "$f.i8.onnx" "$f.json" && form "$f.onnx" "$f.i8.onnx" &&
	ortcheck "$f.onnx" "$f.i8.onnx" --inputs "$f.held" --min-cosine 0.999
check $? "ifconv: INT8 inside both branches, ORT runs both, cosine >= 0.999"

# Layers left in float: each named with its reason.
k=$work/nanconv
cal "$k.onnx" --data "$k.cal" --passes int8 -o "$k.json" &&
	int8 "$k.onnx" "$k.i8.onnx" "$k.json" &&
	grep -q "node 'cb' (Conv): int8: layers left in float: weight 'wb' holds NaN or Inf (element 54): INT8 has no code for it" "$work/log" &&
	form "$k.onnx" "$k.i8.onnx" cb
check $? "a weight holding NaN: its layer stays float, named; the other INT8"
a=$work/asym
cal "$a.onnx" --data "$a.cal" --passes int8 -o "$a.json" &&
	int8 "$a.onnx" "$a.i8.onnx" "$a.json" &&
	grep -q "node 'conv0' (Conv): int8: layers left in float: input 'xd0' is already quantized as UINT8, not INT8" "$work/log" &&
	grep -q "node 'conv1' (Conv): int8: layers left in float: input 'xd1' is dequantized with a zero point that is not a constant 0" "$work/log"
check $? "inputs already quantized as UINT8 or with a zero point: layers float, named"
r=$tm/resnet_cnn.onnx rj=$work/resnet_cnn.json
int8 "$r" "$work/ex.onnx" "$rj" "exclude=/layers/layers.0/*" &&
	grep -q "node.* left out by include/exclude" "$work/log" &&
	form "$r" "$work/ex.onnx" "/layers/layers.0/c1/Conv,/layers/layers.0/c2/Conv"
check $? "exclude: the excluded Convs stay float, the others INT8, said in the log"
int8 "$r" "$work/ms.onnx" "$rj" "min_size=500" &&
	grep -q "node '/stem/stem.0/Conv' (Conv): int8: layers left in float: weight '.*' has 432 elements, fewer than min_size = 500" "$work/log" &&
	form "$r" "$work/ms.onnx" "/stem/stem.0/Conv"
check $? "min_size: a smaller layer stays float, named with its weight's size"
int8 "$r" "$work/pt.onnx" "$rj" "weight_axis=no" &&
	"$py" - "$work/pt.onnx" <<'PY'
import onnx, sys
m = onnx.load(sys.argv[1])
dq = [n for n in m.graph.node if n.op_type == "DequantizeLinear"]
sys.exit(not dq or any(a.name == "axis" for n in dq for a in n.attribute))
PY
check $? "weight_axis = no: one weight scale per tensor"
int8 "$r" "$work/cov.onnx" "$rj" "op_types=Gemm" &&
	grep -q "coverage: quantized 1 of 1 weights" "$work/log" &&
	"$py" "$top_srcdir/tests/passes/fp8/fp8-check.py" count "$work/cov.onnx" \
		DequantizeLinear >"$work/n" && [ "$(cat "$work/n")" = 2 ]
check $? "op_types = Gemm: only the Gemm quantized (2 DequantizeLinear), the coverage says so"

# Bad options and files: clear errors, nothing written.
bad() {
	"$QOPT" "$r" -o "$work/bad.onnx" --passes "$1" >"$work/log" 2>&1
	[ $? != 0 ] && grep -q "$2" "$work/log" && [ ! -e "$work/bad.onnx" ]
}
bad "int8:calibration=$rj:op_types=Relu" "Relu.*Conv, ConvTranspose, MatMul, Gemm\|Conv, ConvTranspose, MatMul, Gemm.*Relu"
check $? "op_types outside Conv, ConvTranspose, MatMul, Gemm is refused, naming the choices"
bad "int8:calibration=$rj:weight_mode=fake" "weight_mode"
check $? "weight_mode is not an option of int8 (INT8 runs where TensorRT does)"
bad "int8" "option calibration is not set: int8 places Q/DQ from measured ranges only.*--passes int8 -o"
check $? "no calibration file: an error saying how to make one"
bad "int8:calibration=$work/unet_cnn.json" "is for model hash .*run int8 first"
check $? "a file made for another model is refused"
exit $failed
