#!/bin/sh
# bench/fp8mha-bench.sh - fp8-mha end to end on a generated model with
# 1 GiB of FLOAT16 weights behind Q/DQ in external data (16 nn.Linear
# weights of 8192 x 4096, each Q -> DQ -> Transpose -> MatMul), against a
# plain `cp` of the same files. Targets (issue 12):
#   wall time:   at most 2x the cp
#   peak memory: at most the largest weight (64 MiB) + 256 MiB
# Peak RSS is the kernel's high-water mark (mapped input and spill pages
# count too); the sampled peaks of anonymous and file-backed memory are
# shown beside it. qopt's time includes the fsync of its output, the
# cp's none. FP8MHA_BENCH_MIB / _N / _RUNS change size, weights, runs.
set -e
mib=${FP8MHA_BENCH_MIB:-1024}
nw=${FP8MHA_BENCH_N:-16}
runs=${FP8MHA_BENCH_RUNS:-3}
dir=${FP8MHA_BENCH_DIR:-$top_builddir/bench/fp8mha-work}
rm -rf "$dir"
mkdir -p "$dir/cp"
trap 'rm -rf "$dir"' EXIT
"$top_builddir/bench/fp8mha-gen" "$dir/in.onnx" "$mib" "$nw"
largest=$((mib / nw))
limit=$((largest + 256))

now() { date +%s.%N; }

# Runs "$@"; prints "wall_s peak_rss_kib peak_anon_kib peak_file_kib".
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

warm() { cat "$dir/in.onnx.data" >/dev/null; sync; }
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
echo "input: $(du -sh "$dir/in.onnx.data" | cut -f1) FLOAT16 weights" \
     "behind Q/DQ, $nw x ${largest} MiB; best of $runs runs"
printf '%-5s %8s %8s %6s %9s %9s %9s %9s  %s\n' device 'cp s' 'qopt s' \
	ratio 'RSS MiB' 'anon MiB' 'file MiB' 'limit' 'time / memory'

q1() {
	warm
	rm -f "$dir/out.onnx" "$dir/out.onnx.data"
	measure "$QOPT" -q --device "$1" --external-threshold 1024 \
		--passes fp8-mha "$dir/in.onnx" -o "$dir/out.onnx" 2>/dev/null
	sync
}

run_dev() {
	dev=$1
	set -- $(i=0; while [ $i -lt "$runs" ]; do q1 "$dev";
		 i=$((i + 1)); done | best)
	t=$1 rss=$(($2 / 1024)) anon=$(($3 / 1024)) file=$(($4 / 1024))
	ratio=$(echo "scale=2; $t / $cp_t" | bc)
	tok=$(echo "$t <= 2 * $cp_t" | bc)
	mok=$([ "$rss" -le "$limit" ] && echo 1 || echo 0)
	printf '%-5s %8.3f %8.3f %5.2fx %9d %9d %9d %9d  %s / %s\n' \
		"$dev" "$cp_t" "$t" "$ratio" "$rss" "$anon" "$file" "$limit" \
		"$(verdict "$tok")" "$(verdict "$mok")"
}

run_dev cpu
# The output: 16 FP8 weights, stored transposed, no Q, no Transpose.
"$QOPT" dump "$dir/out.onnx" | grep -c 'FLOAT8E4M3FN\[4096,8192\]' |
	sed 's/^/FP8 weights stored transposed in the output: /'
if "$QOPT" --device cuda --help >/dev/null 2>&1 && \
   [ -e /dev/nvidia0 ] && command -v nvidia-smi >/dev/null 2>&1; then
	run_dev cuda
else
	echo "cuda: no GPU here, not measured"
fi
