#!/bin/sh
# bench/scale-bench.sh (make bench-scale) - the three jobs a user feels,
# run as users type them (the DEFAULT invocation, no tuning flag:
# `qopt [--passes P | -p FILE] in.onnx -o out.onnx`), against the
# yardstick of a safe copy: `cp` of the input's files, then an fsync of
# the copies (`sync FILE...`), since qopt fsyncs its output before it
# renames it. Per size (FLOAT16 weights, 16 of them) and job:
#   round trip     qopt in.onnx -o out.onnx
#   fp8-mha        16 weights behind Q/DQ -> Transpose -> MatMul, stored
#                  as FP8 and pre-transposed
#   nvfp4-weights  16 MatMul weights to real NVFP4
# each on the weights in external data (qopt keeps that layout: the
# output has external data too) and, for sizes under 2 GiB, on the same
# model inline (the input converted with --all-inline first; the output
# is then inline as well). Every run is paired with a cp+sync run right
# before it (page cache warm, dirty pages flushed before both); the
# table gives the medians of both times and of the per-pair ratio, the
# peak RSS and the sampled peak of anonymous memory over the qopt runs,
# and the threads qopt's writer and kernels use (one per online CPU).
# Targets (issues 23 and 32):
#   ratio: round trip <= 1.0, fp8-mha <= 0.7, nvfp4-weights <= 0.5
#   anon:  <= 64 MiB + threads x the largest tensor
# The result is a markdown table for docs/benchmarks.md on stdout.
# SCALE_BENCH_SIZES (MiB, default 1024; "1024 4096" adds 4 GiB),
# SCALE_BENCH_RUNS (pairs, default 3), SCALE_BENCH_JOBS (default
# "roundtrip fp8-mha nvfp4 nvfp4-fake fp8-mha-fake"; the fake modes
# write as many bytes as the input and target 1.2 x the round trip), SCALE_BENCH_LAYOUTS (default "external
# inline"), SCALE_BENCH_DIR (work folder; needs 3x the largest size
# free).
set -e
sizes=${SCALE_BENCH_SIZES:-1024}
runs=${SCALE_BENCH_RUNS:-3}
jobs=${SCALE_BENCH_JOBS:-roundtrip fp8-mha nvfp4 nvfp4-fake fp8-mha-fake}
layouts=${SCALE_BENCH_LAYOUTS:-external inline}
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

# The input's files: in.onnx, and in.onnx.data when external.
inputs() { for f in "$dir/in.onnx" "$dir/in.onnx.data"; do [ -f "$f" ] && echo "$f"; done; }
# warm() of pass-bench.sh reads the data file; an inline input has none.
warm() { cat $(inputs) >/dev/null; sync; }

cp_sync() {
	cp $(inputs) "$dir/cp/" &&
	sync "$dir"/cp/*
}

# One pair: "cp_s qopt_s rss_kib anon_kib".
pair() {
	warm
	c=$(measure cp_sync | cut -d' ' -f1)
	rm -f "$dir"/cp/*
	warm
	rm -f "$dir/out.onnx" "$dir/out.onnx.data"
	q=$(measure "$QOPT" -q "$@" "$dir/in.onnx" -o "$dir/out.onnx")
	echo "$c $q"
}

row() {
	size=$1 job=$2 layout=$3
	shift 3
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
	outlay=inline
	[ -f "$dir/out.onnx.data" ] && outlay=external
	# The layout the default gives must be the input's.
	[ "$outlay" = "$layout" ] || echo "scale-bench: $job on a $layout input gave a $outlay output" >&2
	printf '| %s GiB | %s | %s | %d MiB | %.2f s | %.2f s | %.2f (<= %s) | %d MiB | %d MiB (%d) | %d |\n' \
		"$(awk -v s="$size" 'BEGIN { printf "%g", s / 1024 }')" "$job" \
		"$layout" "$((out / 1048576))" "$cp_m" "$q_m" "$r_m" \
		"$(target "$job")" "$rss" "$anon" "$((64 + threads * largest))" \
		"$threads"
}

target() {
	case $1 in
	"round trip") echo 1.0 ;;
	fp8-mha) echo 0.7 ;;
	# Fake modes write as many bytes as the input: 1.2 x the round trip.
	*fake) echo "1.2 x round trip" ;;
	*) echo 0.5 ;;
	esac
}

# make_input JOB SIZE LAYOUT: in.onnx (and in.onnx.data) for the job.
make_input() {
	rm -f "$dir"/in.onnx* "$dir"/ext.onnx*
	case $1 in
	fp8-mha) "$top_builddir/bench/fp8mha-gen" "$dir/ext.onnx" "$2" "$nw" >&2 ;;
	*) "$top_builddir/bench/nvfp4-gen" "$dir/ext.onnx" "$2" "$nw" >&2 ;;
	esac
	if [ "$3" = inline ]; then
		"$QOPT" -q --all-inline "$dir/ext.onnx" -o "$dir/in.onnx"
	else
		# qopt's own layout of the generated model: the data file
		# named after in.onnx, as a user's would be.
		"$QOPT" -q "$dir/ext.onnx" -o "$dir/in.onnx"
	fi
	rm -f "$dir"/ext.onnx*
}

rows=
for size in $sizes; do
	for layout in $layouts; do
		# Inline is for models under the 2 GiB protobuf limit.
		[ "$layout" = inline ] && [ "$size" -ge 2048 ] && continue
		for job in $jobs; do
			case $job in
			roundtrip) make_input roundtrip "$size" "$layout"
				rows="$rows$(row "$size" "round trip" "$layout")
" ;;
			fp8-mha) make_input fp8-mha "$size" "$layout"
				rows="$rows$(row "$size" fp8-mha "$layout" --passes fp8-mha)
" ;;
			nvfp4) make_input nvfp4 "$size" "$layout"
				printf '[nvfp4-weights]\n' >"$dir/p.ini"
				rows="$rows$(row "$size" nvfp4-weights "$layout" -p "$dir/p.ini")
" ;;
			nvfp4-fake) make_input nvfp4 "$size" "$layout"
				rows="$rows$(row "$size" "nvfp4-weights fake" "$layout" --passes nvfp4-weights:mode=fake)
" ;;
			fp8-mha-fake) make_input fp8-mha "$size" "$layout"
				rows="$rows$(row "$size" "fp8-mha fake" "$layout" --passes fp8-mha:weight_mode=fake)
" ;;
			*) echo "scale-bench: unknown job '$job'" >&2; exit 2 ;;
			esac
		done
	done
done
echo "Default invocation (\`qopt [--passes P | -p FILE] in.onnx -o out.onnx\`, no tuning flag); FLOAT16 weights ($nw weights), $runs pairs per row, medians (ratio: median of qopt / (cp + fsync) over the pairs); $(uname -m), $(getconf _NPROCESSORS_ONLN) CPUs, $(awk '/MemTotal/ { printf "%d GiB", $2 / 1048576 }' /proc/meminfo), load average $(cut -d' ' -f1 /proc/loadavg) at the end."
echo
echo "| size | job | layout | output | cp + fsync | qopt | ratio (target) | peak RSS | peak anon (limit) | threads |"
echo "|---|---|---|---|---|---|---|---|---|---|"
printf '%s' "$rows"
