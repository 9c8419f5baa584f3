#!/bin/sh
# One spelling per pass module (docs/hacking.md, "Names and prefixes"):
# the folder passes/<name>/ is built by passes/<name>.mk into <name>.so, and
# every global symbol its objects define starts with <name>_ (the entry
# point qopt_plugin_entry aside). A module may register several passes
# (fp8: fp8, fp8-mha, int8); their user-facing names keep their hyphens.
# Each check runs once on a planted violation, which it must find.
. "$top_srcdir/tests/lib/common.sh"

# mk_ok NAME MKDIR: passes/<name>.mk exists and builds passes/<name>.la.
mk_ok() {
	grep -q "^passes_LTLIBRARIES += passes/$1\.la\$" "$2/$1.mk" 2>/dev/null
}
# bad_symbols NAME OBJECT...: the global symbols not of NAME's prefix
# (names from __ are the compiler's: ASan's __odr_asan.NAME markers).
bad_symbols() {
	name=$1
	shift
	nm -g --defined-only "$@" 2>/dev/null | awk -v p="${name}_" '
		NF >= 3 && $3 != "qopt_plugin_entry" && substr($3, 1, 2) != "__" &&
		substr($3, 1, length(p)) != p { print $3 }' | sort -u
}
# The objects built from folder $1's own sources (libtool's PIC copies).
objs() {
	for c in "$top_srcdir/$1"/*.c; do
		b=${c##*/}
		o="$top_builddir/$1/.libs/${b%.c}.o"
		[ -f "$o" ] && echo "$o"
	done
}

mkdir -p "$W/mk"
printf 'passes_LTLIBRARIES += passes/other.la\n' >"$W/mk/planted.mk"
if mk_ok planted "$W/mk"; then ok 1 "the .mk check finds a planted misnamed module"
else ok 0 "the .mk check finds a planted misnamed module"; fi
if command -v "${CC:-cc}" >/dev/null && command -v nm >/dev/null; then
	printf 'int planted_ok(void) { return 0; }\nint other_name(void) { return 1; }\n' >"$W/planted.c"
	"${CC:-cc}" -c -o "$W/planted.o" "$W/planted.c"
	bad_symbols planted "$W/planted.o" >"$W/planted.bad"
	t "the prefix check finds exactly the planted symbol of another prefix" \
		test "$(cat "$W/planted.bad")" = other_name
else
	skip "the prefix check finds a planted symbol" "no cc or nm"
fi

for d in "$top_srcdir"/passes/*/; do
	d=${d%/}
	name=${d##*/}
	[ "$name" = support ] && continue
	t "passes/$name: built by passes/$name.mk as $name.so" \
		mk_ok "$name" "$top_srcdir/passes"
	o=$(objs "passes/$name")
	if [ -z "$o" ] || ! command -v nm >/dev/null; then
		skip "passes/$name: every global symbol starts with ${name}_" "nm or its objects missing"
		continue
	fi
	# shellcheck disable=SC2086
	bad_symbols "$name" $o >"$W/$name.bad"
	sed "s|^|# passes/$name: not of prefix ${name}_: |" "$W/$name.bad"
	t "passes/$name: every global symbol starts with ${name}_" \
		test ! -s "$W/$name.bad"
done
done_testing
