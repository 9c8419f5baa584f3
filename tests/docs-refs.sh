#!/bin/sh
# The repository carries its own reference: every docs/*.md that a
# header, source, test or doc names exists, and nothing points at a
# document outside the repository.
. "$top_srcdir/tests/core-lib.sh"
cd "$top_srcdir" || exit 1

files=$(ls include/qopt/*.h core/*.[ch] ir/*.[ch] kernels/*.[ch] \
	kernels/*.cu kernels/*.cuh passes/*/*.[ch] passes/*/*.md \
	tests/*.c tests/*.h tests/*.sh tests/*.py tests/*.js bench/*.py \
	docs/*.md README.md 2>/dev/null)
grep -oh 'docs/[a-z0-9-]*\.md' $files | sort -u >"$W/named"
t "the sources name documents in docs/ ($(wc -l <"$W/named"))" test -s "$W/named"
: >"$W/missing"
while read -r d; do
	[ -f "$d" ] || echo "$d" >>"$W/missing"
done <"$W/named"
t "every docs/*.md named exists" test ! -s "$W/missing"
sed 's/^/# missing: /' "$W/missing"
grep -ln 'shared/docs/' $files | grep -v '^tests/docs-refs.sh$' >"$W/outside"
t "no file points at documents outside the repository" test ! -s "$W/outside"
sed 's/^/# outside: /' "$W/outside"
for d in numerics graph-forms plugin-abi; do
	t "docs/$d.md is distributed" grep -q "docs/$d.md" Makefile.am
done
done_testing
