#!/bin/sh
# bench/nvfp4-bench.sh - nvfp4-weights end to end on a generated model
# holding 1 GiB of FLOAT16 weights in external data (16 MatMul weights
# of 4096 x 8192), against a plain `cp` of the same files.
#   wall time:   at most 3x the cp
#   peak memory: at most the largest weight (64 MiB) + 256 MiB
# Peak RSS (the kernel's high-water mark, what /usr/bin/time %M shows)
# counts the mapped pages of the input and of the spill file as well as
# the process's own (anonymous) memory; the sampled peaks of both parts
# are shown beside it. qopt's time includes the fsync of its output
# (it replaces files atomically), the cp's none.
# Needs tests/env.sh; NVFP4_BENCH_MIB / NVFP4_BENCH_N change the size,
# NVFP4_BENCH_RUNS the number of runs (best taken).
set -e
mib=${NVFP4_BENCH_MIB:-1024}
nw=${NVFP4_BENCH_N:-16}
runs=${NVFP4_BENCH_RUNS:-3}
dir=${NVFP4_BENCH_DIR:-$top_builddir/bench/nvfp4-work}
rm -rf "$dir"
mkdir -p "$dir/cp"
trap 'rm -rf "$dir"' EXIT
"$top_builddir/bench/nvfp4-gen" "$dir/in.onnx" "$mib" "$nw"
printf '[nvfp4-weights]\n' >"$dir/p.ini"
largest=$((mib / nw))
limit=$((largest + 256))

now() { date +%s.%N; }

# Runs "$@"; prints "wall_s peak_rss_kib peak_anon_kib peak_file_kib".
# The sampler reads /proc with shell builtins only, so that it takes
# next to no CPU from the measured command.
measure() {
	t0=$(now)
	"$@" &
	pid=$!
	hwm=0 anon=0 file=0
	while kill -0 $pid 2>/dev/null; do
		while read -r k v _; do
			case $k in
			VmHWM:) [ "$v" -gt "$hwm" ] && hwm=$v ;;
			RssAnon:) [ "$v" -gt "$anon" ] && anon=$v ;;
			RssFile:) [ "$v" -gt "$file" ] && file=$v ;;
			esac
		done 2>/dev/null </proc/$pid/status || :
		sleep 0.02
	done
	wait $pid
	t1=$(now)
	echo "$(echo "$t1 - $t0" | bc) $hwm $anon $file"
}

# Every run starts from a warm page cache and a flushed disk.
warm() { cat "$dir/in.onnx.data" >/dev/null; sync; }
# Lowest wall time of the lines on stdin, with its other fields.
best() { sort -n | head -n1; }
verdict() { if [ "$1" = 1 ]; then echo pass; else echo MISS; fi; }

cp1() {
	warm
	m=$(measure cp "$dir/in.onnx" "$dir/in.onnx.data" "$dir/cp/")
	sync
	rm -f "$dir"/cp/*
	echo "$m"
}
cp_t=$(i=0; while [ $i -lt "$runs" ]; do cp1; i=$((i + 1)); done |
       best | cut -d' ' -f1)
echo "input: $(du -sh "$dir/in.onnx.data" | cut -f1) FLOAT16 weights," \
     "$nw x ${largest} MiB; best of $runs runs"
printf '%-5s %8s %8s %6s %9s %9s %9s %9s  %s\n' device 'cp s' 'qopt s' \
	ratio 'RSS MiB' 'anon MiB' 'file MiB' 'limit' 'time / memory'

q1() {
	warm
	rm -f "$dir/out.onnx" "$dir/out.onnx.data"
	measure "$QOPT" -q --device "$1" --external-threshold 1024 \
		-p "$dir/p.ini" "$dir/in.onnx" -o "$dir/out.onnx" 2>/dev/null
	sync
}

run_dev() {
	dev=$1
	set -- $(i=0; while [ $i -lt "$runs" ]; do q1 "$dev";
		 i=$((i + 1)); done | best)
	t=$1 rss=$(($2 / 1024)) anon=$(($3 / 1024)) file=$(($4 / 1024))
	ratio=$(echo "scale=2; $t / $cp_t" | bc)
	tok=$(echo "$t <= 3 * $cp_t" | bc)
	mok=$([ "$rss" -le "$limit" ] && echo 1 || echo 0)
	printf '%-5s %8.3f %8.3f %5.2fx %9d %9d %9d %9d  %s / %s\n' \
		"$dev" "$cp_t" "$t" "$ratio" "$rss" "$anon" "$file" "$limit" \
		"$(verdict "$tok")" "$(verdict "$mok")"
}

run_dev cpu
if "$QOPT" --device cuda --help >/dev/null 2>&1 && \
   [ -e /dev/nvidia0 ] && command -v nvidia-smi >/dev/null 2>&1; then
	run_dev cuda
else
	echo "cuda: no GPU here, not measured"
fi
