#!/bin/sh
# tests/ir/infer-shapes.sh - qopt's type and shape inference against onnx's
# (onnx.shape_inference.infer_shapes) on ONNX's backend test corpus
# ($QOPT_TESTDATA, Debian's libonnx-testdata) and on the exporter-made
# models in tests/torch/models/ when that folder exists: `qopt --passes
# infer-shapes` writes qopt's types as value_info, then one python
# process (tests/ir/infer-shapes-check.py) compares every model: zero
# conflicts, coverage per model and at least 99% overall.
# QOPT_CORPUS_FILTER=REGEX limits the corpus models (by suite/name).
# make check takes one node test in QOPT_CORPUS_EVERY (default 4) from
# offset QOPT_CORPUS_SEED (as tests/e2e/corpus-roundtrip.sh); make check-slow
# all of them.
. "$top_srcdir/tests/ort/common.sh"

if [ "$PYTHON3" = no ] || ! "$PYTHON3" -c 'import onnx' 2>/dev/null; then
	echo "1..0 # SKIP no python3 with onnx"
	exit 0
fi
[ -x "$QOPT" ] || { echo "Bail out! $QOPT not built"; exit 1; }
qopt_workdir infer-shapes
list="$work/list"
: >"$list"
tab=$(printf '\t')
i=0
k=0
every=${QOPT_CORPUS_EVERY:-4}
seed=${QOPT_CORPUS_SEED:-0}
case $every$seed in *[!0-9]*) echo "Bail out! QOPT_CORPUS_EVERY and QOPT_CORPUS_SEED take digits"; exit 1;; esac
[ "$every" -ge 1 ] || every=1
for model in "$QOPT_TESTDATA"/node/*/model.onnx \
	     "$QOPT_TESTDATA"/pytorch-converted/*/model.onnx \
	     "$QOPT_TESTDATA"/pytorch-operator/*/model.onnx \
	     "$QOPT_TESTDATA"/simple/*/model.onnx \
	     "$QOPT_TESTDATA"/real/*/model.onnx \
	     "$top_srcdir"/tests/torch/models/*.onnx; do
	[ -f "$model" ] || continue
	case $model in "$QOPT_TESTDATA"/node/*)
		k=$((k + 1))
		[ $(((k + seed) % every)) = 0 ] || continue;;
	esac
	if [ -n "$QOPT_CORPUS_FILTER" ] &&
	   ! printf '%s\n' "$model" | grep -Eq -- "$QOPT_CORPUS_FILTER"; then
		continue
	fi
	i=$((i + 1))
	"$QOPT" --passes infer-shapes "$model" -o "$work/$i.onnx" \
		2>"$work/$i.err" >/dev/null
	printf '%s%s%s%s%s\n' "$model" "$tab" "$work/$i.onnx" "$tab" \
		"$work/$i.err" >>"$list"
done
if [ "$i" = 0 ]; then
	echo "1..0 # SKIP no models (libonnx-testdata not installed)"
	exit 0
fi
"$PYTHON3" "$top_srcdir/tests/ir/infer-shapes-check.py" "$list"
