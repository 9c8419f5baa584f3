#!/bin/sh
# Plugin loading and discovery: good and bad plugins, search paths,
# --list-passes, --help-pass.
. "$top_srcdir/tests/lib/common.sh"

run "$QOPT" --load "$PL/good.so" --list-passes
t "--list-passes shows pass, summary, plugin file and version" \
	eval '[ $rc = 0 ] && grep "^t-opts " "$W/out" | grep -F "records its options as metadata" | grep -F "$PL/good.so" | grep -qF "1.2.3"'
t "--list-passes shows every pass of the plugin" \
	eval 'for p in t-fail t-warn t-break t-targets t-lazy; do grep -q "^$p " "$W/out" || exit 1; done'

for so in "$top_builddir"/passes/.libs/*.so; do
	[ -e "$so" ] || continue
	t "built-in $(basename "$so") is found without options" has "$so" "$W/out"
done

run "$QOPT" --load "$PL/good.so" --help-pass t-opts
t "--help-pass lists options with type, default and help" \
	eval '[ $rc = 0 ] && grep "block_size" "$W/out" | grep -w int | grep -w 16 | grep -q "an int"'
t "--help-pass shows an unset default" eval 'grep label "$W/out" | grep -q "(unset)"'
run "$QOPT" --load "$PL/good.so" --help-pass t-opst
t "--help-pass of an unknown pass suggests one (exit 2)" \
	eval '[ $rc = 2 ] && has "did you mean '\''t-opts'\''" "$W/err"'

major=$(sed -n 's/^#define QOPT_ABI_MAJOR \([0-9]*\)$/\1/p' \
	"$top_srcdir/include/qopt/version.h")
run "$QOPT" --load "$PL/bad-abi.so" --list-passes
t "wrong ABI: refused naming the file and both versions" \
	eval '[ $rc = 1 ] && has "$PL/bad-abi.so" "$W/err" && has "ABI version $((major + 40)) " "$W/err" && has "plugin ABI version $major." "$W/err"'
run "$QOPT" --load "$PL/no-entry.so" --list-passes
t "missing entry symbol: refused naming the file and the symbol" \
	eval '[ $rc = 1 ] && has "$PL/no-entry.so" "$W/err" && has "qopt_plugin_entry" "$W/err"'
run "$QOPT" --load "$PL/good.so" --load "$PL/dup.so" --list-passes
t "duplicate pass name: refused naming both files" \
	eval '[ $rc = 1 ] && has "$PL/dup.so: pass '\''t-opts'\'' is already registered by $PL/good.so" "$W/err"'
run "$QOPT" --load "$PL/malformed.so" --list-passes
t "NULL run function: refused as malformed" \
	eval '[ $rc = 1 ] && has "$PL/malformed.so: malformed plugin table" "$W/err" && has "no run function" "$W/err"'
printf 'this is text\n' >"$W/fake.so"
run "$QOPT" --load "$W/fake.so" --list-passes
t "not a shared object: cannot be opened, with dlerror's text" \
	eval '[ $rc = 1 ] && has "$W/fake.so: cannot open plugin: " "$W/err" && grep -q "fake.so: .*\(ELF\|too short\)" "$W/err"'
run "$QOPT" --load "$W/none.so" --list-passes
t "missing plugin file: refused" eval '[ $rc = 1 ] && has "$W/none.so" "$W/err"'

# A FIFO, a folder or a device named as a plugin: refused at once, not
# a dlopen that waits for a writer (timeout: a hang fails the test).
mkfifo "$W/fifo.so"
run timeout 20 "$QOPT" --load "$W/fifo.so" --list-passes
t "a FIFO as a plugin: refused at once, naming it" \
	eval '[ $rc = 1 ] && has "$W/fifo.so: cannot open plugin: a FIFO, not a regular file" "$W/err"'
mkdir -p "$W/dir.so"
run "$QOPT" --load "$W/dir.so" --list-passes
t "a folder as a plugin: refused, naming it" \
	eval '[ $rc = 1 ] && has "$W/dir.so: cannot open plugin: a folder" "$W/err"'
run "$QOPT" --load /dev/zero --list-passes
t "a device as a plugin: refused, naming it" \
	eval '[ $rc = 1 ] && has "/dev/zero: cannot open plugin: a device" "$W/err"'

mkdir -p "$W/pdir" "$W/cwd"
cp "$PL/good.so" "$W/pdir/"
cp "$PL/good.so" "$W/cwd/"
run "$QOPT" -L "$W/pdir" --list-passes
t "-L DIR loads every .so in it" has "$W/pdir/good.so" "$W/out"
run env QOPT_PLUGIN_PATH="$W/none:$W/pdir" "$QOPT" --list-passes
t "QOPT_PLUGIN_PATH is searched" has "$W/pdir/good.so" "$W/out"
run "$QOPT" -L "$W/pdir" --load "$W/pdir/good.so" --list-passes
t "the same file twice is loaded once" eval '[ $rc = 0 ] && [ $(grep -c "^t-opts " "$W/out") = 1 ]'
(cd "$W/cwd" && QOPT_PLUGIN_PATH=":" "$QOPT" --list-passes) >"$W/out" 2>"$W/err"
t "nothing is loaded from the current folder implicitly" eval '! grep -q "^t-opts " "$W/out"'
run "$QOPT" -L "$W/nodir" --list-passes
t "-L of a missing folder is an error" eval '[ $rc = 1 ] && has "$W/nodir" "$W/err"'

# A return whose primary code is none of qopt's is no status: 256 is
# not "success", 17 names nothing; both fail, reported by number.
for st in 256 17 -3; do
	run "$QOPT" --load "$PL/good.so" --passes "t-status:rc=$st" "$W/m.onnx" --dry-run
	t "a pass returning $st fails, reported as no qopt_status" \
		eval '[ $rc = 1 ] && has "t-status: error: pass returned $st, not a qopt_status: failed as '\''pass failed'\'' (status 16)" "$W/err" && ! has "'\''success'\''" "$W/err"'
done
run "$QOPT" --load "$PL/good.so" --passes "t-status:rc=$((16 | 99 << 8)):quiet=yes" "$W/m.onnx" --dry-run
t "an extended code this qopt does not know is named by its primary" \
	eval '[ $rc = 1 ] && has "pass returned '\''pass failed'\'' (status 25360) without a message" "$W/err"'
# A pass that said why is not followed by a line repeating that it
# failed ("pass returned 'pass failed' (status 16)" after every error).
run "$QOPT" --load "$PL/good.so" --passes "t-status" "$W/m.onnx" --dry-run
t "a pass failing with its own message: that message, no 'pass returned' line" \
	eval '[ $rc = 1 ] && has "t-status: error: returning 16 as told" "$W/err" && ! has "pass returned" "$W/err" && [ $(grep -c "t-status: error:" "$W/err") = 1 ]'
run "$QOPT" --load "$PL/good.so" --passes "t-status:quiet=yes" "$W/m.onnx" --dry-run
t "a pass failing without a word: its status is named" \
	eval '[ $rc = 1 ] && has "t-status: error: pass returned '\''pass failed'\'' (status 16) without a message" "$W/err"'

run "$QOPT" --load "$PL/bad-path.so" --list-passes
t "QOPT_OPT_PATH on an option that is not a string: the plugin is refused" \
	eval '[ $rc = 1 ] && has "$PL/bad-path.so" "$W/err" && has "option '\''count'\'' (int) cannot be a path (only a string can)" "$W/err"'

done_testing
