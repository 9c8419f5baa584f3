#!/bin/sh
# tests/passes/nvfp4/spill.sh - nvfp4-weights when no spill file can be made.
# Both modes defer their results (computed by the writer straight into
# the output), so neither needs a spill file or says anything: fake mode
# keeps each weight's place and name, its bytes a recipe until the save
# (--print-after lists them "owned (deferred)", never spilled). Either
# way the same bytes (checked against tests/passes/nvfp4/check.py and a
# normal run).
. "$top_srcdir/tests/ort/common.sh"

qopt_need_py_onnx
qopt_workdir nvfp4-spill
echo "1..6"
"$py" "$top_srcdir/tests/passes/nvfp4/check.py" gen-big "$work/in.onnx" ||
	{ echo "Bail out! cannot generate the model"; exit 1; }
printf '[nvfp4-weights]\nmin_size = 0\n' >"$work/p.ini"
"$QOPT" -q -p "$work/p.ini" "$work/in.onnx" -o "$work/a.onnx" \
	2>"$work/a.err"
ra=$?
QOPT_SPILL_DIR=/nonexistent/qopt-spill "$QOPT" -p "$work/p.ini" \
	"$work/in.onnx" -o "$work/b.onnx" 2>"$work/b.err"
rb=$?
if [ $ra = 0 ] && [ $rb = 0 ] && ! grep -q -e "stay in memory" -e "spill file" "$work/b.err"; then
	echo "ok 1 - no spill folder: real mode needs none (deferred), no warning; exit 0"
else
	sed 's/^/# /' "$work/a.err" "$work/b.err"
	echo "not ok 1 - no spill folder: real mode needs none (deferred), no warning; exit 0"
fi
if cmp -s "$work/a.onnx" "$work/b.onnx"; then
	echo "ok 2 - the same output file as with a spill file"
else
	echo "not ok 2 - the same output file as with a spill file"
fi
if "$py" "$top_srcdir/tests/passes/nvfp4/check.py" check "$work/in.onnx" \
	"$work/b.onnx" >"$work/check.log" 2>&1; then
	echo "ok 3 - codes and scales equal the independent checker's"
else
	sed 's/^/# /' "$work/check.log" | grep -v "^# ok" | head -n 20
	echo "not ok 3 - codes and scales equal the independent checker's"
fi
printf '[nvfp4-weights]\nmin_size = 0\nmode = fake\n' >"$work/f.ini"
"$QOPT" -q -p "$work/f.ini" "$work/in.onnx" -o "$work/fa.onnx" \
	2>"$work/fa.err"
ra=$?
QOPT_SPILL_DIR=/nonexistent/qopt-spill "$QOPT" -p "$work/f.ini" \
	--print-after nvfp4-weights "$work/in.onnx" -o "$work/fb.onnx" \
	>"$work/fb.ir" 2>"$work/fb.err"
rb=$?
if [ $ra = 0 ] && [ $rb = 0 ] && ! grep -q -e "stay in memory" -e "qopt-spill" -e "spill file" \
	"$work/fb.err" && cmp -s "$work/fa.onnx" "$work/fb.onnx"; then
	echo "ok 4 - fake mode, no spill folder: none needed, nothing said; same output; exit 0"
else
	sed 's/^/# /' "$work/fa.err" "$work/fb.err"
	echo "not ok 4 - fake mode, no spill folder: none needed, nothing said; same output; exit 0"
fi
# The six weights (initializers, the Constant made one) after the
# pass: deferred in place, none in the heap or the spill file.
nd=$(grep -c '^  w_[a-z0-9]*: .*bytes, owned (deferred))$' "$work/fb.ir")
if [ "$nd" = 6 ] && ! grep -q 'spilled' "$work/fb.ir"; then
	echo "ok 5 - fake mode: all 6 weights deferred after the pass, none spilled"
else
	grep '^  w_' "$work/fb.ir" | sed 's/^/# /'
	echo "not ok 5 - fake mode: all 6 weights deferred after the pass, none spilled"
fi
if "$py" "$top_srcdir/tests/passes/nvfp4/check.py" check-fake \
	"$work/in.onnx" "$work/fb.onnx" >"$work/fcheck.log" 2>&1; then
	echo "ok 6 - fake values equal the independent checker's, bit for bit"
else
	sed 's/^/# /' "$work/fcheck.log" | grep -v "^# ok" | head -n 20
	echo "not ok 6 - fake values equal the independent checker's, bit for bit"
fi
