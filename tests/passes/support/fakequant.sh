#!/bin/sh
# tests/passes/support/fakequant.sh - a fake-quantized weight is not
# quantized again. `nvfp4-weights:mode=fake,fp8` rounded the same
# weights to NVFP4 and then to FP8 without a word (fake values are plain
# float again). The fake passes now record each weight in the model's
# metadata (qopt.fake_quantized) and the weight passes skip a recorded
# weight with a warning (passes/support/fakequant.c).
. "$top_srcdir/tests/ort/common.sh"
qopt_need_py_onnx
qopt_workdir fakequant
M="$top_srcdir/tests/torch/models/vit_sdpa.onnx"
cd "$work" || exit 1

# weights A B: 0 when every onnx::MatMul_* initializer of A is in B with
# the same bytes
same_weights() {
	"$py" - "$1" "$2" <<'PY'
import sys, onnx
a, b = (onnx.load(p) for p in sys.argv[1:3])
wa = {t.name: t for t in a.graph.initializer if t.name.startswith("onnx::MatMul_")}
wb = {t.name: t for t in b.graph.initializer}
bad = [n for n, t in wa.items() if n not in wb or wb[n].SerializeToString() != t.SerializeToString()]
print("# %d weights, %d differ or missing: %s" % (len(wa), len(bad), bad[:3]))
sys.exit(0 if wa and not bad else 1)
PY
}

"$QOPT" "$M" -o once.onnx --passes nvfp4-weights:mode=fake >"$work/log" 2>&1
check $? "nvfp4-weights:mode=fake on vit_sdpa"
"$py" -c 'import onnx, sys
m = onnx.load("once.onnx")
v = {p.key: p.value for p in m.metadata_props}.get("qopt.fake_quantized", "")
print("#", v[:120])
sys.exit(0 if v.count("format=nvfp4;") == 12 else 1)' >"$work/log" 2>&1
check $? "the 12 fake-quantized weights are recorded in metadata qopt.fake_quantized"

"$QOPT" "$M" -o twice.onnx \
	--passes nvfp4-weights:mode=fake,nvfp4-weights:mode=fake >"$work/err" 2>&1
st=$?
cp "$work/err" "$work/log"
[ $st = 0 ] && [ "$(grep -c "nvfp4-weights: warning: weight 'onnx::MatMul_[0-9]*' skipped (fake-quantized already): it holds nvfp4 fake-quantized values already" "$work/err")" = 12 ]
check $? "nvfp4-weights twice: the second skips each of the 12 weights with a warning"
same_weights once.onnx twice.onnx >"$work/log" 2>&1
check $? "nvfp4-weights twice: the weights are those of one run (rounded once)"
"$QOPT" once.onnx -o again.onnx --passes nvfp4-weights:mode=fake >"$work/err" 2>&1
grep -q "skipped (fake-quantized already)" "$work/err"
check $? "the record travels with the file: a later qopt run skips them too"
"$QOPT" "$M" -o real.onnx --passes nvfp4-weights >"$work/log" 2>&1 &&
	"$py" -c 'import onnx, sys
sys.exit(any(p.key == "qopt.fake_quantized" for p in onnx.load("real.onnx").metadata_props))'
check $? "real mode records nothing (its weights are behind a DequantizeLinear)"

# fp8-mha's weight_mode = fake writes DQ(Q(W)) as float: recorded too.
"$QOPT" "$top_srcdir/tests/torch/models/vit_sdpa_fp8_std.onnx" -o mha.onnx \
	--passes fp8-mha:weight_mode=fake,nvfp4-weights:mode=fake >"$work/err" 2>&1
st=$?
cp "$work/err" "$work/log"
k=$("$py" -c 'import onnx
m = onnx.load("mha.onnx")
print({p.key: p.value for p in m.metadata_props}.get("qopt.fake_quantized", "").count("format=fp8;"))' 2>>"$work/log")
echo "# $k weights recorded as fp8" >>"$work/log"
[ $st = 0 ] && [ "${k:-0}" -gt 0 ] &&
	[ "$(grep -c "nvfp4-weights: warning: weight '[^']*' skipped (fake-quantized already): it holds fp8 fake-quantized values already" "$work/err")" = "$k" ]
check $? "fp8-mha:weight_mode=fake then nvfp4-weights: each FP8-fake weight recorded and skipped with a warning"

why=$(qopt_ort_missing)
if [ -n "$why" ]; then
	n=$((n + 1)); echo "ok $n - nvfp4-weights:mode=fake,fp8 # SKIP $why"
	n=$((n + 1)); echo "ok $n - fp8 leaves the fake weights as they were # SKIP $why"
else
	qopt_calib_env
	"$QOPT" "$M" -o fp8.onnx --passes nvfp4-weights:mode=fake,fp8 \
		--calibration-data "$top_srcdir/tests/torch/models/vit_sdpa.calib" \
		>"$work/err" 2>&1
	st=$?
	cp "$work/err" "$work/log"
	[ $st = 0 ] && [ "$(grep -c "fp8: warning: weight 'onnx::MatMul_[0-9]*' skipped (fake-quantized already): it holds nvfp4 fake-quantized values already" "$work/err")" = 12 ] &&
		grep -q " 2 calibration: weights quantized" "$work/err"
	check $? "nvfp4-weights:mode=fake,fp8: fp8 skips the 12 NVFP4-fake weights with a warning, quantizes the other 2"
	same_weights once.onnx fp8.onnx >"$work/log" 2>&1
	check $? "fp8 leaves the fake weights as they were"
fi
echo "1..$n"
exit $failed
