#!/bin/sh
# tests/hostile/output.sh - what qopt writes, and where. Only regular
# files are replaced: devices, FIFOs, sockets and folders at an output
# path are usage errors (exit 2) found before any work, and are still
# there afterwards; /dev/null (that device) discards; a symlink is
# replaced, its target untouched. --stats-json gets the same checks and
# may not be the input, the output or its data file. Inputs that are not
# regular files are refused without blocking. Failing to write standard
# output is an error. Device nodes are made only in this test's folder.
. "$top_srcdir/tests/lib/common.sh"
M="$W/m.onnx"
m_sum=$(cksum <"$M")
cd "$W" || exit 1
: >out
: >err

listing() {
	ls -A | LC_ALL=C sort
}

# refused NAME KIND ARGS...: qopt exits 2 saying KIND, and writes nothing.
refused() {
	name=$1 kind=$2
	shift 2
	before=$(listing)
	run timeout 20 "$QOPT" "$@"
	t "$name: exit 2" [ "$rc" = 2 ]
	t "$name: the message names the kind" has "$kind" "$W/err"
	t "$name: nothing written" [ "$(listing)" = "$before" ]
	t "$name: the input is untouched" [ "$(cksum <"$M")" = "$m_sum" ]
}

mkfifo fifo
refused "FIFO as -o" "-o 'fifo' is a FIFO; qopt only replaces regular files" m.onnx -o fifo
t "the FIFO is still a FIFO" [ -p fifo ]
refused "FIFO as --stats-json" "--stats-json 'fifo' is a FIFO" m.onnx -o o.onnx --stats-json fifo
t "the FIFO is still a FIFO after --stats-json" [ -p fifo ]

if /usr/bin/python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$W/sock" 2>/dev/null; then
	refused "socket as -o" "-o 'sock' is a socket" m.onnx -o sock
	t "the socket is still a socket" [ -S sock ]
else
	ok 0 "# SKIP cannot make a Unix socket here"
fi

if [ "$(id -u)" = 0 ] && mknod zero c 1 5 2>/dev/null && mknod null c 1 3 2>/dev/null; then
	refused "character device as -o" "-o 'zero' is a character device" m.onnx -o zero
	t "the device node is still a device" [ -c zero ]
	before=$(listing)
	run "$QOPT" m.onnx -o null --stats-json null
	t "/dev/null's device as -o and --stats-json: exit 0 (discard)" [ "$rc" = 0 ]
	t "/dev/null's device: still a character device" [ -c null ]
	t "/dev/null's device: nothing else written" [ "$(listing)" = "$before" ]
	rm -f zero null
else
	ok 0 "# SKIP mknod needs root"
	ok 0 "# SKIP mknod needs root"
	ok 0 "# SKIP mknod needs root"
	ok 0 "# SKIP mknod needs root"
	ok 0 "# SKIP mknod needs root"
fi

# A symlink at -o is replaced by the output; its target is left alone.
echo target >target.txt
ln -s target.txt link.onnx
run "$QOPT" m.onnx -o link.onnx
t "symlink as -o: exit 0" [ "$rc" = 0 ]
t "symlink as -o: replaced by a regular file" eval '[ -f link.onnx ] && [ ! -L link.onnx ]'
t "symlink as -o: its target is untouched" [ "$(cat target.txt)" = target ]
"$QOPT" verify link.onnx >/dev/null 2>&1
t "symlink as -o: the new file is the model" [ $? = 0 ]
ln -s m.onnx tomodel.onnx
refused "symlink to the input as -o" "output 'tomodel.onnx' is the input model" m.onnx -o tomodel.onnx
rm -f link.onnx tomodel.onnx target.txt

# --stats-json clashes: checked before any work, nothing written.
refused "--stats-json is the input" "--stats-json 'm.onnx' is the input model" \
	m.onnx -o o.onnx --stats-json m.onnx
refused "--stats-json is the input, spelled otherwise" "is the input model" \
	m.onnx -o o.onnx --stats-json ./../"$(basename "$W")"/m.onnx
refused "--stats-json is the output" "--stats-json 'o.onnx' is the output model" \
	m.onnx -o o.onnx --stats-json o.onnx
refused "--stats-json is the output's data file" "is the output's data file" \
	m.onnx -o o.onnx --stats-json o.onnx.data
refused "--stats-json in a missing folder" "--stats-json 'no/s.json': its folder does not exist" \
	m.onnx -o o.onnx --stats-json no/s.json
refused "--external-name is the input" "the output's data file" \
	m.onnx -o o.onnx --external-name m.onnx
run "$QOPT" m.onnx -o o.onnx --stats-json s.json
t "--stats-json beside -o: exit 0, both written" eval '[ $rc = 0 ] && [ -s o.onnx ] && [ -s s.json ]'
t "--stats-json: no temporary file left" [ -z "$(ls -A | grep '^\.')" ]
rm -f o.onnx s.json

# bisect's folder: a file there is refused before any work.
refused "bisect -o naming a file" "bisect's -o 'm.onnx' is not a folder" \
	bisect m.onnx --passes cast-fold --test true -o m.onnx
mkdir bis && mkfifo bis/bisect.log
refused "bisect folder holding a FIFO as its log" "'bis/bisect.log' is a FIFO" \
	bisect m.onnx --passes cast-fold --test true -o bis
rm -r bis

# Empty paths are usage errors.
refused "empty -o" "-o needs a file name, got ''" m.onnx -o ''
refused "empty input" "the input model path is empty" ''
refused "empty --stats-json" "--stats-json needs a file name" m.onnx --stats-json ''

# A long but legal output name (NAME_MAX is 255) can be written.
long=$(printf 'x%.0s' $(seq 1 250)).onnx
run "$QOPT" m.onnx -o "$long"
t "a 255-byte output name: exit 0" [ "$rc" = 0 ]
t "a 255-byte output name: written" [ -f "$long" ]
rm -f "$long"

# The umask decides the output's mode; the library leaves it alone.
(umask 027 && "$QOPT" m.onnx -o masked.onnx 2>/dev/null)
t "umask 027: the output is mode 640" [ "$(stat -c %a masked.onnx)" = 640 ]
rm -f masked.onnx
if command -v nm >/dev/null && [ -f "$top_builddir/.libs/libqopt.so" ]; then
	t "libqopt never calls umask (it would race other threads)" \
		eval '! nm -D "$top_builddir/.libs/libqopt.so" | grep -qw umask'
else
	ok 0 "# SKIP no nm or no shared libqopt"
fi

# Inputs that are not regular files: refused at once, never read.
run timeout 20 "$QOPT" fifo -o o.onnx
t "FIFO as model: exit 1, no hang" [ "$rc" = 1 ]
t "FIFO as model: says so" has "qopt: fifo: error: 'fifo' is a FIFO, not an ONNX model file" "$W/err"
run timeout 20 "$QOPT" verify fifo
t "FIFO as model to verify: exit 1, no hang" [ "$rc" = 1 ]
run timeout 20 "$QOPT" m.onnx -p fifo -o o.onnx
t "FIFO as pipeline: exit 2, no hang" [ "$rc" = 2 ]
t "FIFO as pipeline: says so" has "cannot read pipeline: it is a FIFO, not a regular file" "$W/err"
t "FIFO inputs: nothing written" [ ! -e o.onnx ]

# Standard output that cannot be written: exit 1 with a message.
if [ -w /dev/full ]; then
	for cmd in "verify m.onnx" "dump m.onnx" "--list-passes" \
		   "--help-pass cast-fold" "--passes cast-fold --print-pipeline"; do
		"$QOPT" $cmd >/dev/full 2>"$W/err"
		rc=$?
		t "qopt $cmd >/dev/full: exit 1" [ "$rc" = 1 ]
		t "qopt $cmd >/dev/full: says so" has "cannot write to standard output" "$W/err"
	done
	"$QOPT" m.onnx --passes cast-fold --print-after-all -o o.onnx >/dev/full 2>"$W/err"
	rc=$?
	t "--print-after-all >/dev/full: exit 1" [ "$rc" = 1 ]
	t "--print-after-all >/dev/full: no output written" [ ! -e o.onnx ]
else
	ok 0 "# SKIP no /dev/full"
fi

done_testing
