#!/bin/sh
# tests/corpus-roundtrip.sh - ONNX's backend test corpus round trip.
#
# Every model of $QOPT_TESTDATA/{node,pytorch-converted,pytorch-operator,
# simple,real} (Debian's libonnx-testdata) must load, save and reload
# semantically identical (tests/ir-compare: nodes, attributes, types,
# tensor bytes); then tests/corpus-ort.js runs every round-tripped
# model in ONNX Runtime on the shipped inputs and compares with the
# shipped outputs. One TAP line per model; models ORT itself cannot
# run are SKIP with ORT's reason (see tests/corpus-ort.js).
# QOPT_CORPUS_FILTER=REGEX limits the models (by suite/name).
. "$top_srcdir/tests/ort/common.sh"

if [ ! -d "$QOPT_TESTDATA" ]; then
	echo "1..0 # SKIP no ONNX backend test data at $QOPT_TESTDATA (libonnx-testdata)"
	exit 0
fi
cmp_tool="$top_builddir/tests/ir-compare"
[ -x "$cmp_tool" ] || { echo "Bail out! $cmp_tool not built"; exit 1; }
[ -x "$QOPT" ] || { echo "Bail out! $QOPT not built"; exit 1; }

qopt_workdir corpus
manifest="$work/manifest"
: >"$manifest"
tab=$(printf '\t')

for model in "$QOPT_TESTDATA"/node/*/model.onnx \
	     "$QOPT_TESTDATA"/pytorch-converted/*/model.onnx \
	     "$QOPT_TESTDATA"/pytorch-operator/*/model.onnx \
	     "$QOPT_TESTDATA"/simple/*/model.onnx \
	     "$QOPT_TESTDATA"/real/*/model.onnx; do
	[ -f "$model" ] || continue
	dir=${model%/model.onnx}
	name=${dir#"$QOPT_TESTDATA"/}
	if [ -n "$QOPT_CORPUS_FILTER" ] &&
	   ! printf '%s\n' "$name" | grep -Eq -- "$QOPT_CORPUS_FILTER"; then
		continue
	fi
	out="$work/$(printf '%s' "$name" | tr / _).onnx"
	status=ok msg=
	if ! "$QOPT" "$model" -o "$out" >"$work/log" 2>&1; then
		status=fail
		msg="qopt failed: $(head -n3 "$work/log" | tr '\t\n' '  ')"
	elif [ ! -s "$out" ]; then
		status=fail msg="qopt wrote no output"
	elif ! "$cmp_tool" "$model" "$out" >"$work/log" 2>&1; then
		status=fail
		msg="round trip differs: $(head -n3 "$work/log" | tr '\t\n' '  ')"
	fi
	printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$status" "$msg" "$dir" "$out" \
		>>"$manifest"
done

if [ ! -s "$manifest" ]; then
	echo "1..0 # SKIP no model matched"
	exit 0
fi

why=$(qopt_ort_missing)
if [ -z "$why" ]; then
	qopt_node "$top_srcdir/tests/corpus-ort.js" "$manifest"
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
