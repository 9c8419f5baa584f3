#!/bin/sh
# tests/cli/calib-disk.sh - calibration at ONNX Runtime's cost (issue 40):
# the model qopt hands ONNX Runtime refers to the input's external data
# in place (a hard link in the private temporary folder, the same inode
# as the input's data file) instead of a copy of the weights, in
# `qopt calibrate`, in the one-command form and in `qopt plan`'s
# candidate models (each a copy of the model with one layer changed); the model hash reads
# each weight once per process (QOPT_TRACE_HASH), however many passes
# check it; a calibration file carrying the hash an earlier qopt wrote
# (FNV-1a over the bytes) is still taken, one for another model is not.
. "$top_srcdir/tests/ort/common.sh"

qopt_need_py_onnx
qopt_need_ort
qopt_workdir calib-disk
qopt_calib_env
W=$work

echo "1..8"

# Four FLOAT MatMul weights of 256 KiB each, in external data.
"$py" - "$W/m.onnx" <<'PY' || { echo "Bail out! cannot write the model"; exit 1; }
import sys, numpy as np, onnx
from onnx import numpy_helper
from onnx import TensorProto, helper
out = sys.argv[1]
K = 256
inits, nodes = [], []
with open(out + ".data", "wb") as f:
    for i in range(4):
        w = (np.arange(K * K, dtype=np.float32).reshape(K, K) % 7 - 3 + i) / 8
        t = numpy_helper.from_array(w, "w%d" % i)
        nodes.append(helper.make_node("MatMul", ["x", "w%d" % i], ["y%d" % i],
                                      name="mm%d" % i))
        off = f.tell()
        f.write(t.raw_data)
        t.ClearField("raw_data")
        t.data_location = TensorProto.EXTERNAL
        for k, v in (("location", "m.onnx.data"), ("offset", str(off)),
                     ("length", str(K * K * 4))):
            e = t.external_data.add()
            e.key, e.value = k, v
        inits.append(t)
g = helper.make_graph(nodes, "g",
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, K])],
                      [helper.make_tensor_value_info("y%d" % i, TensorProto.FLOAT, [1, K])
                       for i in range(4)], inits)
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
m.ir_version = 8
open(out, "wb").write(m.SerializeToString())
PY
ino=$(stat -c %i "$W/m.onnx.data")

# node, through a wrapper that lists the temporary folder's files (size,
# inode, name) as ONNX Runtime is about to read them.
cat >"$W/node.sh" <<SH
#!/bin/sh
find "$work/tmp" -type f -exec stat -c '%s %i %n' {} + >>"$W/seen"
exec "$NODE" "\$@"
SH
chmod +x "$W/node.sh"

# Files in the temporary folder that are not the input's data file,
# bytes in all, and whether the input's data file was among them.
copied() { awk -v ino="$ino" '$2 != ino { s += $1 } END { print s + 0 }' "$W/seen"; }
linked() { awk -v ino="$ino" '$2 == ino { f = 1 } END { exit !f }' "$W/seen"; }

: >"$W/seen"
QOPT_NODE="$W/node.sh" "$QOPT" calibrate --random 2 --passes fp8 "$W/m.onnx" \
	-o "$W/c.json" >"$work/log" 2>&1 &&
	linked && [ "$(copied)" -lt 65536 ]
check $? "qopt calibrate: the probe links the input's data file (same inode), $(copied) bytes of temporary files besides (no copy of the 1 MiB of weights)"

: >"$W/seen"
QOPT_NODE="$W/node.sh" QOPT_TRACE_HASH=1 "$QOPT" --passes fp8 --calibration-random 2 \
	"$W/m.onnx" -o "$W/one.onnx" >"$work/log" 2>&1 &&
	cp "$work/log" "$W/one.log" && linked && [ "$(copied)" -lt 65536 ]
check $? "one command: the model's copy and its probe link the input's data file, $(copied) bytes of temporary files besides"

[ "$(grep -c "^qopt: hash: read .* of tensor 'w0'$" "$W/one.log")" = 1 ] &&
	[ "$(grep -c "^qopt: hash: read" "$W/one.log")" = 4 ]
check $? "one command: the hash reads each weight once (calibration, then the pass's check)"

"$QOPT" -q --passes "fp8:calibration=$W/c.json" "$W/m.onnx" -o "$W/two.onnx" \
	>"$work/log" 2>&1 &&
	"$py" - "$W/one.onnx" "$W/two.onnx" >>"$work/log" 2>&1 <<'PY'
import sys, onnx
a, b = (onnx.load(p) for p in sys.argv[1:])
sys.exit(a.SerializeToString() != b.SerializeToString())
PY
check $? "one command equals calibrate + calibration=FILE (the models with their data)"

! ls "$work/tmp" | grep -q "^qopt-calib-"
check $? "no temporary folder left"

# The hash qopt 0.6 before ABI 4.3 wrote for tests/torch/models/
# resnet_cnn.onnx: FNV-1a over structure and bytes, byte by byte.
M="$top_srcdir/tests/torch/models"
"$QOPT" calibrate --passes fp8 "$M/resnet_cnn.onnx" --data "$M/resnet_cnn.calib" \
	-o "$W/r.json" >"$work/log" 2>&1 &&
	sed 's/"model_hash": "[0-9a-f]*"/"model_hash": "89F1DD807EA1C99F"/' "$W/r.json" >"$W/old.json" &&
	! cmp -s "$W/r.json" "$W/old.json" &&
	"$QOPT" -q --passes "fp8:calibration=$W/r.json" "$M/resnet_cnn.onnx" \
		-o "$W/r1.onnx" >>"$work/log" 2>&1 &&
	"$QOPT" -q --passes "fp8:calibration=$W/old.json" "$M/resnet_cnn.onnx" \
		-o "$W/r2.onnx" >>"$work/log" 2>&1 &&
	cmp "$W/r1.onnx" "$W/r2.onnx" >>"$work/log" 2>&1
check $? "a calibration file with the hash an earlier qopt wrote is taken (and gives the same model)"

sed 's/"model_hash": "[0-9a-f]*"/"model_hash": "89f1dd807ea1c99e"/' "$W/r.json" >"$W/bad.json"
"$QOPT" -q --passes "fp8:calibration=$W/bad.json" "$M/resnet_cnn.onnx" \
	-o "$W/r3.onnx" >"$work/log" 2>&1
[ $? -ne 0 ] && [ ! -e "$W/r3.onnx" ] &&
	grep -q "is for model hash 89f1dd807ea1c99e, this model's is [0-9a-f]\{16\}" "$work/log"
check $? "a hash of neither kind is refused, naming both, no output"

# qopt plan: 4 fp8 candidates of 64 KiB of FP8 codes each; a copy of
# the other three layers' FLOAT weights would add 768 KiB to each.
cand() { grep '/c[0-9]*\.onnx' "$W/seen" | copied_in; }
copied_in() { awk -v ino="$ino" '$2 != ino { s += $1 } END { print s + 0 }'; }
"$py" -c 'import sys, numpy as np; np.save(sys.argv[1], np.linspace(-2, 2, 512, dtype=np.float32).reshape(2, 1, 256))' \
	"$W/x.npy"
: >"$W/seen"
QOPT_NODE="$W/node.sh" "$QOPT" plan "$W/m.onnx" --data "$W/x.npy" \
	--formats fp8,none --effective-bits 12 -o "$W/p.ini" >"$work/log" 2>&1 &&
	linked && [ "$(cand)" -lt 1048576 ] &&
	[ "$(grep -c '/c[0-9]*\.onnx$' "$W/seen")" -ge 4 ] &&
	[ "$(stat -c %h "$W/m.onnx.data")" = 1 ] && [ -s "$W/p.ini" ]
check $? "qopt plan (samples in a .npy batch): the candidate models link the input's data file, $(cand) bytes of candidates' files besides; the links go before the plan's pipeline loads the input again"

exit $failed
