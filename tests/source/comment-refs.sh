#!/bin/sh
# Every "dir/file.ext" that a comment in a source, or the text of
# docs/*.md, README.md or tests/README.md, names exists: a comment or a
# page pointing at a file that was moved or merged sends the reader
# nowhere.  A name counts as existing when a tracked file is that path
# or ends in "/" followed by it (so "manager/run.h" names
# core/manager/run.h), or is that name with ".in" (configure makes it).
. "$top_srcdir/tests/lib/common.sh"
cd "$top_srcdir" || exit 1

# The comment text of one file, one line each, "file: text".
comments() {
	case $1 in
	*.c|*.h|*.cu|*.cuh|*.js)
		sed -n 's#^.*\(/\*\|//\)\(.*\)$#\2#p; s#^[[:space:]]*\*\(.*\)$#\1#p' "$1" ;;
	*.md)	# a page is all text
		cat "$1" ;;
	*)
		grep -v '^[[:space:]]*#!' "$1" | sed -n 's#^[[:space:]]*\#\(.*\)$#\1#p' ;;
	esac
}
# The path-like names in comment text on stdin.  A name after "$", "{"
# or "/" is a run-time path or part of a longer one, not a file here.
refs() {
	grep -oE '(^|[^$/{}A-Za-z0-9_.-])[a-z0-9_-]+(/[A-Za-z0-9_.-]+)*/[A-Za-z0-9_-]+\.(c|h|cu|cuh|mk|sh|py|js|md|proto)([^A-Za-z0-9_]|$)' |
		sed -E 's#^[^a-z0-9_-]##; s#[^A-Za-z0-9_]$##'
}
check() {
	for f in "$@"; do
		comments "$f" | refs | sort -u | while read -r r; do
			grep -qx "\(.*/\)\{0,1\}$r\(\.in\)\{0,1\}" "$W/tree" ||
				echo "$f: $r"
		done
	done
}

# A checkout lists its files; a distributed tree (or one unpacked inside
# another checkout) has only what is on disk, less what the build made.
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
	git ls-files >"$W/tree"
else
	# config.h and the protobuf-c code are generated, not written here.
	find . -type f ! -path './tests/work/*' ! -path '*/.libs/*' \
		! -name config.h ! -name '*.pb-c.[ch]' |
		sed 's#^\./##' >"$W/tree"
fi
grep -E '\.(c|h|cu|cuh|mk|sh|py|js)$' "$W/tree" | grep -v '^build-aux/\|^m4/' >"$W/sources"
t "there are sources to read ($(wc -l <"$W/sources"))" test -s "$W/sources"

printf '/* see core/no-such-file.c */\n' >"$W/planted.c"
check "$W/planted.c" >"$W/planted"
t "the check finds a planted stale name" grep -q 'core/no-such-file.c' "$W/planted"
printf '/* see manager/run.h */\n' >"$W/good.c"
check "$W/good.c" >"$W/good"
t "a name that is a tail of a tracked path counts" test ! -s "$W/good"

check $(cat "$W/sources") >"$W/stale"
t "every file a comment names exists ($(wc -l <"$W/stale") stale)" test ! -s "$W/stale"
sed 's/^/# stale: /' "$W/stale"

# The documents: every path they name, in any text.
printf 'The writer (ir/no-such-writer.c) does it.\n' >"$W/planted.md"
check "$W/planted.md" >"$W/planted"
t "a stale path in a page is found" grep -q 'ir/no-such-writer.c' "$W/planted"
docs=$(ls docs/*.md README.md tests/README.md 2>/dev/null)
t "there are documents to read ($(echo "$docs" | wc -l))" test -n "$docs"
check $docs >"$W/stale-docs"
t "every file the documents name exists ($(wc -l <"$W/stale-docs") stale)" \
	test ! -s "$W/stale-docs"
sed 's/^/# stale: /' "$W/stale-docs"
done_testing
