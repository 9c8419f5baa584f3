# bench/pass-bench.sh - sourced by the end-to-end pass benchmarks
# (nvfp4-bench.sh, fp8mha-bench.sh): a pass over a generated model with
# its weights in external data, against a plain `cp` of the same files.
# The caller sets:
#   dir       work folder holding in.onnx and in.onnx.data (and cp/)
#   runs      runs per figure (the best is taken)
#   limit     peak-memory limit in MiB
#   max_ratio wall-time limit as a multiple of the cp
#   $@ of pass_bench_main: what qopt runs (-p FILE or --passes NAME)
# Peak RSS is the kernel's high-water mark (mapped input and spill pages
# count too); the sampled peaks of anonymous and file-backed memory are
# shown beside it. qopt's time includes the fsync of its output (it
# replaces files atomically), the cp's none.

now() { date +%s.%N; }

# Pauses about 5 ms. Under bash, a read that times out on a FIFO we
# hold open both ways: no process is started, so the pause costs the
# measured command no CPU (a `sleep` per sample would). Elsewhere sleep.
tick() {
	if [ -n "${BASH_VERSION:-}" ] && [ -p "$dir/.tick" ]; then
		read -r -t 0.005 -u 9 _ || :
	else
		sleep 0.02
	fi
}

# Runs "$@"; prints "wall_s peak_rss_kib peak_anon_kib peak_file_kib".
# The sampler reads /proc with shell builtins only, so that it takes
# next to no CPU from the measured command; the wall time is late by at
# most one pause.
measure() {
	# measure runs in a command substitution, a new subshell each
	# time: the FIFO outlives the first one, fd 9 does not, so open it
	# in every call (bash said "read: 9: invalid file descriptor").
	[ -p "$dir/.tick" ] || mkfifo "$dir/.tick" || return 1
	{ : >&9; } 2>/dev/null || exec 9<>"$dir/.tick"
	t0=$(now)
	"$@" &
	pid=$!
	hwm=0 anon=0 file=0
	while kill -0 $pid 2>/dev/null; do
		# (m_key, m_val: names of their own, as sh has no locals
		# and repeat's counter must survive)
		while read -r m_key m_val _; do
			case $m_key in
			VmHWM:) [ "$m_val" -gt "$hwm" ] && hwm=$m_val ;;
			RssAnon:) [ "$m_val" -gt "$anon" ] && anon=$m_val ;;
			RssFile:) [ "$m_val" -gt "$file" ] && file=$m_val ;;
			esac
		done 2>/dev/null </proc/$pid/status || :
		tick
	done
	wait $pid
	t1=$(now)
	echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }') $hwm $anon $file"
}

# Every run starts from a warm page cache and a flushed disk.
warm() { cat "$dir/in.onnx.data" >/dev/null; sync; }
# Lowest wall time of the lines on stdin, with its other fields.
best() { sort -n | head -n1; }
verdict() { if [ "$1" = 1 ]; then echo pass; else echo MISS; fi; }
# repeat N CMD...: CMD N times.
repeat() {
	rep_n=$1
	shift
	while [ "$rep_n" -gt 0 ]; do "$@"; rep_n=$((rep_n - 1)); done
}

cp1() {
	warm
	m=$(measure cp "$dir/in.onnx" "$dir/in.onnx.data" "$dir/cp/")
	sync
	rm -f "$dir"/cp/*
	echo "$m"
}

# q1 DEVICE QOPT-ARGS...: one qopt run, measured.
q1() {
	d=$1
	shift
	warm
	rm -f "$dir/out.onnx" "$dir/out.onnx.data"
	measure "$QOPT" -q --device "$d" --external-threshold 1024 \
		"$@" "$dir/in.onnx" -o "$dir/out.onnx" 2>/dev/null
	sync
}

# run_dev DEVICE QOPT-ARGS...: one table row.
run_dev() {
	dev=$1
	shift
	# shellcheck disable=SC2046
	set -- $(repeat "$runs" q1 "$dev" "$@" | best)
	t=$1 rss=$(($2 / 1024)) anon=$(($3 / 1024)) file=$(($4 / 1024))
	ratio=$(awk -v t="$t" -v c="$cp_t" 'BEGIN { printf "%.2f", t / c }')
	tok=$(awk -v t="$t" -v r="$max_ratio" -v c="$cp_t" 'BEGIN { print (t <= r * c) ? 1 : 0 }')
	# Judged on anonymous memory: RSS also counts the pages of the mapped
	# input and of the output the writer fills through a mapping, which
	# are the page cache's to drop, not the process's to hold.
	mok=$([ "$anon" -le "$limit" ] && echo 1 || echo 0)
	printf '%-5s %8.3f %8.3f %5.2fx %9d %9d %9d %9d  %s / %s\n' \
		"$dev" "$cp_t" "$t" "$ratio" "$rss" "$anon" "$file" "$limit" \
		"$(verdict "$tok")" "$(verdict "$mok")"
}

# pass_bench_main WHAT QOPT-ARGS...: the cp baseline, the header, the
# CPU row (the output stays in $dir/out.onnx for the caller to check)
# and, where a GPU exists, the CUDA row.
pass_bench_main() {
	what=$1
	shift
	cp_t=$(repeat "$runs" cp1 | best | cut -d' ' -f1)
	echo "input: $(du -sh "$dir/in.onnx.data" | cut -f1) FLOAT16 weights" \
	     "$what; best of $runs runs"
	printf '%-5s %8s %8s %6s %9s %9s %9s %9s  %s\n' device 'cp s' \
		'qopt s' ratio 'RSS MiB' 'anon MiB' 'file MiB' 'limit' \
		'time / memory'
	run_dev cpu "$@"
}

# cuda_row QOPT-ARGS...: the CUDA row, or why there is none.
cuda_row() {
	if "$QOPT" --device cuda --help >/dev/null 2>&1 && \
	   [ -e /dev/nvidia0 ] && command -v nvidia-smi >/dev/null 2>&1; then
		run_dev cuda "$@"
	else
		echo "cuda: no GPU here, not measured"
	fi
}
