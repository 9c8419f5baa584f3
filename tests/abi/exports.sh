#!/bin/sh
# libqopt exports exactly the functions its installed headers declare:
# nm -D of the built library against the prototypes GCC itself lists
# for the headers (-aux-info; independent of build-aux/public-symbols.sh,
# which makes the export list).
. "$top_srcdir/tests/lib/common.sh"

so="$top_builddir/.libs/libqopt.so"
cc=${CC:-cc}
# Every installed header (qopt.h is the plugins' umbrella; file.h is
# for programs built on libqopt).
for h in "$top_srcdir"/include/qopt/*.h; do
	printf '#include <qopt/%s>\n' "${h##*/}"
done >"$W/all.c"
if ! $cc -I"$top_srcdir/include" -aux-info "$W/aux" -fsyntax-only \
	"$W/all.c" 2>"$W/err"; then
	echo "1..0 # SKIP the compiler has no -aux-info (not GCC)"
	exit 0
fi
# "/* .../include/qopt/ir.h:123:NC */ extern int qir_x (...);": the name
# before the first '(' (a parameter of a function type,
# "qopt_diag_fn (*)", is not one); functions a plugin defines
# (qopt_plugin_entry) are not libqopt's.
grep '/include/qopt/[a-z]*\.h:' "$W/aux" | grep -v '\bstatic\b' |
	sed 's|^/\*[^*]*\*/ *||' |
	sed -n 's/^[^(]*[ *]\(q[a-z]*_[A-Za-z0-9_]*\) *(.*/\1/p' |
	grep -E '^(qopt|qir|qk)_' | grep -vx qopt_plugin_entry |
	sort -u >"$W/declared"
nm -D --defined-only "$so" | awk '$2 ~ /^[TWiV]$/ { print $3 }' |
	sed 's/@.*//' | sort -u >"$W/exported"
nm -D --defined-only "$so" | awk '$2 !~ /^[TWiVA]$/ { print $3 }' \
	>"$W/data"

t "the headers declare functions ($(wc -l <"$W/declared"))" \
	test -s "$W/declared"
# Beyond them, the internals the qopt program of this build calls
# (libqopt-private.sym, build-aux/private-symbols.sh): no public prefix,
# and each one the program really calls.
private="$top_builddir/libqopt-private.sym"
t "the private list exists and is not empty" test -s "$private"
sort -u "$private" >"$W/private"
comm -13 "$W/declared" "$W/exported" | comm -23 - "$W/private" >"$W/leaked"
t "nothing exported beyond the headers and the private list" \
	test ! -s "$W/leaked"
sed 's/^/# leaked: /' "$W/leaked" | head -20
t "no private export has a public prefix (qopt_, qir_, qk_)" \
	eval '! grep -Eq "^(qopt|qir|qk)_" "$W/private"'
nm -u "$top_builddir/.libs/qopt" 2>/dev/null | awk '{ print $NF }' |
	sed 's/@.*//' | sort -u >"$W/used"
comm -23 "$W/private" "$W/used" >"$W/unused"
t "every private export is one the qopt program calls" test ! -s "$W/unused"
sed 's/^/# unused: /' "$W/unused" | head
t "the qopt program holds no copy of the manager (no qm_ function defined)" \
	eval '! nm --defined-only "$top_builddir/.libs/qopt" | grep -q " [Tt] qm_"'
t "the qopt program links the shared libqopt" \
	eval 'readelf -d "$top_builddir/.libs/qopt" | grep -q "NEEDED.*libqopt\.so"'
# the controls: a planted leak and a planted copy are found
printf 'qm_planted_leak\n' >>"$W/exported.planted"
cat "$W/exported" >>"$W/exported.planted"
sort -u "$W/exported.planted" | comm -13 "$W/declared" - |
	comm -23 - "$W/private" >"$W/leaked.planted"
t "the check finds a planted export beyond both lists" \
	grep -qx qm_planted_leak "$W/leaked.planted"
comm -23 "$W/declared" "$W/exported" >"$W/missing"
t "every declared function is exported" test ! -s "$W/missing"
sed 's/^/# missing: /' "$W/missing"
t "no data symbols exported" test ! -s "$W/data"
sed 's/^/# data: /' "$W/data" | head
t "no internal-only prefix (qir__) exported" \
	eval '! grep -q "^qir__" "$W/exported"'
# (debug information names the build folder; what the code uses does not)
objcopy --strip-debug "$so" "$W/stripped.so" 2>/dev/null || cp "$so" "$W/stripped.so"
t "no build-tree path compiled into libqopt" \
	eval '! strings "$W/stripped.so" | grep -qF "$top_builddir"'
done_testing
