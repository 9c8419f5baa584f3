#!/bin/sh
# bench/autocast-scale.sh (make bench-scale, after calib-scale.sh) -
# autocast on a big FLOAT model (issue 41: a 2.25 GiB FLOAT model
# converts in bounded memory at <= 1.0 x cp + fsync of its data), each
# side measured in one run on the machine it runs on, alternating within
# every round so the load of the moment falls on both alike:
#   cp + fsync    cp of in.onnx and its data file, then `sync FILE...` of
#                 the copies (qopt fsyncs its output before the rename)
#   autocast      `qopt --passes autocast in.onnx -o out.onnx`: FLOAT16
#                 weights written by the writer, half the bytes
#   round trip    `qopt in.onnx -o out.onnx`, for the memory it takes
# The model is AUTOCAST_BENCH_MIB (default 2304: 2.25 GiB) of FLOAT
# MatMul weights in external data (bench/calib-gen.py), 24 weights.
# Per side: the best wall time of SCALE_BENCH_RUNS rounds (default 3),
# the peak RSS and the sampled peak of anonymous memory (bench/
# pass-bench.sh's measure). Markdown for docs/benchmarks.md on stdout,
# with the core count and the load average.
set -e
mib=${AUTOCAST_BENCH_MIB:-2304}
runs=${SCALE_BENCH_RUNS:-3}
dir=${SCALE_BENCH_DIR:-$top_builddir/bench/scale-work}/autocast
rm -rf "$dir"
mkdir -p "$dir/cp"
trap 'rm -rf "$dir"' EXIT
. "$top_srcdir/bench/pass-bench.sh"
# the sampler's pause FIFO, opened once here (scale-bench.sh)
mkfifo "$dir/.tick"
exec 9<>"$dir/.tick"
py=${PYTHON3:-/usr/bin/python3}

warm() { cat "$dir"/in.onnx* >/dev/null; sync; }
cp_sync() { cp "$dir/in.onnx" "$dir/in.onnx.data" "$dir/cp/" && sync "$dir"/cp/*; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
# the best line (lowest wall time) of file $1, and the highest of its
# column $2 over all lines
best_t() { sort -n "$1" | head -n1 | awk '{ printf "%.2f", $1 }'; }
maxcol() { awk -v c="$2" '$c > m { m = $c } END { printf "%.1f", m / 1024 }' "$1"; }

"$py" "$top_srcdir/bench/calib-gen.py" "$dir/g.onnx" "$mib" 24
"$QOPT" -q "$dir/g.onnx" -o "$dir/in.onnx"
rm -f "$dir"/g.onnx*
bytes=$(($(stat -c %s "$dir/in.onnx") + $(stat -c %s "$dir/in.onnx.data")))
: >"$dir/cp.t" ; : >"$dir/ac.t" ; : >"$dir/rt.t"
i=0
while [ $i -lt "$runs" ]; do
	warm
	measure cp_sync >>"$dir/cp.t"
	rm -f "$dir"/cp/*
	warm
	measure "$QOPT" -q --passes autocast "$dir/in.onnx" -o "$dir/out.onnx" >>"$dir/ac.t"
	out=$(($(stat -c %s "$dir/out.onnx") + $(stat -c %s "$dir/out.onnx.data")))
	rm -f "$dir"/out.onnx*
	warm
	measure "$QOPT" -q "$dir/in.onnx" -o "$dir/out.onnx" >>"$dir/rt.t"
	rm -f "$dir"/out.onnx*
	i=$((i + 1))
done
cp_s=$(best_t "$dir/cp.t") ac_s=$(best_t "$dir/ac.t") rt_s=$(best_t "$dir/rt.t")
echo "autocast on $(awk -v b="$bytes" 'BEGIN { printf "%.2f GiB", b / 1073741824 }') of FLOAT (24 MatMul weights, external data) on this machine: $(getconf _NPROCESSORS_ONLN) CPUs, $(uname -m), $(awk '/MemTotal/ { printf "%d GiB", $2 / 1048576 }' /proc/meminfo), load average $(cut -d' ' -f1 /proc/loadavg) at the end; best of $runs rounds, each round alternating the sides."
echo
echo "| command | output | wall | ratio to cp + fsync (target) | peak RSS | peak anon |"
echo "|---|---|---|---|---|---|"
echo "| cp + fsync of the input | $((bytes / 1048576)) MiB | $cp_s s | 1 | | |"
echo "| \`qopt --passes autocast\` | $((out / 1048576)) MiB | $ac_s s | $(ratio "$ac_s" "$cp_s") (<= 1.0) | $(maxcol "$dir/ac.t" 2) MiB | $(maxcol "$dir/ac.t" 3) MiB |"
echo "| round trip \`qopt in.onnx -o out.onnx\` | $((bytes / 1048576)) MiB | $rt_s s | $(ratio "$rt_s" "$cp_s") | $(maxcol "$dir/rt.t" 2) MiB | $(maxcol "$dir/rt.t" 3) MiB |"
