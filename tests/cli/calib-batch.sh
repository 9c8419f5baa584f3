#!/bin/sh
# tests/cli/calib-batch.sh - batched calibration samples (issue 39):
# `--data FILE` with one .npy [N, *input shape] (the input it names) or
# one .npz holding an array per input (numpy.savez, stored, and
# savez_compressed, deflated) gives N samples and the very ranges of the
# folder layout; bad batches are refused naming the file (and member)
# before node runs (calib-npz.c, calib-samples.c) or by the script;
# a .npy header with double quotes (NumPy's reader takes them) is read
# by the script as the C check reads it.
. "$top_srcdir/tests/ort/common.sh"

qopt_need_py_onnx
qopt_need_ort
qopt_workdir calib-batch
qopt_calib_env
"$py" "$top_srcdir/tests/cli/calib-batch.py" "$work" ||
	{ echo "Bail out! calib-batch.py"; exit 1; }

echo "1..25"

cal() { "$QOPT" calibrate -q "$@" >"$work/log" 2>&1; }
# same A.json B.json: the same tensors and amax
same() {
	"$py" - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(f))["tensors"] for f in sys.argv[1:3])
sys.exit(0 if a == b and a else 1)
PY
}
# refused MODEL DATA TEXT: exit 1, one error naming TEXT, no file
refused() {
	rm -f "$work/o.json"
	cal "$work/$1" --data "$work/$2" -o "$work/o.json"
	[ $? = 1 ] && [ ! -e "$work/o.json" ] &&
		[ "$(wc -l <"$work/log")" = 1 ] &&
		grep -qF "qopt calibrate: error: $work/$2: $3" "$work/log"
}

cal "$work/one.onnx" --data "$work/x.dirs" -o "$work/dirs.json"
check $? "one input: the folder layout (5 samples)"
for f in b/x.npy b/input_0.npy x.npz xc.npz; do
	cal "$work/one.onnx" --data "$work/$f" -o "$work/f.json" &&
		same "$work/dirs.json" "$work/f.json" &&
		grep -q '"samples": 5,' "$work/f.json"
	check $? "one input: --data $f gives the 5 samples and the folder's ranges"
done
cal "$work/two.onnx" --data "$work/ab.dirs" -o "$work/abdirs.json"
check $? "two inputs: the folder layout (4 samples)"
for f in ab.npz abc.npz pos.npz; do
	cal "$work/two.onnx" --data "$work/$f" -o "$work/f.json" &&
		same "$work/abdirs.json" "$work/f.json" &&
		grep -q '"samples": 4,' "$work/f.json"
	check $? "two inputs: --data $f (one array per input) gives the folder's ranges"
done
"$QOPT" --passes fp8-mha "$work/one.onnx" --calibration-data "$work/x.npz" \
	-o "$work/one.fp8.onnx" >"$work/log" 2>&1 && [ -s "$work/one.fp8.onnx" ]
check $? "one command: --calibration-data FILE.npz"
"$QOPT" calibrate "$work/one.onnx" --data "$work/x.npz" -o "$work/x.npz" \
	>"$work/log" 2>&1
[ $? = 2 ] && grep -q "is the sample file" "$work/log" &&
	"$py" -c 'import numpy, sys; numpy.load(sys.argv[1])["x"]' "$work/x.npz"
check $? "-o naming the .npz: a usage error, the file untouched"

refused two.onnx n.npz "members 'a.npy' and 'b.npy' hold 4 and 3 samples (the first axis)"
check $? "stored arrays disagreeing on N: refused before node, naming both"
refused two.onnx nc.npz "the arrays of 'a' and 'b' hold 4 and 3 samples (the first axis)"
check $? "deflated arrays disagreeing on N: refused by the script, naming both"
refused two.onnx missing.npz "no array for input 'b' (FLOAT[2,3])"
check $? "an .npz without an input's array: refused naming the input"
refused one.onnx extra.npz "member 'z.npy': the model has no input 'z' (inputs: x)"
check $? "an .npz member naming no input: refused naming it"
refused one.onnx b/wrong.npy "the model has no input 'wrong' (inputs: x)"
check $? "a .npy batch naming no input: refused"
refused one.onnx w/x.npy "sample 0: input 'x' has shape [3,9], the model wants [3,8]"
check $? "a batch whose sample shape differs: refused naming the file and the sample"
refused one.onnx c/x.npy "shape (): no sample axis (a batch is [N, *input shape])"
check $? "a .npy of shape (): no sample axis"
refused one.onnx z/x.npy "0 samples (the first axis is 0)"
check $? "a batch of 0 samples: refused"
refused one.onnx junk.npz "not an .npz file (no zip end record)"
check $? "an .npz that is no zip: refused"
refused one.onnx badhdr.npz "member 'x.npy': unexpected key 'descX' in the .npy header"
check $? "a stored member with a bad .npy header: refused before node, naming the member"
refused one.onnx cut.npz "member 'x.npy': cannot inflate it"
check $? "a deflated member that does not inflate: refused naming the member"
refused one.onnx x.txt "not a folder, an .npz or a .npy file"
check $? "--data naming another kind of file: refused"

"$QOPT" calibrate --help >"$work/log" 2>&1 && grep -q "FILE.npz (an array per input)" "$work/log"
check $? "qopt calibrate --help names the batch files"
cal "$work/one.onnx" --data "$work/sq" -o "$work/sq.json" &&
	cal "$work/one.onnx" --data "$work/dq" -o "$work/dq.json" &&
	same "$work/sq.json" "$work/dq.json"
check $? "a .npy header with double quotes (NumPy reads it): read, the same ranges"
exit $failed
