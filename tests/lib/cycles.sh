# tests/lib/cycles.sh - sourced by the layer tests of tests/source:
# circles in a graph of includes or calls.

# The nodes on a cycle of the graph "FROM TO" on stdin (or on a path
# between two): drop every node nothing points out of, again and again
# (Kahn), then every node nothing left points into; none left: no
# cycle.
cycle_nodes() {
	awk '
	$1 != $2 && !(($1, $2) in e) {
		e[$1, $2] = 1; out[$1]++; from[$2] = from[$2] " " $1
		to[$1] = to[$1] " " $2
	}
	{ node[$1] = 1; node[$2] = 1 }
	END {
		for (v in node) if (!out[v]) q[++t] = v
		while (h < t) {
			v = q[++h]; gone[v] = 1
			k = split(from[v], f, " ")
			for (i = 1; i <= k; i++) if (--out[f[i]] == 0) q[++t] = f[i]
		}
		for (v in node) if (!gone[v]) {
			k = split(to[v], f, " ")
			for (i = 1; i <= k; i++) if (!gone[f[i]]) in_[f[i]]++
		}
		for (v in node) if (!gone[v] && !in_[v]) q[++t] = v
		while (h < t) {
			v = q[++h]; gone[v] = 1
			k = split(to[v], f, " ")
			for (i = 1; i <= k; i++)
				if (!gone[f[i]] && --in_[f[i]] == 0) q[++t] = f[i]
		}
		for (v in node) if (!gone[v]) print v
	}' | sort
}

# The objects on a call circle: OBJ -> the object defining a symbol it
# uses, from nm -A over the archive (or objects) given.
call_cycle() {
	nm -A "$@" 2>/dev/null | awk '
	{ split($1, p, ":"); obj = p[2] ~ /\.o$/ ? p[2] : p[1]
	  sub(/.*\//, "", obj) }
	$(NF - 1) == "U" { use[obj, $NF] = 1; uses[obj] = uses[obj] " " $NF; next }
	NF >= 3 && $(NF - 1) ~ /^[TDBRC]$/ { def[$NF] = obj }
	END {
		for (o in uses) {
			k = split(uses[o], s, " ")
			for (i = 1; i <= k; i++)
				if ((s[i] in def) && def[s[i]] != o)
					print o, def[s[i]]
		}
	}' | cycle_nodes
}

# planted_call_cycle DIR: the control every call-circle check needs:
# ping.o and pong.o call each other, top.o calls ping.o; prints the
# objects call_cycle finds on a circle, on one line ("ping.o pong.o "
# when it works). Returns 77 when nm or a C compiler is missing.
planted_call_cycle() {
	command -v nm >/dev/null 2>&1 && command -v "${CC:-cc}" >/dev/null 2>&1 ||
		return 77
	printf 'int pong(int);\nint ping(int n) { return n ? pong(n - 1) : 0; }\n' \
		>"$1/ping.c"
	printf 'int ping(int);\nint pong(int n) { return n ? ping(n - 1) : 1; }\n' \
		>"$1/pong.c"
	printf 'int ping(int);\nint top(void) { return ping(3); }\n' >"$1/top.c"
	(cd "$1" && ${CC:-cc} -c ping.c pong.c top.c) 2>"$1/err"
	call_cycle "$1/ping.o" "$1/pong.o" "$1/top.o" | tr '\n' ' '
}
