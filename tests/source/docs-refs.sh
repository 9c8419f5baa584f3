#!/bin/sh
# The repository carries its own reference: every docs/*.md that a
# header, source, test or doc names exists, and nothing points at a
# document outside the repository.
. "$top_srcdir/tests/lib/common.sh"
cd "$top_srcdir" || exit 1

# tests/ in all its folders, less what the tests write and ORT's modules.
tests=$(find tests -path tests/work -prune -o -name node_modules -prune -o \
	-type f \( -name '*.[ch]' -o -name '*.sh' -o -name '*.py' -o -name '*.js' \
	-o -name '*.md' \) -print)
files="$(ls include/qopt/*.h core/*/*.[ch] ir/*/*.[ch] kernels/*.[ch] \
	kernels/*.cu kernels/*.cuh passes/*/*.[ch] passes/*/*.md \
	bench/*.py docs/*.md README.md 2>/dev/null) $tests"
grep -oh 'docs/[a-z0-9-]*\.md' $files | sort -u >"$W/named"
t "the sources name documents in docs/ ($(wc -l <"$W/named"))" test -s "$W/named"
: >"$W/missing"
while read -r d; do
	[ -f "$d" ] || echo "$d" >>"$W/missing"
done <"$W/named"
t "every docs/*.md named exists" test ! -s "$W/missing"
sed 's/^/# missing: /' "$W/missing"
# A path climbing out of the tree to the workplace's reference folder.
# The bracket keeps this file from matching its own pattern.
outside='\.\./[s]hared\|[s]hared/docs/'
printf 'see ..%s%s/docs/a-file\n' / shared >"$W/planted"
t "the check finds a planted reference" grep -q "$outside" "$W/planted"
grep -ln "$outside" $files Makefile.am */*.mk */local.mk $(find tests -name local.mk) \
	>"$W/outside"
t "no file points at documents outside the repository" test ! -s "$W/outside"
sed 's/^/# outside: /' "$W/outside"
# README's layout table against the folders holding sources.
sed -n '/^## Layout/,/^## /s/^| `\([^`]*\)` |.*/\1/p' README.md |
	sed 's#/$##' | sort >"$W/table"
: >"$W/nofolder"
while read -r d; do [ -d "$d" ] || echo "$d" >>"$W/nofolder"; done <"$W/table"
t "every folder in README's layout table exists" test ! -s "$W/nofolder"
sed 's/^/# no such folder: /' "$W/nofolder"
# The sources: git's list when this tree is a checkout's top, else (a
# release tree, maybe unpacked inside another checkout, as check-sanitize's
# _build-san/src is) the files themselves, less what configure writes at
# the top (config.h); an empty list would pass the check below unseen.
top=$(git rev-parse --show-toplevel 2>/dev/null) || top=
if [ -n "$top" ] && [ "$(cd "$top" && pwd -P)" = "$(pwd -P)" ]; then
	git ls-files
else
	find . -path ./tests -prune -o -path ./_build-san -prune -o -type f -print |
		sed 's#^\./##'
fi | grep '\.\(c\|h\|cu\)$' | grep -v '^tests/\|^bench/\|^passes/\|^plugins/' |
	xargs -n1 dirname 2>/dev/null | grep -v '^\.$' | sort -u >"$W/srcdirs"
t "the source folders were listed" test -s "$W/srcdirs"
comm -23 "$W/srcdirs" "$W/table" >"$W/unlisted"
t "every source folder is in README's layout table" test ! -s "$W/unlisted"
sed 's/^/# not in the table: /' "$W/unlisted"
for d in numerics graph-forms plugin-abi; do
	t "docs/$d.md is distributed" grep -q "docs/$d.md" Makefile.am
done
done_testing
