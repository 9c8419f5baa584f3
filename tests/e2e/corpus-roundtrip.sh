#!/bin/sh
# tests/e2e/corpus-roundtrip.sh - ONNX's backend test corpus round trip.
#
# Every model of $QOPT_TESTDATA/{node,pytorch-converted,pytorch-operator,
# simple,real} (Debian's libonnx-testdata) must load, save and reload
# semantically identical (tests/lib/ir-compare: nodes, attributes, types,
# tensor bytes); then tests/e2e/corpus-ort.js runs every round-tripped
# model in ONNX Runtime on the shipped inputs and compares with the
# shipped outputs. One TAP line per model; models ORT itself cannot
# run are SKIP with ORT's reason (see tests/e2e/corpus-ort.js).
# QOPT_CORPUS_FILTER=REGEX limits the models (by suite/name).
# make check takes a seeded slice of the 932 node tests (one in
# QOPT_CORPUS_EVERY, default 4, from offset QOPT_CORPUS_SEED, default 0;
# the suite is sorted by operator, so every family is in it) and every
# model of the other suites; make check-slow runs them all
# (QOPT_CORPUS_EVERY=1). A qopt start per model is most of the cost.
. "$top_srcdir/tests/ort/common.sh"

if [ ! -d "$QOPT_TESTDATA" ]; then
	echo "1..0 # SKIP no ONNX backend test data at $QOPT_TESTDATA (libonnx-testdata)"
	exit 0
fi
cmp_tool="$top_builddir/tests/lib/ir-compare"
[ -x "$cmp_tool" ] || { echo "Bail out! $cmp_tool not built"; exit 1; }
[ -x "$QOPT" ] || { echo "Bail out! $QOPT not built"; exit 1; }

qopt_workdir corpus
manifest="$work/manifest"
pairs="$work/pairs"
: >"$pairs"
: >"$work/failed"
: >"$work/order"
tab=$(printf '\t')
every=${QOPT_CORPUS_EVERY:-4}
seed=${QOPT_CORPUS_SEED:-0}
case $every$seed in *[!0-9]*) echo "Bail out! QOPT_CORPUS_EVERY and QOPT_CORPUS_SEED take digits"; exit 1;; esac
[ "$every" -ge 1 ] || every=1
echo "# node suite: one model in $every from offset $seed (QOPT_CORPUS_EVERY, QOPT_CORPUS_SEED; make check-slow: all)"
i=0

# One qopt per model (the CLI is what is tested), and nothing else per
# model: under a loaded machine every process start costs, so no
# subshell per model, and one ir-compare for the whole corpus.
for model in "$QOPT_TESTDATA"/node/*/model.onnx \
	     "$QOPT_TESTDATA"/pytorch-converted/*/model.onnx \
	     "$QOPT_TESTDATA"/pytorch-operator/*/model.onnx \
	     "$QOPT_TESTDATA"/simple/*/model.onnx \
	     "$QOPT_TESTDATA"/real/*/model.onnx; do
	[ -f "$model" ] || continue
	dir=${model%/model.onnx}
	name=${dir#"$QOPT_TESTDATA"/}
	case $name in node/*)
		i=$((i + 1))
		[ $(((i + seed) % every)) = 0 ] || continue;;
	esac
	if [ -n "$QOPT_CORPUS_FILTER" ] &&
	   ! printf '%s\n' "$name" | grep -Eq -- "$QOPT_CORPUS_FILTER"; then
		continue
	fi
	out="$work/${name%%/*}_${name#*/}.onnx"
	printf '%s\n' "$name" >>"$work/order"
	if ! "$QOPT" "$model" -o "$out" >"$work/log" 2>&1; then
		printf '%s\tfail\tqopt failed: %s\t%s\t%s\n' "$name" \
			"$(head -n3 "$work/log" | tr '\t\n' '  ')" "$dir" "$out" \
			>>"$work/failed"
	elif [ ! -s "$out" ]; then
		printf '%s\tfail\tqopt wrote no output\t%s\t%s\n' "$name" \
			"$dir" "$out" >>"$work/failed"
	else
		printf '%s\t%s\t%s\n' "$name" "$model" "$out" >>"$pairs"
	fi
done

# The manifest, in corpus order: qopt's failures as they are, each
# compared pair with its verdict (ir-compare --batch: TAG,
# same|differ|error, message).
if ! "$cmp_tool" --batch <"$pairs" >"$work/compared" 2>"$work/log"; then
	echo "Bail out! ir-compare --batch: $(head -n1 "$work/log")"
	exit 1
fi
awk -F '\t' '
	FILENAME == ARGV[1] { line[$1] = $0; next }
	FILENAME == ARGV[2] { model[$1] = $2; out[$1] = $3; next }
	FILENAME == ARGV[3] {
		dir = model[$1]; sub(/\/model\.onnx$/, "", dir)
		if ($2 == "same") line[$1] = $1 "\tok\t\t" dir "\t" out[$1]
		else line[$1] = $1 "\tfail\tround trip differs: " $3 "\t" dir "\t" out[$1]
		next
	}
	# the corpus order, as the models were run
	$1 in line { print line[$1] }' \
	"$work/failed" "$pairs" "$work/compared" "$work/order" >"$manifest"
if [ "$(wc -l <"$manifest")" != "$(($(wc -l <"$pairs") + $(wc -l <"$work/failed")))" ]; then
	echo "Bail out! ir-compare --batch answered $(wc -l <"$work/compared") of $(wc -l <"$pairs") pairs"
	exit 1
fi

if [ ! -s "$manifest" ]; then
	echo "1..0 # SKIP no model matched"
	exit 0
fi

why=$(qopt_ort_missing)
if [ -z "$why" ]; then
	qopt_node "$top_srcdir/tests/e2e/corpus-ort.js" "$manifest"
	exit $?
fi

# No ONNX Runtime: report the round trip alone, and say so.
echo "# ONNX Runtime unavailable ($why): round trip and comparison only"
n=0
while IFS="$tab" read -r name status msg dir out; do
	n=$((n + 1))
	if [ "$status" = ok ]; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name: $msg" | tr '#' 'N'
	fi
done <"$manifest"
echo "1..$n"
