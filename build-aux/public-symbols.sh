#!/bin/sh
# public-symbols.sh CPP HEADER... - the functions libqopt exports: every
# function the public headers declare, one name per line, sorted.
# Preprocessed first, so comments and macros (qopt_error, ...) are gone;
# a declaration is a top-level statement (outside braces) that is not a
# typedef, named by its first identifier followed by '('.
# qopt_plugin_entry is the symbol a plugin exports, not libqopt.
cpp=$1
shift
for h in "$@"; do
	printf '#include "%s"\n' "$h"
done | $cpp -P - |
awk '
	{ text = text " " $0 }
	END {
		depth = 0; stmt = ""
		n = length(text)
		for (i = 1; i <= n; i++) {
			c = substr(text, i, 1)
			if (c == "{") { depth++; continue }
			if (c == "}") { depth--; stmt = ""; continue }
			if (depth > 0) continue
			if (c == ";") { emit(stmt); stmt = ""; continue }
			stmt = stmt c
		}
	}
	function emit(s,   name) {
		if (s ~ /^[ \t]*typedef[ \t]/) return
		# attributes (warn_unused_result, format...) are not names
		gsub(/__attribute__[ \t]*\(\([^()]*(\([^()]*\)[^()]*)*\)\)/, "", s)
		if (!match(s, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) return
		name = substr(s, RSTART, RLENGTH)
		sub(/[ \t]*\($/, "", name)
		if (name ~ /^(qopt|qir|qk)_/ && name != "qopt_plugin_entry")
			print name
	}' | sort -u
