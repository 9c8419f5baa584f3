#!/bin/sh
# bench/scale-bench.sh (make bench-scale) - the three jobs a user feels,
# against the yardstick of a safe copy: `cp` of the input's model and
# data file, then an fsync of both (`sync FILE...`), since qopt fsyncs
# its output before it renames it. Per size (1 GiB and 4 GiB of FLOAT16
# weights in external data, 16 weights) and job:
#   round trip     qopt in.onnx -o out.onnx
#   fp8-mha        16 weights behind Q/DQ -> Transpose -> MatMul, stored
#                  as FP8 and pre-transposed
#   nvfp4-weights  16 MatMul weights to real NVFP4
# every run is paired with a cp+sync run right before it (page cache
# warm, dirty pages flushed before both); the table gives the medians of
# both times and of the per-pair ratio, the peak RSS and the sampled
# peak of anonymous memory over the qopt runs, and the threads qopt's
# writer and kernels use (one per online CPU). Targets (issue 23):
#   ratio: round trip <= 1.0, fp8-mha <= 0.7, nvfp4-weights <= 0.5
#   anon:  <= 64 MiB + threads x the largest tensor
# SCALE_BENCH_SIZES (MiB, default "1024 4096"), SCALE_BENCH_RUNS (pairs,
# default 5), SCALE_BENCH_JOBS (default "roundtrip fp8-mha nvfp4"),
# SCALE_BENCH_DIR (work folder; needs 3x the largest size free).
set -e
sizes=${SCALE_BENCH_SIZES:-1024 4096}
runs=${SCALE_BENCH_RUNS:-5}
jobs=${SCALE_BENCH_JOBS:-roundtrip fp8-mha nvfp4}
nw=16
dir=${SCALE_BENCH_DIR:-$top_builddir/bench/scale-work}
rm -rf "$dir"
mkdir -p "$dir/cp"
trap 'rm -rf "$dir"' EXIT
# measure(), the sampler and warm() from the pass benchmarks. The
# sampler's pause FIFO is opened here, once: measure() runs inside
# command substitutions, whose descriptors die with them.
. "$top_srcdir/bench/pass-bench.sh"
mkfifo "$dir/.tick"
exec 9<>"$dir/.tick"
threads=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
[ "$threads" -gt 16 ] && threads=16

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
maxcol() { awk -v c="$1" '$c > m { m = $c } END { print m + 0 }'; }

cp_sync() {
	cp "$dir/in.onnx" "$dir/in.onnx.data" "$dir/cp/" &&
	sync "$dir/cp/in.onnx" "$dir/cp/in.onnx.data"
}

# One pair: "cp_s qopt_s rss_kib anon_kib".
pair() {
	warm
	c=$(measure cp_sync | cut -d' ' -f1)
	rm -f "$dir"/cp/*
	warm
	rm -f "$dir/out.onnx" "$dir/out.onnx.data"
	q=$(measure "$QOPT" -q --external-threshold 1024 "$@" \
		"$dir/in.onnx" -o "$dir/out.onnx")
	echo "$c $q"
}

row() {
	size=$1 job=$2
	shift 2
	: >"$dir/pairs"
	i=0
	while [ $i -lt "$runs" ]; do
		pair "$@" >>"$dir/pairs"
		i=$((i + 1))
	done
	out=$(($(stat -c %s "$dir/out.onnx") + $(stat -c %s "$dir/out.onnx.data" 2>/dev/null || echo 0)))
	cp_m=$(cut -d' ' -f1 "$dir/pairs" | median)
	q_m=$(cut -d' ' -f2 "$dir/pairs" | median)
	r_m=$(awk '{ printf "%.4f\n", $2 / $1 }' "$dir/pairs" | median)
	rss=$(($(maxcol 3 <"$dir/pairs") / 1024))
	anon=$(($(maxcol 4 <"$dir/pairs") / 1024))
	largest=$((size / nw))
	printf '%-6s %-14s %8d %8.3f %8.3f %6.2f %8d %8d %7d %9d\n' \
		"$size" "$job" "$((out / 1048576))" "$cp_m" "$q_m" "$r_m" \
		"$rss" "$anon" "$threads" "$((64 + threads * largest))"
}

rows=
for size in $sizes; do
	for job in $jobs; do
		rm -f "$dir"/in.onnx*
		case $job in
		roundtrip) "$top_builddir/bench/nvfp4-gen" "$dir/in.onnx" "$size" "$nw" >&2
			rows="$rows$(row "$size" "round trip")
" ;;
		fp8-mha) "$top_builddir/bench/fp8mha-gen" "$dir/in.onnx" "$size" "$nw" >&2
			rows="$rows$(row "$size" fp8-mha --passes fp8-mha)
" ;;
		nvfp4) "$top_builddir/bench/nvfp4-gen" "$dir/in.onnx" "$size" "$nw" >&2
			printf '[nvfp4-weights]\n' >"$dir/p.ini"
			rows="$rows$(row "$size" nvfp4-weights -p "$dir/p.ini")
" ;;
		*) echo "scale-bench: unknown job '$job'" >&2; exit 2 ;;
		esac
	done
done
echo "FLOAT16 weights in external data ($nw weights), $runs pairs per row; medians"
echo "(ratio: median of qopt / (cp + fsync) over the pairs); $(uname -m), $(getconf _NPROCESSORS_ONLN) CPUs, $(awk '/MemTotal/ { printf "%d GiB", $2 / 1048576 }' /proc/meminfo)"
printf '%-6s %-14s %8s %8s %8s %6s %8s %8s %7s %9s\n' MiB job 'out MiB' \
	'cp+sync' 'qopt s' ratio 'RSS MiB' 'anon MiB' threads 'anon lim'
printf '%s' "$rows"
