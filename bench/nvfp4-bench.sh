#!/bin/sh
# bench/nvfp4-bench.sh - nvfp4-weights end to end on a generated model
# holding 1 GiB of FLOAT16 weights in external data (16 MatMul weights
# of 4096 x 8192), against a plain `cp` of the same files.
#   wall time:   at most 3x the cp
#   peak memory: at most the largest weight (64 MiB) + 256 MiB
# Peak RSS counts the pages of the mapped input file as well; the
# anonymous peak (sampled RssAnon) is what the process itself holds.
# Needs tests/env.sh; NVFP4_BENCH_MIB / NVFP4_BENCH_N change the size.
set -e
mib=${NVFP4_BENCH_MIB:-1024}
nw=${NVFP4_BENCH_N:-16}
dir=${NVFP4_BENCH_DIR:-$top_builddir/bench/nvfp4-work}
rm -rf "$dir"
mkdir -p "$dir/cp"
trap 'rm -rf "$dir"' EXIT
"$top_builddir/bench/nvfp4-gen" "$dir/in.onnx" "$mib" "$nw"
printf '[nvfp4-weights]\n' >"$dir/p.ini"
largest=$((mib / nw))

now() { date +%s.%N; }

# Runs "$@" and prints "wall_s peak_rss_kib peak_anon_kib".
measure() {
	t0=$(now)
	"$@" &
	pid=$!
	anon=0 hwm=0
	while kill -0 $pid 2>/dev/null; do
		set -- $(awk '/^VmHWM:/ { h = $2 } /^RssAnon:/ { a = $2 }
			END { print h + 0, a + 0 }' /proc/$pid/status 2>/dev/null)
		[ "${1:-0}" -gt "$hwm" ] && hwm=$1
		[ "${2:-0}" -gt "$anon" ] && anon=$2
		sleep 0.05
	done
	wait $pid
	t1=$(now)
	echo "$(echo "$t1 - $t0" | bc) $hwm $anon"
}

# Both sides start from a warm page cache and a flushed disk; best of 2.
best() { printf '%s\n%s\n' "$1" "$2" | sort -n | head -n1; }
warm() { cat "$dir/in.onnx.data" >/dev/null; sync; }
cp1() { warm; m=$(measure cp "$dir/in.onnx" "$dir/in.onnx.data" "$dir/cp/");
	sync; rm -f "$dir"/cp/*; echo "$m" | cut -d' ' -f1; }
cp_t=$(best "$(cp1)" "$(cp1)")
echo "input: $(du -sh "$dir/in.onnx.data" | cut -f1) FLOAT16 weights, $nw x ${largest} MiB; cp: ${cp_t}s"

q1() {
	warm
	rm -f "$dir/out.onnx" "$dir/out.onnx.data"
	measure "$QOPT" -q --device "$1" --external-threshold 1024 \
		-p "$dir/p.ini" "$dir/in.onnx" -o "$dir/out.onnx" 2>/dev/null
	sync
}

run_dev() {
	dev=$1
	a=$(q1 "$dev")
	b=$(q1 "$dev")
	set -- $(printf '%s\n%s\n' "$a" "$b" | sort -n | head -n1)
	t=$1 rss=$(($2 / 1024)) anon=$(($3 / 1024))
	ratio=$(echo "scale=2; $t / $cp_t" | bc)
	limit=$((largest + 256))
	echo "$dev: ${t}s (${ratio}x cp, limit 3x), peak RSS ${rss} MiB, peak anonymous ${anon} MiB (limit ${limit} MiB), output $(du -ch "$dir"/out.onnx* | tail -n1 | cut -f1)"
}

run_dev cpu
if "$QOPT" --device cuda --help >/dev/null 2>&1 && \
   [ -e /dev/nvidia0 ] && command -v nvidia-smi >/dev/null 2>&1; then
	run_dev cuda
else
	echo "cuda: no GPU here, not measured"
fi
