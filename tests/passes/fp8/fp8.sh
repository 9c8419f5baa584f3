#!/bin/sh
# tests/passes/fp8/fp8.sh - the pass fp8 (issue 29): `qopt calibrate --passes fp8`
# then `fp8:calibration=FILE` on torch-exported CNNs (tests/torch/
# models: resnet_cnn, unet_cnn) and small models of tests/passes/fp8/fp8-gen.py
# (Conv 1-D and 3-D, Convs in If branches and a Loop body, FLOAT16).
# The output's form (tests/passes/fp8/fp8-check.py: every layer FP8 on both
# inputs, per-channel FP8 weights whose scales and codes equal NumPy's
# bit for bit, the residual rule), ONNX Runtime runs it (FP8 FLOAT32
# at graph optimization basic, FLOAT16 at disabled: docs/fp8.md) within
# cosine/top-1 bounds of the float model, subgraph ranges equal
# NumPy's, every layer left in float named with its reason, bad options
# refused.
. "$top_srcdir/tests/ort/common.sh"

qopt_need_py_onnx
qopt_need_ort
qopt_workdir fp8
qopt_calib_env
gen() { "$py" "$top_srcdir/tests/passes/fp8/fp8-gen.py" "$@" ||
	{ echo "Bail out! fp8-gen.py $*"; exit 1; }; }
tm="$top_srcdir/tests/torch/models"
for k in ifconv loopconv conv13 fp16conv scanconv; do
	gen model $k "$work/$k.onnx"
	gen samples $k "$work/$k.cal" 6 1
	gen samples $k "$work/$k.held" 4 2
done

echo "1..35"

cal() { "$QOPT" calibrate "$@" >"$work/log" 2>&1; }
fp8() { "$QOPT" "$1" -o "$2" --passes "fp8:calibration=$3${4:+:$4}" \
	>"$work/log" 2>&1; }
form() { "$py" "$top_srcdir/tests/passes/fp8/fp8-check.py" form "$@" >>"$work/log" 2>&1; }
ortcheck() { "$top_builddir/tools/qopt-ort-check" "$@" --stats-only \
	>>"$work/log" 2>&1; }

# same JSON NUMPY_JSON: each tensor NumPy measured has its amax in JSON
# (relative 1e-5: ORT computes the Convs in FP32, NumPy in FP64).
same() {
	"$py" - "$1" "$2" >>"$work/log" 2>&1 <<'PY'
import json, sys
got = json.load(open(sys.argv[1]))["tensors"]
want = json.loads(sys.argv[2])
bad = [k for k in want if k not in got or
       abs(got[k]["amax"] - want[k]) > 1e-5 * want[k]]
for k in bad:
    print(k, got.get(k), want[k])
sys.exit(1 if bad else 0)
PY
}

# The torch-exported CNNs.
for m in resnet_cnn unet_cnn; do
	cal "$tm/$m.onnx" --data "$tm/$m.calib" --passes fp8 -o "$work/$m.json"
	check $? "$m: qopt calibrate --passes fp8 measures it"
	fp8 "$tm/$m.onnx" "$work/$m.fp8.onnx" "$work/$m.json" &&
		form "$tm/$m.onnx" "$work/$m.fp8.onnx"
	check $? "$m: every Conv/ConvTranspose/Gemm FP8 on both inputs, per-channel FP8 weights exact, residual rule"
done
"$QOPT" "$tm/resnet_cnn.onnx" -o "$work/r.onnx" \
	--passes "fp8:calibration=$work/resnet_cnn.json" -v 2>&1 |
	grep -c "Q/DQ on its shortcut" >"$work/n" && [ "$(cat "$work/n")" = 4 ]
check $? "resnet_cnn: each of its 4 residual Adds gets its shortcut Q/DQ"
ortcheck "$tm/resnet_cnn.onnx" "$work/resnet_cnn.fp8.onnx" \
	--inputs "$tm/resnet_cnn.held" --min-cosine 0.99 --min-top1 0.75
check $? "resnet_cnn: ORT (basic) runs it, cosine >= 0.99, top-1 >= 0.75 vs float"
ortcheck "$tm/unet_cnn.onnx" "$work/unet_cnn.fp8.onnx" \
	--inputs "$tm/unet_cnn.held" --min-cosine 0.99
check $? "unet_cnn: ORT (basic) runs it, cosine >= 0.99 vs float"
"$py" "$top_srcdir/tests/passes/fp8/fp8-check.py" count "$work/unet_cnn.fp8.onnx" \
	DequantizeLinear >"$work/n" && [ "$(cat "$work/n")" = 26 ]
check $? "unet_cnn: 13 layers, 26 DequantizeLinear (ConvTranspose weights on axis 1)"

# 1-D and 3-D convolutions.
cal "$work/conv13.onnx" --data "$work/conv13.cal" --passes fp8 -o "$work/conv13.json" &&
	fp8 "$work/conv13.onnx" "$work/conv13.fp8.onnx" "$work/conv13.json" &&
	form "$work/conv13.onnx" "$work/conv13.fp8.onnx"
check $? "conv13: Conv1d and Conv3d FP8 with per-channel weights"
ortcheck "$work/conv13.onnx" "$work/conv13.fp8.onnx" --inputs "$work/conv13.held" \
	--min-cosine 0.99
check $? "conv13: ORT runs it, cosine >= 0.99"

# Convs in both branches of an If.
cal "$work/ifconv.onnx" --data "$work/ifconv.cal" --passes fp8 -o "$work/ifconv.json"
check $? "ifconv: calibrates (its Convs live in If branches)"
same "$work/ifconv.json" "$(gen amax ifconv "$work/ifconv.cal")"
check $? "ifconv: both branches measured, each over the samples that take it (NumPy's amax)"
fp8 "$work/ifconv.onnx" "$work/ifconv.fp8.onnx" "$work/ifconv.json" &&
	form "$work/ifconv.onnx" "$work/ifconv.fp8.onnx"
check $? "ifconv: FP8 Q/DQ and weights inside both branches"
ortcheck "$work/ifconv.onnx" "$work/ifconv.fp8.onnx" --inputs "$work/ifconv.held" \
	--min-cosine 0.99
check $? "ifconv: ORT runs both branches, cosine >= 0.99"

cal "$work/scanconv.onnx" --data "$work/scanconv.cal" --passes fp8 -o "$work/scan.json"
[ $? = 1 ] && grep -q "tensor 'xt' is inside node 'scan' (Scan): only If branches and Loop bodies can be calibrated" "$work/log" &&
	[ ! -e "$work/scan.json" ]
check $? "a Conv in a Scan body: calibrate refuses, naming the tensor and the node"

# Samples that all take the then branch: the else branch's tensor gets
# amax 0 with a warning, and its layer stays float, named.
mkdir -p "$work/iftrue" && cp -r "$work/ifconv.cal/s00" "$work/ifconv.cal/s02" "$work/iftrue/"
cal "$work/ifconv.onnx" --data "$work/iftrue" --passes fp8 -o "$work/iftrue.json" &&
	grep -q "tensor 'e1s' held no element in any sample" "$work/log" &&
	fp8 "$work/ifconv.onnx" "$work/iftrue.onnx" "$work/iftrue.json" &&
	grep -q "node 'else_conv2' (Conv): fp8: layers left in float: tensor 'e1s': amax 0" "$work/log" &&
	form "$work/ifconv.onnx" "$work/iftrue.onnx" else_conv2
check $? "ifconv: a branch no sample takes: amax 0 with a warning, its layer float and named"

# A Conv in a Loop body: every iteration measured.
cal "$work/loopconv.onnx" --data "$work/loopconv.cal" --passes fp8 -o "$work/loopconv.json" &&
	same "$work/loopconv.json" "$(gen amax loopconv "$work/loopconv.cal")"
check $? "loopconv: the body's Conv input measured over every iteration (NumPy's amax)"
fp8 "$work/loopconv.onnx" "$work/loopconv.fp8.onnx" "$work/loopconv.json" &&
	form "$work/loopconv.onnx" "$work/loopconv.fp8.onnx" &&
	ortcheck "$work/loopconv.onnx" "$work/loopconv.fp8.onnx" \
		--inputs "$work/loopconv.held" --min-cosine 0.99
check $? "loopconv: FP8 inside the Loop body, ORT runs it, cosine >= 0.99"

# FLOAT16: correct at graph optimization disabled (ORT's basic level
# mis-rewrites DQ -> Conv -> Q of FLOAT16, docs/fp8.md).
cal "$work/fp16conv.onnx" --data "$work/fp16conv.cal" --passes fp8 -o "$work/fp16conv.json" &&
	fp8 "$work/fp16conv.onnx" "$work/fp16conv.fp8.onnx" "$work/fp16conv.json" &&
	form "$work/fp16conv.onnx" "$work/fp16conv.fp8.onnx"
check $? "fp16conv: FLOAT16 scales and FP8 weights exact"
ortcheck "$work/fp16conv.onnx" "$work/fp16conv.fp8.onnx" --inputs "$work/fp16conv.held" \
	--min-cosine 0.999 --opt-level disabled
check $? "fp16conv: ORT at graph optimization disabled, cosine >= 0.999"
"$top_builddir/tools/qopt-ort-check" "$work/fp16conv.onnx" "$work/fp16conv.fp8.onnx" \
	--inputs "$work/fp16conv.held" --stats-only --min-cosine 0 >"$work/log" 2>&1 &&
	grep -q "warning: .*fp16conv.fp8.onnx: 1 FLOAT16 DequantizeLinear -> Conv -> QuantizeLinear unit (first: 'ca'): ONNX Runtime at graph optimization basic" "$work/log"
check $? "qopt-ort-check warns of ORT's FLOAT16 DQ -> Conv -> Q trap at basic"
"$top_builddir/tools/qopt-ort-check" "$work/fp16conv.onnx" "$work/fp16conv.fp8.onnx" \
	--inputs "$work/fp16conv.held" --stats-only --min-cosine 0 --opt-level disabled \
	>"$work/log" 2>&1 &&
	"$top_builddir/tools/qopt-ort-check" "$tm/resnet_cnn.onnx" "$work/resnet_cnn.fp8.onnx" \
	--random 1 --stats-only --min-cosine 0 >>"$work/log" 2>&1 &&
	! grep -q "warning" "$work/log"
check $? "qopt-ort-check: no such warning at disabled, nor for a FLOAT32 model"

# Layers left in float: each named with its reason.
r=$tm/resnet_cnn.onnx rj=$work/resnet_cnn.json
fp8 "$r" "$work/ex.onnx" "$rj" "exclude=/layers/layers.0/*" &&
	grep -q "node.* left out by include/exclude" "$work/log" &&
	form "$r" "$work/ex.onnx" "/layers/layers.0/c1/Conv,/layers/layers.0/c2/Conv"
check $? "exclude: the excluded Convs stay float, the others FP8, said in the log"
"$QOPT" "$r" -o "$work/ms.onnx" --passes "fp8:calibration=$rj:min_size=500" -v \
	>"$work/log" 2>&1 &&
	grep -q "node '/stem/stem.0/Conv' (Conv): fp8: layers left in float: weight '.*' has 432 elements, fewer than min_size = 500" "$work/log" &&
	form "$r" "$work/ms.onnx" "/stem/stem.0/Conv"
check $? "min_size: a smaller layer stays float, named with its weight's size"
"$py" - "$rj" "$work/missing.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
del d["tensors"]["x"]
json.dump(d, open(sys.argv[2], "w"))
PY
"$QOPT" "$r" -o "$work/mi.onnx" --passes "fp8:calibration=$work/missing.json" -v \
	>"$work/log" 2>&1 &&
	grep -q "node '/stem/stem.0/Conv' (Conv): fp8: layers left in float: tensor 'x' is not in calibration file" "$work/log" &&
	form "$r" "$work/mi.onnx" "/stem/stem.0/Conv"
check $? "a tensor missing from the file: its layer stays float as a whole, named"
"$QOPT" "$r" -o "$work/pt.onnx" --passes "fp8:calibration=$rj:weight_axis=no" \
	>"$work/log" 2>&1 &&
	"$py" - "$work/pt.onnx" <<'PY'
import onnx, sys
m = onnx.load(sys.argv[1])
sys.exit(any(a.name == "axis" for n in m.graph.node
             if n.op_type == "DequantizeLinear" for a in n.attribute))
PY
check $? "weight_axis = no: one weight scale per tensor"
"$QOPT" "$r" -o "$work/fk.onnx" --passes "fp8:calibration=$rj:weight_mode=fake" \
	>"$work/log" 2>&1 &&
	"$py" -c 'import onnx, sys; m = onnx.load(sys.argv[1]); sys.exit(any(t.data_type == 17 and t.name.endswith("_fp8") for t in m.graph.initializer))' "$work/fk.onnx" &&
	ortcheck "$r" "$work/fk.onnx" --inputs "$tm/resnet_cnn.held" --min-cosine 0.99
check $? "weight_mode = fake: float weights holding DQ(Q(W)), ORT runs it"

# Bad options and files: clear errors, nothing written.
bad() {
	"$QOPT" "$r" -o "$work/bad.onnx" --passes "$1" >"$work/log" 2>&1
	[ $? != 0 ] && grep -q "$2" "$work/log" && [ ! -e "$work/bad.onnx" ]
}
bad "fp8:calibration=$rj:op_types=Relu" "Relu.*Conv, ConvTranspose, MatMul, Gemm\|Conv, ConvTranspose, MatMul, Gemm.*Relu"
check $? "op_types outside Conv, ConvTranspose, MatMul, Gemm is refused, naming the choices"
bad "fp8:calibration=$rj:min_size=-1" "min_size"
check $? "min_size < 0 is refused"
bad "fp8:calibration=$rj:weight_mode=int8" "weight_mode"
check $? "an unknown weight_mode is refused"
bad "fp8" "option calibration is not set: fp8 places Q/DQ from measured ranges only"
check $? "no calibration file: an error saying how to make one"
bad "fp8:calibration=$work/unet_cnn.json" "is for model hash .*run fp8 first"
check $? "a file made for another model is refused"
bad "fp8:calibration=$work/nope.json" "nope.json"
check $? "a missing calibration file is named"

# NVFP4 on a Conv: refused by default (TensorRT has none), kept with
# target=ort.
bad "nvfp4-weights:op_types=MatMul;Conv" "op_types includes Conv, but TensorRT has no NVFP4 convolution.*the pass fp8.*target=ort"
check $? "nvfp4-weights refuses Conv by default, naming fp8 and target=ort"
"$QOPT" "$r" -o "$work/nv.onnx" --passes "nvfp4-weights:op_types=Conv:target=ort:min_size=0" \
	--stats >"$work/log" 2>&1 && grep -q "10 weights quantized" "$work/log"
check $? "nvfp4-weights: target=ort keeps NVFP4 Conv weights"
exit $failed
