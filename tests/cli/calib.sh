#!/bin/sh
# tests/cli/calib.sh - `qopt calibrate` and `fp8-mha calibration = FILE` on
# plain FP32 models made by tests/cli/calib-gen.py: amax exactly as NumPy
# computes it over the same inputs; bad samples refused by name, type
# and shape; the calibrated fp8-mha output in TensorRT's FP8 form (every
# attention block fusible) and accurate in ONNX Runtime (graph
# optimization basic) on held-back inputs; a file made for another model
# refused; a tensor missing from the file skipped with the reason.
. "$top_srcdir/tests/ort/common.sh"

qopt_need_py_onnx
qopt_need_ort
qopt_workdir calib
# calibrate's temporary folders go in $work/tmp; the last check wants none left.
qopt_calib_env
gen() { "$py" "$top_srcdir/tests/cli/calib-gen.py" "$@" ||
	{ echo "Bail out! calib-gen.py $*"; exit 1; }; }

for k in exact vit decoder smallhead shuffled decoder16; do gen model $k "$work/$k.onnx"; done
gen samples exact "$work/cal_exact" 6 1
gen samples vit "$work/cal_vit" 16 2
gen samples vit "$work/held_vit" 16 3
gen samples decoder "$work/cal_dec" 16 4
gen samples decoder "$work/held_dec" 16 5
gen samples decoder16 "$work/cal_dec16" 16 4
gen samples decoder16 "$work/held_dec16" 16 5

echo "1..40"

# same JSON FILE NUMPY_JSON: every tensor NumPy measured has exactly its
# amax in FILE, and FILE has no other.
same() {
	"$py" - "$1" "$2" >>"$work/log" 2>&1 <<'PY'
import json, sys
got = json.load(open(sys.argv[1]))["tensors"]
want = json.loads(sys.argv[2])
bad = [k for k in set(got) | set(want)
       if k not in got or k not in want or got[k]["amax"] != want[k]]
for k in bad:
    print(k, got.get(k), want.get(k))
sys.exit(1 if bad else 0)
PY
}

cal() { "$QOPT" calibrate "$@" >"$work/log" 2>&1; }

cal "$work/exact.onnx" --data "$work/cal_exact" -o "$work/exact.json"
check $? "calibrate: runs over a folder of input_0.pb and .npy samples"
same "$work/exact.json" "$(gen amax exact "$work/cal_exact")"
check $? "calibrate: amax equals NumPy's over the same inputs, exactly"
cal "$work/exact.onnx" --data "$work/cal_exact" --percentile 90 \
	-o "$work/exact90.json"
same "$work/exact90.json" "$(gen amax exact "$work/cal_exact" 90)"
check $? "calibrate: --percentile 90 equals NumPy's nearest-rank percentile"
grep -q '"model_hash": "[0-9a-f]\{16\}"' "$work/exact.json"
check $? "calibrate: the file carries the model hash"

# Bad samples: each fails, names what is wrong, writes nothing.
mkdir -p "$work/bad_name/s" "$work/bad_type/s" "$work/bad_shape/s"
"$py" - "$work" <<'PY'
import numpy as np, sys
w = sys.argv[1]
np.save(w + "/bad_name/s/z.npy", np.zeros((3, 8), np.float32))
np.save(w + "/bad_type/s/x.npy", np.zeros((3, 8), np.float64))
np.save(w + "/bad_shape/s/x.npy", np.zeros((3, 7), np.float32))
PY
for c in "name:the model has no input 'z'" \
	 "type:input 'x' is DOUBLE, the model wants FLOAT" \
	 "shape:input 'x' has shape \[3,7\], the model wants \[3,8\]"; do
	what=${c%%:*} msg=${c#*:}
	cal "$work/exact.onnx" --data "$work/bad_$what" -o "$work/bad.json"
	rc=$?
	[ $rc = 1 ] && grep -q "$msg" "$work/log" && [ ! -e "$work/bad.json" ]
	check $? "calibrate: a sample with the wrong $what is refused by name"
done
mkdir -p "$work/no_x/s"
cal "$work/exact.onnx" --data "$work/no_x" -o "$work/bad.json"
[ $? = 1 ] && grep -q "no_x/s: no data for input 'x' (FLOAT\[3,8\])" "$work/log" &&
	[ ! -e "$work/bad.json" ]
check $? "calibrate: a sample missing an input is refused by name"
cal "$work/exact.onnx" --data "$work/cal_exact" --percentile 101
[ $? = 2 ] && grep -q "percentile takes a number from 50 to 100, got 101" "$work/log"
check $? "calibrate: --percentile out of range is a usage error"
cal "$work/missing.onnx" --data "$work/cal_exact" -o "$work/bad.json"
[ $? = 1 ] && grep -q "missing.onnx" "$work/log" && [ ! -e "$work/bad.json" ]
check $? "calibrate: a missing model is named"
QOPT_ORT_DIR="$work/no-ort" cal "$work/exact.onnx" --data "$work/cal_exact" \
	-o "$work/bad.json"
[ $? = 1 ] && grep -q "qopt calibrate: error: onnxruntime-node not found" "$work/log" &&
	[ ! -e "$work/bad.json" ]
check $? "calibrate: no ONNX Runtime is a clear error"
"$py" -c 'import onnx, sys; m = onnx.load(sys.argv[1]); del m.graph.value_info[:]; onnx.save(m, sys.argv[2])' \
	"$work/exact.onnx" "$work/untyped.onnx"
cal "$work/untyped.onnx" --data "$work/cal_exact" -o "$work/untyped.json" &&
	same "$work/untyped.json" "$(gen amax exact "$work/cal_exact")"
check $? "calibrate: a model without value_info (untyped intermediates), same amax"
cal "$work/exact.onnx" --random 2 --seed 3 -o "$work/rand.json"
[ $? = 0 ] && grep -q "smoke test only" "$work/log" &&
	grep -q '"source": "random (seed 3): smoke test only' "$work/rand.json"
check $? "calibrate: --random is labelled a smoke test, in the log and the file"
cal "$work/exact.onnx" --random 1 --dim n=x
[ $? = 2 ] && grep -q "dim expects NAME=VALUE with a positive integer VALUE, got n=x" "$work/log"
check $? "calibrate: a --dim that is not a positive integer is a usage error"
# The progress bar shows on a terminal (script(1) gives it one).
if command -v script >/dev/null 2>&1; then
	script -qec "'$QOPT' calibrate '$work/exact.onnx' --data '$work/cal_exact' -o '$work/tty.json'" \
		/dev/null 2>&1 | tr '\r' '\n' >"$work/log"
	grep -q "^qopt calibrate: \[#*\] 6/6 samples" "$work/log" &&
		grep -q "^qopt calibrate: \[#* *\] 1/6 samples" "$work/log"
	check $? "calibrate: a progress bar over samples on a terminal"
else
	n=$((n + 1))
	echo "ok $n # SKIP script(1) not installed"
fi
cal "$work/exact.onnx"
[ $? = 2 ] && grep -q "give either --data DIR or --random N" "$work/log"
check $? "calibrate: no samples given is a usage error"

# structure FILE EXPECT_BLOCKS: Q/DQ on every MatMul/Gemm input, weights
# stored FP8, no float weight left, one Q/DQ per shared tensor.
structure() {
	"$py" - "$@" >>"$work/log" 2>&1 <<'PY'
import sys, onnx
from onnx import TensorProto
m = onnx.load(sys.argv[1])
g = m.graph
inits = {i.name: i for i in g.initializer}
prod = {o: n for n in g.node for o in n.output}
bad = []
for n in g.node:
    if n.op_type not in ("MatMul", "Gemm"):
        continue
    for x in n.input[:2]:
        p = prod.get(x)
        if p is None or p.op_type != "DequantizeLinear":
            bad.append("%s input %s not from a DQ" % (n.name, x))
            continue
        src = p.input[0]
        if src in inits and inits[src].data_type != 17:
            bad.append("%s weight %s not FP8" % (n.name, src))
qs = [n.input[0] for n in g.node if n.op_type == "QuantizeLinear"]
if len(qs) != len(set(qs)):
    bad.append("a tensor quantized twice")
if any(n.op_type == "QuantizeLinear" and n.input[0] in inits for n in g.node):
    bad.append("a weight left behind Q")
axes = [a.i for n in g.node if n.op_type == "DequantizeLinear"
        for a in n.attribute if a.name == "axis"]
if len(sys.argv) > 2 and len(axes) != int(sys.argv[2]):
    bad.append("%d per-axis DQ, expected %s" % (len(axes), sys.argv[2]))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
}

# accuracy REF CAND DIR MAXREL TOP1: ORT on held-back inputs.
accuracy() {
	r=$(qopt_node "$top_srcdir/tests/cli/calib-ort.js" "$1" "$2" "$3" 2>>"$work/log")
	echo "# $(basename "$2"): $r"
	echo "$r" >>"$work/log"
	"$py" -c 'import json,sys; r=json.loads(sys.argv[1]); sys.exit(0 if r["maxrel"] <= float(sys.argv[2]) and r["top1"] >= float(sys.argv[3]) else 1)' "$r" "$4" "$5"
}

fp8() {
	"$QOPT" --stats "$@" >"$work/log" 2>&1
}

cal "$work/vit.onnx" --data "$work/cal_vit" -o "$work/vit.json"
check $? "calibrate: ViT-style model (16 samples)"
fp8 --passes "fp8-mha:calibration=$work/vit.json" "$work/vit.onnx" \
	-o "$work/vit.fp8.onnx" && grep -q "attention: 2 of 2 blocks fusible" "$work/log"
check $? "fp8-mha calibration: ViT (Div after BMM1), 2 of 2 attention blocks fusible"
structure "$work/vit.fp8.onnx"
check $? "fp8-mha calibration: ViT, Q/DQ on every MatMul/Gemm input, FP8 weights"
accuracy "$work/vit.onnx" "$work/vit.fp8.onnx" "$work/held_vit" 0.15 0.85
check $? "fp8-mha calibration: ViT in ORT on held-back inputs: max rel. error <= 0.15, top-1 >= 85%"

cal "$work/decoder.onnx" --data "$work/cal_dec" -o "$work/dec.json"
check $? "calibrate: decoder block (16 samples)"
fp8 --passes "fp8-mha:calibration=$work/dec.json:weight_axis=yes" \
	"$work/decoder.onnx" -o "$work/dec.fp8.onnx" &&
	grep -q "attention: 1 of 1 blocks fusible" "$work/log"
check $? "fp8-mha calibration: decoder (scale Mul before BMM1, causal mask), fusible"
structure "$work/dec.fp8.onnx" 7
check $? "fp8-mha calibration: decoder, per-channel FP8 weights, shared Q/DQ"
accuracy "$work/decoder.onnx" "$work/dec.fp8.onnx" "$work/held_dec" 0.12 0.9
check $? "fp8-mha calibration: decoder in ORT on held-back inputs: max rel. error <= 0.12, top-1 >= 90%"

# FLOAT16: amax read from FLOAT16 outputs, scales in FLOAT16.
cal "$work/decoder16.onnx" --data "$work/cal_dec16" -o "$work/dec16.json" &&
fp8 --passes "fp8-mha:calibration=$work/dec16.json" "$work/decoder16.onnx" \
	-o "$work/dec16.fp8.onnx" && grep -q "attention: 1 of 1 blocks fusible" "$work/log"
check $? "fp8-mha calibration: FLOAT16 decoder, fusible"
structure "$work/dec16.fp8.onnx" && "$py" - "$work/dec16.fp8.onnx" >>"$work/log" 2>&1 <<'PY'
import sys, onnx
g = onnx.load(sys.argv[1]).graph
inits = {i.name: i for i in g.initializer}
bad = [n.input[1] for n in g.node if n.op_type in ("QuantizeLinear", "DequantizeLinear")
       and inits[n.input[1]].data_type != 10]
sys.exit("scales not FLOAT16: %s" % bad if bad else 0)
PY
check $? "fp8-mha calibration: FLOAT16 decoder, every scale FLOAT16 (no Cast before MatMul)"
accuracy "$work/decoder16.onnx" "$work/dec16.fp8.onnx" "$work/held_dec16" 0.12 0.9
check $? "fp8-mha calibration: FLOAT16 decoder in ORT: max rel. error <= 0.12, top-1 >= 90%"

# A file made for another model.
fp8 --passes "fp8-mha:calibration=$work/vit.json" "$work/decoder.onnx" \
	-o "$work/wrong.onnx"
[ $? = 1 ] && grep -q "is for model hash" "$work/log" && [ ! -e "$work/wrong.onnx" ]
check $? "fp8-mha calibration: a file for another model is refused, nothing written"

# A tensor missing from the file: skipped with the reason, the rest placed.
"$py" - "$work/dec.json" "$work/dec-miss.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
del d["tensors"]["d0_ln1"]
json.dump(d, open(sys.argv[2], "w"))
PY
fp8 --passes "fp8-mha:calibration=$work/dec-miss.json" "$work/decoder.onnx" \
	-o "$work/miss.onnx" &&
	grep -q "tensor 'd0_ln1' is not in calibration file" "$work/log" &&
	grep -q "7 calibration: activation Q/DQ inserted" "$work/log"
check $? "fp8-mha calibration: a tensor missing from the file is skipped with the reason"

# 200 tensors: read whole (past the first growth of the list), then the
# hash refuses the file (a repeated key: tests/passes/fp8/calib-file.sh).
"$py" - "$work/twice.json" <<'PY'
import sys
one = ", ".join('"t%d": {"amax": %d}' % (i, i + 1) for i in range(200))
open(sys.argv[1], "w").write('{"model_hash": "00", "tensors": {%s}}' % one)
PY
fp8 --passes "fp8-mha:calibration=$work/twice.json" "$work/decoder.onnx" \
	-o "$work/twice.onnx"
[ $? = 1 ] && grep -q "is for model hash" "$work/log" && [ ! -e "$work/twice.onnx" ]
check $? "fp8-mha calibration: 200 tensors are read whole, then the hash decides"

printf '{"model_hash": "00", "tensors": {"a": {"amax": }}}' >"$work/broken.json"
fp8 --passes "fp8-mha:calibration=$work/broken.json" "$work/decoder.onnx" \
	-o "$work/broken.onnx"
[ $? = 1 ] && grep -q "calibration file '.*broken.json': expected a number at byte" "$work/log"
check $? "fp8-mha calibration: a malformed file is refused with the byte offset"

fp8 --passes "fp8-mha:calibration=$work/dec.json:exclude=d0_fc*" \
	"$work/decoder.onnx" -o "$work/excl.onnx" &&
	grep -q "calibration: 2 nodes left out by include/exclude" "$work/log"
check $? "fp8-mha calibration: exclude leaves the matching MatMuls in float"

fp8 --passes "fp8-mha:calibration=$work/dec.json:include=nothing*" \
	"$work/decoder.onnx" -o "$work/none.onnx" &&
	grep -q "warning: calibration: no MatMul/Gemm matches include/exclude/op_types" "$work/log"
check $? "fp8-mha calibration: include matching nothing warns"

# Head size 8: the attention block stays in float, saying so.
cal "$work/smallhead.onnx" --data "$work/cal_dec" -o "$work/small.json" &&
fp8 --passes "fp8-mha:calibration=$work/small.json" "$work/smallhead.onnx" \
	-o "$work/small.fp8.onnx" &&
	grep -q "attention at Softmax 'd0_softmax' left unquantized: head size 8 outside 9..256" "$work/log" &&
	grep -q "1 calibration: attention left unquantized (head size)" "$work/log" &&
	! grep -q "Softmax Q/DQ inserted" "$work/log" &&
	"$py" - "$work/small.fp8.onnx" >>"$work/log" 2>&1 <<'PY'
import sys, onnx
g = onnx.load(sys.argv[1]).graph
prod = {o: n for n in g.node for o in n.output}
for n in g.node:
    if n.name in ("d0_bmm1", "d0_bmm2"):
        for x in n.input:
            if x in prod and prod[x].op_type == "DequantizeLinear":
                sys.exit("%s: %s from a DQ" % (n.name, x))
    if n.name == "d0_q" and prod[n.input[0]].op_type != "DequantizeLinear":
        sys.exit("projection d0_q not quantized")
PY
check $? "fp8-mha calibration: attention with head size 8 left in float, with the reason"

# Nodes listed out of order: qopt calibrate hashes the model as qopt
# loads it (sorted), which is what fp8-mha sees.
cal "$work/shuffled.onnx" --data "$work/cal_dec" -o "$work/shuf.json" &&
fp8 --passes "fp8-mha:calibration=$work/shuf.json" "$work/shuffled.onnx" \
	-o "$work/shuf.fp8.onnx" && grep -q "attention: 1 of 1 blocks fusible" "$work/log"
check $? "calibrate + fp8-mha on a model whose nodes are out of order: hashes agree"

# After a pass that changed the model (hadamard-rotate rotates the
# weights): the file no longer describes it, refused.
fp8 --passes "hadamard-rotate,fp8-mha:calibration=$work/dec.json" \
	"$work/decoder.onnx" -o "$work/late.onnx"
[ $? = 1 ] && grep -q "hadamard-rotate: done: .*rotated" "$work/log" &&
	grep -q "is for model hash" "$work/log" && [ ! -e "$work/late.onnx" ]
check $? "fp8-mha calibration after a pass that changed the model: refused"

"$py" -c '
import onnx, sys
from onnx import helper, TensorProto as T
g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
    [helper.make_tensor_value_info("x", T.FLOAT, [2])],
    [helper.make_tensor_value_info("y", T.FLOAT, [2])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), sys.argv[1])' \
	"$work/relu.onnx"
cal "$work/relu.onnx" --random 1 -o "$work/relu.json"
[ $? = 1 ] && grep -q "qopt: fp8-calibrate-place: calibration: no MatMul, Gemm or Conv with a non-constant float input$" "$work/log" &&
	grep -q "relu.onnx: error: the pipeline's passes ask for no tensor: nothing to calibrate" "$work/log" &&
	[ ! -e "$work/relu.json" ]
check $? "calibrate: a model with nothing to calibrate says so"

# SIGTERM to qopt alone while the script runs (qopt_interrupt: a
# stand-in for node records its pid and waits): the script is ended, the
# folder removed, and qopt ends by the signal.
qopt_interrupt TERM qopt "$QOPT" calibrate "$work/exact.onnx" \
	--data "$work/cal_exact" -o "$work/slow.json"
[ "$tmp_before" = 1 ] && [ $st = 143 ] && [ -n "$spid" ] &&
	! kill -0 "$spid" 2>/dev/null && [ ! -e "$work/slow.json" ]
check $? "calibrate: SIGTERM while the script runs: the script ended, exit 143 (folders there before: $tmp_before)"

! ls "$work/tmp" | grep -q "^qopt-calib-"
check $? "calibrate: no temporary folder left behind, failed runs and SIGTERM included"

# ONNX Runtime's node binding leaves an empty mat-debug-PID.log in
# TMPDIR per run (named after node's pid): qopt removes its script's.
# (This test's own ORT runs leave theirs: counted before and after.)
logs() { ls "$work/tmp" | grep -c "^mat-debug-.*\.log$"; }
l0=$(logs)
cal "$work/exact.onnx" --data "$work/cal_exact" -o "$work/again.json"
rc=$?
nlog=$(( $(logs) - l0 ))
[ $rc = 0 ] && [ "$nlog" = 0 ]
check $? "calibrate: no mat-debug log of ONNX Runtime left in TMPDIR (new ones: $nlog)"

exit $failed
