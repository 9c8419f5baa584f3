#!/bin/sh
# tests/cli/layout.sh - the output's layout (issue 32): by default a
# model read with external data is written with external data, an
# inline one inline; every layout option (default, --all-inline,
# --external-threshold, --external-name) gives a model that qopt verify
# and the onnx package load with the same weights; a full file system
# (a small tmpfs, when we may mount one) or a truncated data file
# fails with the file named and leaves nothing behind.
. "$top_srcdir/tests/lib/common.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$PYTHON3
cd "$W" || exit 1

if ! "$PY" "$top_srcdir/tests/cli/layout-gen.py" ext.onnx external 2>err ||
   ! "$PY" "$top_srcdir/tests/cli/layout-gen.py" inl.onnx 2>>err; then
	echo "1..0 # SKIP no python3 with onnx and numpy: $(head -n 1 err)"
	exit 0
fi

# ---- the default keeps the input's layout
run "$QOPT" ext.onnx -o d.onnx
t "external input, default: exit 0" [ "$rc" = 0 ]
t "external input, default: a data file is written" [ -f d.onnx.data ]
t "external input, default: the .onnx holds no weights" [ "$(stat -c %s d.onnx)" -lt 4096 ]
run "$QOPT" inl.onnx -o i.onnx
t "inline input, default: exit 0" [ "$rc" = 0 ]
t "inline input, default: no data file" [ ! -e i.onnx.data ]
t "inline input, default: the .onnx holds the weights" [ "$(stat -c %s i.onnx)" -gt 1048576 ]


# ---- the explicit flags keep their meaning
run "$QOPT" ext.onnx --all-inline -o a.onnx
t "--all-inline: exit 0, no data file" eval '[ "$rc" = 0 ] && [ ! -e a.onnx.data ]'
run "$QOPT" inl.onnx --external-threshold 1024 -o th.onnx
t "--external-threshold 1024 on an inline input: a data file" eval '[ "$rc" = 0 ] && [ -f th.onnx.data ]'
run "$QOPT" ext.onnx --external-name w.bin -o n.onnx
t "--external-name: the data file so named" eval '[ "$rc" = 0 ] && [ -f w.bin ] && [ ! -e n.onnx.data ]'
t "--external-name: the model points at it" has w.bin n.onnx
run "$QOPT" i.onnx --all-inline -o a2.onnx
t "--all-inline from an inline input: the same bytes" cmp -s i.onnx a2.onnx

for f in d i a th n; do
	run "$QOPT" verify $f.onnx
	t "qopt verify loads $f.onnx" [ "$rc" = 0 ]
done
run "$PY" "$top_srcdir/tests/cli/layout-check.py" inl.onnx ext.onnx d.onnx \
	i.onnx a.onnx th.onnx n.onnx
t "the onnx package loads every layout with the same weights" [ "$rc" = 0 ]

# ---- failures leave nothing behind
mkdir short && cp ext.onnx short/ && head -c 100000 ext.onnx.data >short/ext.onnx.data
mkdir so
run "$QOPT" short/ext.onnx -o so/o.onnx
t "truncated data file: exit 1" [ "$rc" = 1 ]
t "truncated data file: the message names it" has ext.onnx.data "$W/err"
t "truncated data file: nothing written" [ -z "$(ls -A so)" ]

# full MNT: a tmpfs of 512 KiB (smaller than the 1 MiB weight).
if [ "$(id -u)" = 0 ] && mkdir mnt && mount -t tmpfs -o size=512k tmpfs mnt 2>/dev/null; then
	for case in "inline:inl.onnx" "external:ext.onnx" "all-inline:ext.onnx --all-inline"; do
		name=${case%%:*} args=${case#*:}
		run "$QOPT" $args -o mnt/o.onnx
		t "full disk, $name output: exit 1" [ "$rc" = 1 ]
		t "full disk, $name output: says so" has "No space left on device" "$W/err"
		t "full disk, $name output: nothing left behind" [ -z "$(ls -A mnt)" ]
	done
	umount mnt
else
	ok 0 "# SKIP cannot mount a tmpfs (not root)"
fi

done_testing
