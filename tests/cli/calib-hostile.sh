#!/bin/sh
# tests/cli/calib-hostile.sh - `qopt calibrate` under hostile input (issue
# 21): its -o follows the main command's rules (never the input model or
# its data file, never a device, FIFO or folder: exit 2 before any
# work; a symlink replaced, not followed; names byte-exact); sample
# files must be regular and well formed, refused by name before node
# runs (or by the script, without a stack trace); no number JSON cannot
# hold is written; the exit status says what happened (130 on SIGINT, 1
# with a message when the script fails or writes nothing); strict
# integers for --dim, --random and --seed.
. "$top_srcdir/tests/ort/common.sh"

qopt_need_py_onnx
qopt_need_ort
qopt_workdir calib-hostile
qopt_calib_env
"$py" "$top_srcdir/tests/cli/calib-hostile.py" "$work" ||
	{ echo "Bail out! calib-hostile.py"; exit 1; }
# A stand-in for node that only leaves a mark: "no work was done" is
# "the mark is not there".
printf '#!/bin/sh\n: >"%s/ran"\nexit 0\n' "$work" >"$work/mark-node"
chmod +x "$work/mark-node"

echo "1..42"

cal() { "$QOPT" calibrate "$@" >"$work/log" 2>&1; }
# early CODE MESSAGE ARGS...: exits CODE saying MESSAGE, node never run.
early() {
	code=$1 msg=$2
	shift 2
	rm -f "$work/ran"
	QOPT_NODE="$work/mark-node" cal "$@"
	rc=$?
	[ $rc = "$code" ] && grep -q -- "$msg" "$work/log" && [ ! -e "$work/ran" ] ||
		{ echo "exit $rc" >>"$work/log"; return 1; }
}

# ---- row 1: the input model is never the output -------------------
cp "$work/m.onnx" "$work/m.keep"
early 2 "output '.*m.onnx' is the input model" "$work/m.onnx" \
	--data "$work/good" -o "$work/m.onnx" && cmp -s "$work/m.onnx" "$work/m.keep"
check $? "calibrate -o MODEL: refused (exit 2) before any work, the model intact"
early 2 "is the input model" "$work/m.onnx" --data "$work/good" \
	-o "$work/ext/../m.onnx" && cmp -s "$work/m.onnx" "$work/m.keep"
check $? "calibrate -o MODEL spelled another way: refused"
cp "$work/ext/m.data" "$work/ext.keep"
early 2 "is the external data file of the input model" "$work/ext/m.onnx" \
	--data "$work/good" -o "$work/ext/m.data" &&
	cmp -s "$work/ext/m.data" "$work/ext.keep"
check $? "calibrate -o the model's external data file: refused, the data intact"
cp "$work/good/s/x.npy" "$work/x.keep"
early 2 "is the sample file" "$work/m.onnx" --data "$work/good" \
	-o "$work/good/s/x.npy" && cmp -s "$work/good/s/x.npy" "$work/x.keep"
check $? "calibrate -o a sample file: refused, the sample intact"

# ---- row 2: devices, FIFOs, folders; symlinks replaced --------------
mkfifo "$work/fifo"
early 2 "'.*fifo' is a FIFO; qopt only replaces regular files" \
	"$work/m.onnx" --data "$work/good" -o "$work/fifo" && [ -p "$work/fifo" ]
check $? "calibrate -o FIFO: exit 2 before any work, the FIFO left alone"
early 2 "'/dev/zero' is a character device" "$work/m.onnx" \
	--data "$work/good" -o /dev/zero && [ -c /dev/zero ]
check $? "calibrate -o a character device: exit 2 before any work"
if [ "$(id -u)" = 0 ] && mknod "$work/null2" c 1 5 2>/dev/null; then
	early 2 "is a character device" "$work/m.onnx" --data "$work/good" \
		-o "$work/null2" && [ -c "$work/null2" ]
	check $? "calibrate -o a device node made with mknod: left a device"
else
	n=$((n + 1))
	echo "ok $n # SKIP mknod needs root"
fi
mkdir "$work/outdir"
early 2 "'.*outdir' is a directory" "$work/m.onnx" --data "$work/good" \
	-o "$work/outdir"
check $? "calibrate -o FOLDER: exit 2 before any work (no EISDIR after the run)"
cal "$work/m.onnx" --data "$work/good" -o /dev/null &&
	grep -q -- "-> discarded" "$work/log" && [ -c /dev/null ]
check $? "calibrate -o /dev/null: runs, writes nothing"
echo keep >"$work/target.txt"
ln -s "$work/target.txt" "$work/link.json"
cal "$work/m.onnx" --data "$work/good" -o "$work/link.json" &&
	[ ! -L "$work/link.json" ] && [ -f "$work/link.json" ] &&
	[ "$(cat "$work/target.txt")" = keep ] &&
	grep -q '"model_hash"' "$work/link.json"
check $? "calibrate -o SYMLINK: the link replaced by the file, its target untouched"
bad=$(printf '%s/bad\377.json' "$work")
cal "$work/m.onnx" --data "$work/good" -o "$bad" && [ -f "$bad" ] &&
	! ls "$work" | grep -q "$(printf 'bad\357\277\275')"
check $? "calibrate -o with a name that is not UTF-8: written byte-exact"

# ---- row 11: a tensor name that is not UTF-8 ------------------------
cal "$work/nonutf.onnx" --random 2 -o "$work/nonutf.json" &&
	grep -q '"act_\\udcff\\udcfe"' "$work/nonutf.json" &&
	"$QOPT" --passes "fp8-mha:calibration=$work/nonutf.json" \
		"$work/nonutf.onnx" -o "$work/nonutf.fp8.onnx" >"$work/log" 2>&1 &&
	! grep -q "not in calibration file" "$work/log" &&
	grep -q "2 calibration: activation Q/DQ inserted" "$work/log"
check $? "calibrate: a tensor name that is not UTF-8 is \\udcXX-escaped and fp8-mha finds it"

# ---- rows 7, 10: sample files ---------------------------------------
mkdir -p "$work/fifo_in/s" "$work/zero_in/s" "$work/dangling/s"
mkfifo "$work/fifo_in/s/x.npy"
ln -s /dev/zero "$work/zero_in/s/x.npy"
cp "$work/good/s/x.npy" "$work/dangling/s/x.npy"
ln -s "$work/nowhere" "$work/dangling/t"
for c in "fifo_in:x.npy: a FIFO, not a regular file" \
	 "zero_in:x.npy: a character device, not a regular file"; do
	d=${c%%:*} msg=${c#*:}
	early 1 "$d/s/$msg" "$work/m.onnx" --data "$work/$d" -o "$work/o.json" &&
		[ ! -e "$work/o.json" ]
	check $? "calibrate: sample $d refused by name before node runs (no hang)"
done
cal "$work/m.onnx" --data "$work/dangling" -o "$work/o.json"
check $? "calibrate: a dangling symlink beside the samples is not a sample"
rm -f "$work/o.json"
for c in "v9:.npy format version 9.0; numpy defines 1.0, 2.0 and 3.0" \
	 "v39:.npy format version 3.9" \
	 "extrakey:unexpected key 'x' in the .npy header" \
	 "twice:'shape' given twice in the .npy header" \
	 "nanshape:a 'shape' entry is not a non-negative integer" \
	 "notuple:'shape' is not a tuple" \
	 "shortdata:95 data bytes, shape (3,8) of <f4 needs 96" \
	 "longheader:the .npy header claims 60000 bytes"; do
	d=${c%%:*} msg=${c#*:}
	early 1 "$d/s/x.npy: $msg" "$work/m.onnx" --data "$work/$d" \
		-o "$work/o.json" && [ ! -e "$work/o.json" ]
	check $? "calibrate: .npy $d refused by name before node runs"
done
cal "$work/m.onnx" --data "$work/v3" -o "$work/v3.json"
check $? "calibrate: a .npy of format version 3.0 is read"
for c in "pb_extra_raw:raw_data holds 100 bytes, shape \[3,8\] needs 96" \
	 "pb_trunc:not a TensorProto qopt can read" \
	 "pb_garbage:not a TensorProto qopt can read"; do
	d=${c%%:*} msg=${c#*:}
	cal "$work/m.onnx" --data "$work/$d" -o "$work/o.json"
	rc=$?
	[ $rc = 1 ] && grep -q "$d/s/input_0.pb: $msg" "$work/log" &&
		[ "$(grep -c "error" "$work/log")" = 1 ] &&
		! grep -q "^    at " "$work/log" && [ ! -e "$work/o.json" ]
	check $? "calibrate: input_0.pb $d refused naming the file, no stack trace"
done

# ---- row 6: numbers JSON cannot hold --------------------------------
cal "$work/m.onnx" --data "$work/inf" -o "$work/o.json"
[ $? = 1 ] && grep -q "inf/s: tensor 'x' holds Inf; a calibration file cannot hold its range" \
	"$work/log" && [ ! -e "$work/o.json" ]
check $? "calibrate: Inf in a sample is an error naming the sample and the tensor"
cal "$work/dyn.onnx" --data "$work/zero" --percentile 99 -o "$work/zero.json" &&
	grep -q "tensor 'x' held no element in any sample: amax 0 written (fp8-mha's step fp8-calibrate-place leaves it unquantized)$" "$work/log" &&
	"$QOPT" --passes "fp8-mha:calibration=$work/zero.json" "$work/dyn.onnx" \
		-o "$work/zero.fp8.onnx" >"$work/log" 2>&1
check $? "calibrate --percentile 99 on zero-size samples: amax 0 said and written, fp8-mha reads the file"
# The warning names the pass that asked: fp8 here, in both forms.
cal --passes fp8 "$work/dyn.onnx" --data "$work/zero" -o "$work/zero8.json" &&
	grep -q "^qopt calibrate: warning: tensor 'x' held no element in any sample: amax 0 written (fp8 leaves it unquantized)$" "$work/log" &&
	"$QOPT" --passes fp8 "$work/dyn.onnx" --calibration-data "$work/zero" \
		-o "$work/zero8.onnx" >"$work/log" 2>&1 &&
	grep -q "^qopt: fp8: calibration: warning: tensor 'x' held no element in any sample: amax 0 written (fp8 leaves it unquantized)$" "$work/log" &&
	! grep -q "fp8-mha" "$work/log"
check $? "calibrate --passes fp8 and qopt --passes fp8 --calibration-data: the empty-tensor warning names fp8"

# ---- row 8: exit status ---------------------------------------------
echo stale >"$work/stale.json"
QOPT_NODE=/bin/true cal "$work/m.onnx" --data "$work/good" -o "$work/stale.json"
[ $? = 1 ] && grep -q "exited 0 but left no result" "$work/log" &&
	[ "$(cat "$work/stale.json")" = stale ]
check $? "calibrate: a script that exits 0 without a result is exit 1 with a message"
QOPT_NODE=/bin/false cal "$work/m.onnx" --data "$work/good" -o "$work/o.json"
[ $? = 1 ] && grep -q "failed (exit status 1); no calibration file written" "$work/log" &&
	[ ! -e "$work/o.json" ]
check $? "calibrate: a script that fails silently is exit 1 with a message"
# SIGINT: to qopt alone, then to the script alone (qopt_interrupt: a
# stand-in for node records its pid and waits).
for who in qopt script; do
	qopt_interrupt INT $who "$QOPT" calibrate "$work/m.onnx" \
		--data "$work/good" -o "$work/int.json"
	[ $st = 130 ] && [ -n "$spid" ] && ! kill -0 "$spid" 2>/dev/null &&
		[ ! -e "$work/int.json" ] && ! ls "$work/tmp" | grep -q "^qopt-calib-"
	check $? "calibrate: SIGINT to the $who while the script runs: exit 130, folder removed (got $st)"
done

# ---- row 12: strict integers ----------------------------------------
for c in "--dim:N=1e3" "--dim:N=0x10" "--dim:N= 5" "--random:1e1" \
	 "--seed:0x1" "--seed:-1" "--percentile:0x60"; do
	opt=${c%%:*} val=${c#*:}
	case $opt in
	--dim) set -- --random 1 --dim "$val" ;;
	--random) set -- --random "$val" ;;
	*) set -- --random 1 "$opt" "$val" ;;
	esac
	early 2 "got $val" "$work/m.onnx" "$@"
	check $? "calibrate $opt $val: a usage error"
done

! ls "$work/tmp" | grep -q "^qopt-calib-"
check $? "calibrate: no temporary folder left behind"

exit $failed
