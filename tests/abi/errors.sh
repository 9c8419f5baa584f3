#!/bin/sh
# ABI 3.0's error convention as users see it: each class of plugin
# failure exits 1 with the message docs/plugin-abi.md documents; how the
# manager reports what run() returned; and that the loader decides
# nothing from message text (the codes themselves: tests/abi/loader).
. "$top_srcdir/tests/lib/common.sh"
cd "$W" || exit 1

major=$(sed -n 's/^#define QOPT_ABI_MAJOR \([0-9]*\)$/\1/p' \
	"$top_srcdir/include/qopt/version.h")
minor=$(sed -n 's/^#define QOPT_ABI_MINOR \([0-9]*\)$/\1/p' \
	"$top_srcdir/include/qopt/version.h")
ours="$major.$minor"

# refused: exit 1, and the message
refused() {
	msg=$2
	t "$1" eval '[ $rc = 1 ] && has "$msg" "$W/err"'
}

run "$QOPT" --load "$PL/no-entry.so" --list-passes
refused "not a plugin: names the file and the entry symbol" \
	"$PL/no-entry.so: not a qopt plugin: entry symbol 'qopt_plugin_entry' not found"

run "$QOPT" --load "$PL/needs-symbol.so" --list-passes
refused "missing function: named, with both ABIs" \
	"$PL/needs-symbol.so: plugin built for ABI $ours uses qopt_not_in_any_release(), which this libqopt (qopt"
t "... not the dynamic linker's words" eval '! has "undefined symbol" "$W/err"'

# The same plugin with a forged section table (e_shoff far past the end,
# then e_shnum too large): dlopen() does not read it, the symbol reader
# must not trust it (ELF64 offsets: e_shoff at 40, e_shnum at 60).
cp "$PL/needs-symbol.so" forged.so
printf '\377\377\377\377\377\377\377\177' |
	dd of=forged.so bs=1 seek=40 conv=notrunc 2>/dev/null
run "$QOPT" --load forged.so --list-passes
refused "forged section offset: the generic message, nothing read past the file" \
	"forged.so: cannot open plugin: it needs a symbol no loaded library defines"
cp "$PL/needs-symbol.so" forged2.so
printf '\377\377' | dd of=forged2.so bs=1 seek=60 conv=notrunc 2>/dev/null
run "$QOPT" --load forged2.so --list-passes
refused "forged section count: likewise" \
	"forged2.so: cannot open plugin: it needs a symbol no loaded library defines"

run "$QOPT" --load "$PL/abi2.so" --list-passes
refused "an ABI 2 plugin is another major: both versions named" \
	"$PL/abi2.so: plugin ABI version 2 does not match qopt's plugin ABI version $ours"
t "... and it points at the porting notes, which exist" \
	eval 'has "Porting a plugin from ABI 2" "$W/err" && grep -q "^## Porting a plugin from ABI 2" "$top_srcdir/docs/plugin-abi.md"'

run "$QOPT" --load "$PL/abi3.so" --list-passes
refused "an ABI 3.1 plugin is another major: both versions named" \
	"$PL/abi3.so: plugin ABI version 3 does not match qopt's plugin ABI version $ours"
t "... and it points at the 3 -> 4 porting notes, which exist" \
	eval 'has "Porting a plugin from ABI 3" "$W/err" && grep -q "^## Porting a plugin from ABI 3" "$top_srcdir/docs/plugin-abi.md"'

run "$QOPT" --load "$PL/newer-field.so" --list-passes
refused "a newer minor using a field this ABI lacks: upgrade qopt" \
	"plugin needs qopt plugin ABI $major.$((minor + 1)), this qopt"

run "$QOPT" --load "$PL/malformed.so" --list-passes
refused "a bad table: malformed, naming the pass" \
	"$PL/malformed.so: malformed plugin table: pass 't-norun' has no run function"

printf 'not ELF\n' > garbage.so
run "$QOPT" --load garbage.so --list-passes
refused "not a shared object: cannot open, with the system's reason" \
	"garbage.so: cannot open plugin: "

# run()'s return: any nonzero fails, the message names the code.
run "$QOPT" --load "$PL/good.so" --passes 't-status:rc=3' m.onnx -o o.onnx
t "a status from run() fails the pass; the pass's own message is the one said" \
	eval '[ $rc = 1 ] && has "t-status: error: returning 3 as told" "$W/err" && ! has "pass returned" "$W/err" && [ ! -e o.onnx ]'
run "$QOPT" --load "$PL/good.so" --passes 't-status:rc=3:quiet=yes' m.onnx -o o.onnx
t "a status from run() without a message is named" \
	eval '[ $rc = 1 ] && has "t-status: error: pass returned '\''invalid content'\'' (status 3) without a message" "$W/err" && [ ! -e o.onnx ]'
run "$QOPT" --load "$PL/good.so" --passes 't-status:rc=259:quiet=yes' m.onnx -o o.onnx
t "an extended code, without a message: named, and said so" \
	eval '[ $rc = 1 ] && has "pass returned '\''invalid argument'\'' (status 259) without a message" "$W/err"'
run "$QOPT" --load "$PL/good.so" --passes 't-status:rc=-1' m.onnx -o o.onnx
t "a negative return (no qopt_status) fails as QOPT_EPASS" \
	eval '[ $rc = 1 ] && has "pass returned -1, not a qopt_status: failed as '\''pass failed'\'' (status 16)" "$W/err"'
run "$QOPT" --load "$PL/good.so" --passes 't-status:rc=0' m.onnx -o o.onnx
t "QOPT_OK: the pass succeeds (its error message aside)" \
	eval '[ $rc = 0 ] && [ -e o.onnx ]'
run "$QOPT" --load "$PL/good.so" --passes 't-misuse:misuse=yes' m.onnx -o o.onnx
t "an undeclared option: the pass fails naming the recorded status" \
	eval '[ $rc = 1 ] && has "pass misused the qopt API (see above): not found" "$W/err"'

# No decision by text: the loader never searches dlerror()'s or a
# qir_error's message (an addition to tests/abi/loader, which checks
# the codes).
src="$top_srcdir/core/manager/loader.c $top_srcdir/core/manager/plugin-symbols.c"
t "the loader reads no message text (no strstr/strncmp on dlerror() or msg)" \
	eval '! grep -nE "str(str|ncmp|casestr)\\([^;]*(dlerror|msg|why)" $src'
# code lines (not comments) calling dlerror() for anything but copying it
other_dlerror() {
	grep -n 'dlerror()' $src | grep -v '^[^:]*:[0-9]*:[[:space:]]*/\{0,1\}\*' |
		grep -vF 'snprintf(why, sizeof(why), "%s", dlerror());'
}
t "... and dlerror()'s text is only copied into a message" \
	eval '[ -z "$(other_dlerror)" ] && grep -q "dlerror()" $src'
done_testing
