#!/bin/sh
# Plugin ABI versions: what the loader accepts and refuses, and that
# each refusal names the file and both versions.
. "$top_srcdir/tests/lib/common.sh"

major=$(sed -n 's/^#define QOPT_ABI_MAJOR \([0-9]*\)$/\1/p' \
	"$top_srcdir/include/qopt/version.h")
minor=$(sed -n 's/^#define QOPT_ABI_MINOR \([0-9]*\)$/\1/p' \
	"$top_srcdir/include/qopt/version.h")
ours="$major.$minor"

run "$QOPT" --load "$PL/abi1.so" --list-passes
t "an ABI 1 plugin is refused naming the file, 1 and $ours" \
	eval '[ $rc = 1 ] && has "$PL/abi1.so" "$W/err" && has "ABI version 1 " "$W/err" && has "ABI version $ours" "$W/err"'
t "... and points at the porting notes" \
	has "Porting a plugin from ABI 1" "$W/err"
t "... and the porting notes exist" \
	grep -q "^## Porting a plugin from ABI 1" "$top_srcdir/docs/plugin-abi.md"

run "$QOPT" --load "$PL/bad-abi.so" --list-passes
t "a later major is refused naming both versions" \
	eval '[ $rc = 1 ] && has "ABI version $((major + 40))" "$W/err" && has "ABI version $ours" "$W/err"'

# The minor a plugin needs is what it uses, not the headers' minor.
run "$QOPT" --load "$PL/newer-minor.so" --list-passes
t "a later minor's plugin that uses nothing new loads" \
	eval '[ $rc = 0 ] && grep -q "t-newer-minor" "$W/out"'
run "$QOPT" --load "$PL/newer-field.so" --list-passes
t "a later minor's plugin setting a field this ABI lacks is refused naming both versions and the pass" \
	eval '[ $rc = 1 ] && has "$PL/newer-field.so" "$W/err" && has "needs qopt plugin ABI $major.$((minor + 1))" "$W/err" && has "provides $ours" "$W/err" && has "pass '\''t-newer-field'\''" "$W/err"'

run "$QOPT" --load "$PL/needs-newer.so" --list-passes
t "a plugin using a function libqopt lacks: no raw 'undefined symbol'" \
	eval '[ $rc = 1 ] && ! has "undefined symbol" "$W/err"'
t "... the message names the file and the versions" \
	eval 'has "$PL/needs-newer.so" "$W/err" && has "qopt_from_a_later_release()" "$W/err" && has "ABI $major.$((minor + 1))" "$W/err" && has "provides $ours" "$W/err"'

run "$QOPT" --load "$PL/big-entry.so" --list-passes
t "entries larger than this ABI's are refused, not read past their end" \
	eval '[ $rc = 1 ] && has "$PL/big-entry.so: malformed plugin table" "$W/err" && has "are larger than ABI $ours" "$W/err"'

run "$QOPT" --load "$PL/good.so" --list-passes
t "a plugin of this version loads" eval '[ $rc = 0 ] && grep -q "^t-opts " "$W/out"'

# The porting tool on the SDK example as ABI 1 shipped it: the result
# builds warning-free against today's headers and runs.
if [ "$PYTHON3" != no ] && [ -x "$PYTHON3" ]; then
	cp "$top_srcdir/tests/abi/abi1-example.c" "$W/port.c"
	run "$PYTHON3" "$top_srcdir/tools/qopt-port-abi1.py" "$W/port.c"
	t "qopt-port-abi1.py ports the entry tail, the option and the pass tables" \
		eval '[ $rc = 0 ] && has "1 entry tail(s), 2 option(s), 1 pass(es) ported" "$W/out" && grep -q "^QOPT_PLUGIN(\"example-rename\", \"1.0\", passes)" "$W/port.c"'
	run ${CC:-cc} -std=c11 -Wall -Wextra -Werror -fPIC -shared \
		-I"$top_srcdir/include" -o "$W/port.so" "$W/port.c"
	t "... the ported plugin builds with -Wall -Wextra -Werror" \
		test "$rc" = 0
	run "$QOPT" --load "$W/port.so" --passes 'example-rename:match=*' \
		"$W/m.onnx" -o "$W/port.onnx"
	t "... and loads and runs" \
		eval '[ $rc = 0 ] && has "example-rename: done" "$W/err"'
else
	echo "ok $((n + 1)) # SKIP python3 not found"
	n=$((n + 1))
fi

run "$QOPT" --version
t "--version names the plugin ABI" has "plugin ABI $ours" "$W/out"

# The soname follows the ABI major; a minor only moves the revision.
soname=$(objdump -p "$top_builddir/.libs/libqopt.so" 2>/dev/null |
	awk '$1 == "SONAME" { print $2 }')
t "libqopt's soname is libqopt.so.$major (got '$soname')" \
	test "$soname" = "libqopt.so.$major"
t "... and the file is libqopt.so.$major.0.$minor" \
	test -e "$top_builddir/.libs/libqopt.so.$major.0.$minor"
done_testing
