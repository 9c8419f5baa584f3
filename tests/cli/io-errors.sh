#!/bin/sh
# tests/cli/io-errors.sh - bad input seen from the command line: for each
# bad model tests/cli/io-mkbad writes, `qopt BAD -o OUT`, `qopt verify BAD`
# and `qopt dump BAD` exit 1 with one "qopt: BAD: error: WHAT" line,
# leave nothing in the output folder and do not touch the input. Then
# save failures (nothing left behind) and an --external-threshold round
# trip.
. "$top_srcdir/tests/lib/common.sh"

B="$W/bad"
O="$W/outdir"
"$top_builddir/tests/cli/io-mkbad" "$B" >"$W/manifest" 2>"$W/err" || {
	echo "Bail out! tests/cli/io-mkbad failed: $(cat "$W/err")"
	exit 1
}
mkdir "$O" || exit 1

# listing DIR: its entries, dot files included, one a line.
listing() {
	(cd "$1" && ls -A | LC_ALL=C sort)
}

# sum PATH: a checksum of a file, or of a folder's listing.
sum() {
	if [ -d "$1" ]; then listing "$1" | cksum; else cksum <"$1"; fi
}

# says TEXT: stderr's first line is TEXT.
says() {
	[ "$(head -n 1 "$W/err")" = "$1" ] && return 0
	echo "# expected: $1"
	return 1
}

# says_prefix TEXT: stderr's first line starts with TEXT (literally:
# messages hold brackets and quotes).
says_prefix() {
	case "$(head -n 1 "$W/err")" in
	"$1"*) return 0 ;;
	*) echo "# expected: $1..."; return 1 ;;
	esac
}

one_error_line() {
	[ "$(wc -l <"$W/err")" -eq 1 ]
}

# bad NAME PATH MESSAGE: PATH must fail with MESSAGE everywhere.
bad() {
	name=$1 f=$2 msg="qopt: $2: error: $3"
	in_sum=$(sum "$f")
	bad_list=$(listing "$B")
	out_list=$(listing "$O")

	run "$QOPT" "$f" -o "$O/out.onnx"
	t "$name: qopt exits 1" [ "$rc" = 1 ]
	t "$name: qopt says '$3'" says "$msg"
	t "$name: the message is a single line" one_error_line
	cp "$W/err" "$W/run-err"
	t "$name: no output nor temporary file in the output folder" \
		[ "$(listing "$O")" = "$out_list" ]
	t "$name: nothing new in the model's folder" \
		[ "$(listing "$B")" = "$bad_list" ]
	for cmd in verify dump; do
		run "$QOPT" "$cmd" "$f"
		t "$name: qopt $cmd exits 1 with the same message" \
			eval '[ "$rc" = 1 ] && cmp -s "$W/err" "$W/run-err"'
		t "$name: qopt $cmd prints nothing on stdout" [ ! -s "$W/out" ]
	done
	t "$name: input unchanged" [ "$(sum "$f")" = "$in_sum" ]
}

# The shell's read splits at tabs only: messages hold spaces.
tab=$(printf '\t')
ncases=0
while IFS=$tab read -r file msg; do
	bad "${file%.onnx}" "$B/$file" "$msg"
	ncases=$((ncases + 1))
done <"$W/manifest"
t "io-mkbad wrote all 18 cases ($ncases)" [ "$ncases" -eq 18 ]

bad "directory as model" "$B" "'$B' is a directory, not an ONNX model file"
bad "missing model" "$B/nope.onnx" \
	"cannot open '$B/nope.onnx': No such file or directory"

# ---- save failures: exit 1, nothing left, input untouched.
M="$W/m.onnx"
m_sum=$(sum "$M")

# save_fails NAME OUT MESSAGE DIR [OPTIONS]: saving to OUT fails with
# MESSAGE, DIR's listing unchanged.
save_fails() {
	name=$1 out=$2 what=$3 msg="qopt: $2: error: $3" dir=$4
	shift 4
	before=$(listing "$dir")
	run "$QOPT" "$M" -o "$out" "$@"
	t "$name: exits 1" [ "$rc" = 1 ]
	t "$name: says '$what'" says_prefix "$msg"
	t "$name: nothing left in $(basename "$dir")" \
		[ "$(listing "$dir")" = "$before" ]
}

# usage_fails NAME OUT MESSAGE DIR [OPTIONS]: -o OUT is refused before
# any work (exit 2) with "qopt: error: MESSAGE", DIR unchanged.
usage_fails() {
	name=$1 out=$2 what=$3 msg="qopt: error: $3" dir=$4
	shift 4
	before=$(listing "$dir")
	run "$QOPT" "$M" -o "$out" "$@"
	t "$name: exits 2" [ "$rc" = 2 ]
	t "$name: says '$what'" says_prefix "$msg"
	t "$name: nothing left in $(basename "$dir")" \
		[ "$(listing "$dir")" = "$before" ]
}

usage_fails "nonexistent folder" "$W/nope/o.onnx" \
	"-o '$W/nope/o.onnx': its folder does not exist" "$W"
t "nonexistent folder: not created" [ ! -e "$W/nope" ]
: >"$W/afile"
usage_fails "folder is a file" "$W/afile/o.onnx" \
	"-o '$W/afile/o.onnx': its folder is not a folder" "$W"

mkdir "$O/o.onnx"
usage_fails "output is a folder" "$O/o.onnx" \
	"-o '$O/o.onnx' is a directory; qopt only replaces regular files" "$O"
usage_fails "output is a folder, with external data" "$O/o.onnx" \
	"-o '$O/o.onnx' is a directory; qopt only replaces regular files" "$O" \
	--external-threshold 1
rmdir "$O/o.onnx"
save_fails "external data in a nonexistent subfolder" "$O/o.onnx" \
	"cannot create a file beside '$O/sub/x.data'" "$O" \
	--external-threshold 1 --external-name sub/x.data
save_fails "external name with '..'" "$O/o.onnx" \
	"external data name '../x.data' must be a relative path inside the output's folder" \
	"$O" --external-threshold 1 --external-name ../x.data

mkdir "$W/ro"
chmod 555 "$W/ro"
if (: >"$W/ro/probe") 2>/dev/null; then
	# root writes anyway: nothing to learn here.
	rm -f "$W/ro/probe"
	n=$((n + 1))
	echo "ok $n # SKIP read-only folder: writable anyway (running as root)"
else
	save_fails "read-only folder" "$W/ro/o.onnx" \
		"cannot create a file beside '$W/ro/o.onnx': Permission denied" \
		"$W/ro"
fi
chmod 755 "$W/ro"
t "save failures left the input unchanged" [ "$(sum "$M")" = "$m_sum" ]

# ---- --external-threshold round trip (W is FLOAT[4]: 16 bytes).
R="$W/rt"
mkdir "$R"
run "$QOPT" "$M" -o "$R/ext.onnx" --external-threshold 16
t "threshold 16: saves" [ "$rc" = 0 ]
t "threshold 16: the model and its data file, no temporary file" \
	[ "$(listing "$R" | tr '\n' ' ')" = "ext.onnx ext.onnx.data " ]
t "threshold 16: data file holds W's 16 bytes" \
	[ "$(wc -c <"$R/ext.onnx.data")" -eq 16 ]
run "$QOPT" dump "$R/ext.onnx"
t "threshold 16: dump reads W from the data file" \
	has "W: FLOAT[4] (16 bytes, external:ext.onnx.data@0) {0.25, 0.5, 0.75, 1}" \
	"$W/out"
run "$QOPT" verify "$R/ext.onnx"
t "threshold 16: verifies" [ "$rc" = 0 ]

run "$QOPT" "$M" -o "$R/in.onnx" --external-threshold 17
t "threshold 17: W stays inline, no data file" \
	eval '[ "$rc" = 0 ] && [ ! -e "$R/in.onnx.data" ]'

run "$QOPT" "$M" -o "$R/named.onnx" --external-threshold 1 \
	--external-name w.bin
t "--external-name: data goes to w.bin" \
	eval '[ "$rc" = 0 ] && [ -s "$R/w.bin" ] && [ ! -e "$R/named.onnx.data" ]'

run "$QOPT" "$R/ext.onnx" -o "$R/back.onnx" --all-inline
t "external back to inline: saves" [ "$rc" = 0 ]
t "external back to inline: no data file" [ ! -e "$R/back.onnx.data" ]
"$QOPT" dump "$M" >"$W/dump-m" 2>"$W/err"
"$QOPT" dump "$R/back.onnx" >"$W/dump-back" 2>>"$W/err"
t "external back to inline: same IR as the original" \
	cmp -s "$W/dump-m" "$W/dump-back"
t "round trip left no temporary file" \
	[ "$(listing "$R" | tr '\n' ' ')" = "back.onnx ext.onnx ext.onnx.data in.onnx named.onnx w.bin " ]

for v in -1 abc; do
	before=$(listing "$R")
	run "$QOPT" "$M" -o "$R/x.onnx" --external-threshold "$v"
	t "--external-threshold $v: usage error (2), nothing written" \
		eval '[ "$rc" = 2 ] && [ "$(listing "$R")" = "$before" ]'
	t "--external-threshold $v: says what it expects" \
		says "qopt: error: --external-threshold expects an integer >= 0, got '$v'"
done
t "round trips left the input unchanged" [ "$(sum "$M")" = "$m_sum" ]

done_testing
