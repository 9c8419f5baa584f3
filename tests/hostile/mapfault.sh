#!/bin/sh
# tests/hostile/mapfault.sh - a file that fails under a mapping ends the
# run with an error naming it, never a SIGBUS (issue 28): an output page
# the file system refuses (a nearly full btrfs reserves again at the
# first store; here the recipe truncates the output's data file under
# its mapping, so the stores land past its end and fault alike; the
# writer computes big outputs into memory and writes them with O_DIRECT
# where the file system takes it, so QOPT_NO_DIRECT_IO=1 asks for the
# mapping: tests/hostile/direct.sh covers the other path), and an
# input model or external data file truncated while qopt runs (the test
# pass t-truncate). Each: exit 1, the message, no output, the old
# output intact, no crash.
. "$top_srcdir/tests/lib/common.sh"
GEN="$top_srcdir/tests/hostile/gen.py"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$PYTHON3
H="$PL/hostile.so"
cd "$W" || exit 1

# after NAME MESSAGE: the run ended with exit 1 and MESSAGE, the old
# output is intact and nothing else was written.
after() {
	t "$1: exit 1 (got $rc)" [ "$rc" = 1 ]
	t "$1: the message" has "$2" "$W/err"
	t "$1: not called a crash" eval '! has crashed "$W/err"'
	t "$1: the old output is intact" [ "$(cat o.onnx)" = old ]
	t "$1: no data file, no temporary file" \
		eval '[ ! -e o.onnx.data ] && [ -z "$(ls -A | grep "^\.")" ]'
}

echo old >o.onnx
run env QOPT_NO_DIRECT_IO=1 "$QOPT" --load "$H" --passes t-refuse m.onnx -o o.onnx --external-threshold 1024
after "an output page refused" \
	"o.onnx.data: No space left on device (the filesystem refused a page of the mapped output)"

"$PY" "$GEN" big 4 big.onnx
run "$QOPT" --load "$H" --passes t-truncate:file=big.onnx big.onnx -o o.onnx
after "the input model truncated mid-run" \
	"big.onnx: changed while qopt was reading it (truncated?)"

"$PY" "$GEN" sparse 8 "$W/s.onnx"
run "$QOPT" --load "$H" --passes t-truncate:file=s.onnx.bin s.onnx -o o.onnx --external-threshold 1
after "the external data truncated mid-run" \
	"s.onnx.bin: changed while qopt was reading it (truncated?)"

# A crash outside those mappings is still one: named, by its signal.
run "$QOPT" --load "$H" --passes t-bus m.onnx -o o.onnx
t "a SIGBUS elsewhere: ends by SIGBUS (status 135)" [ "$rc" = 135 ]
t "a SIGBUS elsewhere: the pass is named" has "qopt: error: pass 't-bus' crashed (SIGBUS, signal 7)" "$W/err"
t "a SIGBUS elsewhere: the old output is intact" [ "$(cat o.onnx)" = old ]

done_testing
