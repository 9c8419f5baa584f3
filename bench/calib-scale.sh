#!/bin/sh
# bench/calib-scale.sh (make bench-scale, after scale-bench.sh) - the
# pairs issue 40 asks of a small machine, each measured in one run on the
# machine it runs on, alternating within every round so that the load of
# the moment falls on both sides alike; best of SCALE_BENCH_RUNS rounds:
#   calibration   `qopt calibrate --random 2 --passes fp8` against
#                 ONNX Runtime alone (node: create the session as the
#                 calibration script does, run the same 2 samples),
#                 target <= 1.5, temporary disk peak <= 64 MiB
#   one command   `qopt --passes fp8 --calibration-random 2` against the
#                 two steps (calibrate, then fp8:calibration=FILE),
#                 target <= 1.1
#   memory        `qopt calibrate --random N --passes fp8` (max mode)
#                 against ONNX Runtime alone over the same N samples
#                 (CALIB_BENCH_MANY, default 32): the peak resident set
#                 of ORT alone against that of calibration's node child
#                 plus qopt's own sampled peak of anonymous memory,
#                 target ORT's own + 64 MiB. (qopt's resident set also
#                 counts the pages of the mapped input its hash read:
#                 the page cache's, shared and reclaimable, not memory
#                 qopt allocates; it is shown beside.)
#   fake          `nvfp4-weights:mode=fake` against the round trip
#                 (`qopt in.onnx -o out.onnx`), FLOAT16 weights in
#                 external data, target <= 1.2; and against a copy that
#                 writes every byte (cp --reflink=never + fsync), the
#                 yardstick where the round trip clones extents (xfs)
# Wall times run from the start to the reaping of the command (ms
# resolution). The temporary disk peak is sampled every 0.2 s beside
# it, by a second process: the bytes of the files
# under TMPDIR other than the input's data file (a hard link to it is
# the input's bytes, not a copy). The model for calibration is
# CALIB_BENCH_MIB (default 1536) of FLOAT MatMul weights in external
# data (bench/calib-gen.py); the fake sizes FAKE_BENCH_SIZES (MiB,
# default "256 1024"). Beside each wall time, the CPU seconds the
# command took (user + system, its children's included; GNU time,
# /usr/bin/time), the steadier figure where other work shares the
# cores. CALIB_BENCH_PARTS (default "calibration fake") picks the
# pairs: "fake" alone skips the 1.5 GiB calibration model. Markdown for
# docs/benchmarks.md on stdout, with the core count and the file
# system.
set -e
parts=${CALIB_BENCH_PARTS:-calibration fake}
calib_mib=${CALIB_BENCH_MIB:-1536}
many=${CALIB_BENCH_MANY:-32}
fake_sizes=${FAKE_BENCH_SIZES:-256 1024}
runs=${SCALE_BENCH_RUNS:-3}
dir=${SCALE_BENCH_DIR:-$top_builddir/bench/scale-work}/pairs
py=${PYTHON3:-python3}
rm -rf "$dir"
mkdir -p "$dir/tmp"
trap 'rm -rf "$dir"' EXIT
TMPDIR=$dir/tmp
QOPT_NODE=${QOPT_NODE:-$NODE}
export TMPDIR QOPT_NODE

now() { date +%s.%N; }
best() { sort -n | head -n1; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "n/a" }'; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }

# reap WHAT: waits for $pid, the command started; t1 when it ended, or
# its log and exit 1 when it failed.
reap() {
	if ! wait $pid; then
		echo "calib-scale: failed: $1" >&2
		cat "$dir/log" >&2
		exit 1
	fi
	t1=$(now)
}

# timed OUT CMD...: CMD's wall seconds appended to OUT, its CPU seconds
# (user + system, children included: node's ONNX Runtime in qopt's)
# to OUT.cpu, its temporary disk peak into $dir/peak. On a busy machine
# the CPU seconds are the steadier figure: wall time is mostly the wait
# for a core. The end time is taken when the command is reaped, not by
# the disk sampler, whose 0.2 s pauses once rounded every wall time up
# to a multiple of 0.2 s.
ino=0
timed() {
	t_out=$1
	shift
	t0=$(now)
	/usr/bin/time -f '%U %S %M' -o "$dir/cpu" "$@" >"$dir/log" 2>&1 &
	pid=$!
	disk_peak $pid >"$dir/peak" &
	spid=$!
	reap "$*"
	wait $spid
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' >>"$t_out"
	awk '{ printf "%.3f\n", $1 + $2 }' "$dir/cpu" >>"$t_out.cpu"
	awk '{ print $3 * 1024 }' "$dir/cpu" >>"$t_out.rss"
}

# disk_peak PID: the largest sum of the sizes of TMPDIR's files (the
# input's own links, inode $ino, left out) seen while PID runs.
disk_peak() {
	dp=0
	while kill -0 "$1" 2>/dev/null; do
		s=$(find "$TMPDIR" -type f ! -inum "$ino" -printf '%s\n' \
			2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
		[ "$s" -gt "$dp" ] && dp=$s
		sleep 0.2
	done
	echo "$dp"
}

warm() { cat "$dir"/*.onnx* >/dev/null; sync; }

# calib_mem OUT: `qopt calibrate --random $many` with its wall seconds
# appended to OUT, its node child's peak resident set (through a
# QOPT_NODE wrapper, GNU time) to OUT.node, qopt's own sampled peak of
# anonymous memory and of its resident set (bytes) to OUT.anon and
# OUT.rss.
calib_mem() {
	printf '#!/bin/sh\nexec /usr/bin/time -f %%M -o "%s" "%s" "$@"\n' \
		"$dir/node.kib" "$QOPT_NODE" >"$dir/node-rss.sh"
	chmod +x "$dir/node-rss.sh"
	t0=$(now)
	QOPT_NODE="$dir/node-rss.sh" "$QOPT" calibrate --random "$many" \
		--passes fp8 "$dir/c.onnx" -o "$dir/m.json" >"$dir/log" 2>&1 &
	pid=$!
	anon=0 hwm=0
	while kill -0 $pid 2>/dev/null; do
		while read -r m_key m_val _; do
			case $m_key in
			RssAnon:) [ "$m_val" -gt "$anon" ] && anon=$m_val ;;
			VmHWM:) [ "$m_val" -gt "$hwm" ] && hwm=$m_val ;;
			esac
		done 2>/dev/null </proc/$pid/status || :
		sleep 0.05
	done
	reap "qopt calibrate --random $many"
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' >>"$1"
	echo $(($(cat "$dir/node.kib") * 1024)) >>"$1.node"
	echo $((anon * 1024)) >>"$1.anon"
	echo $((hwm * 1024)) >>"$1.rss"
}

# ---- calibration and the one-command form
case " $parts " in *" calibration "*) ;; *) calib_mib= ;; esac
[ -z "$calib_mib" ] || {
"$py" "$top_srcdir/bench/calib-gen.py" "$dir/c.onnx" "$calib_mib" 24
ino=$(stat -c %i "$dir/c.onnx.data")
: >"$dir/ort" ; : >"$dir/cal" ; : >"$dir/pass" ; : >"$dir/one"
: >"$dir/ort.cpu" ; : >"$dir/cal.cpu" ; : >"$dir/pass.cpu" ; : >"$dir/one.cpu"
: >"$dir/calpeak" ; : >"$dir/onepeak"
: >"$dir/ortmany" ; : >"$dir/calmany" ; : >"$dir/ortmany.rss" ; : >"$dir/calmany.rss"
: >"$dir/calmany.node" ; : >"$dir/calmany.anon"
i=0
while [ $i -lt "$runs" ]; do
	warm
	timed "$dir/ort" "$QOPT_NODE" "$top_srcdir/bench/ort-alone.js" "$dir/c.onnx" 2 4096
	warm
	timed "$dir/cal" "$QOPT" calibrate --random 2 --passes fp8 "$dir/c.onnx" -o "$dir/c.json"
	cat "$dir/peak" >>"$dir/calpeak"
	warm
	timed "$dir/pass" "$QOPT" -q --passes "fp8:calibration=$dir/c.json" "$dir/c.onnx" -o "$dir/two.onnx"
	rm -f "$dir"/two.onnx*
	warm
	timed "$dir/one" "$QOPT" -q --passes fp8 --calibration-random 2 "$dir/c.onnx" -o "$dir/one.onnx"
	cat "$dir/peak" >>"$dir/onepeak"
	rm -f "$dir"/one.onnx*
	warm
	timed "$dir/ortmany" "$QOPT_NODE" "$top_srcdir/bench/ort-alone.js" "$dir/c.onnx" "$many" 4096
	warm
	calib_mem "$dir/calmany"
	i=$((i + 1))
done
sum() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a + b }'; }
ort=$(best <"$dir/ort") cal=$(best <"$dir/cal") pass=$(best <"$dir/pass")
one=$(best <"$dir/one") two=$(sum "$cal" "$pass")
ortc=$(best <"$dir/ort.cpu") calc=$(best <"$dir/cal.cpu")
passc=$(best <"$dir/pass.cpu") onec=$(best <"$dir/one.cpu")
twoc=$(sum "$calc" "$passc")
calpeak=$(sort -n "$dir/calpeak" | tail -n1)
onepeak=$(sort -n "$dir/onepeak" | tail -n1)
ortrss=$(sort -n "$dir/ortmany.rss" | tail -n1)
calrss=$(sort -n "$dir/calmany.rss" | tail -n1)
calnode=$(sort -n "$dir/calmany.node" | tail -n1)
calanon=$(sort -n "$dir/calmany.anon" | tail -n1)
caltotal=$((calnode + calanon))
ortmany=$(best <"$dir/ortmany") calmany=$(best <"$dir/calmany")
rm -f "$dir"/c.onnx* "$dir/c.json" "$dir/m.json"
}

# ---- fake against the round trip
fake_rows=
case " $parts " in *" fake "*) ;; *) fake_sizes= ;; esac
# The byte copy: cp writing every byte (no reflink) and its fsync, the
# yardstick where the round trip clones extents instead (xfs, btrfs:
# copy_file_range shares the blocks and takes milliseconds).
byte_copy='cp --reflink=never "$1/in.onnx.data" "$1/cp.data" && sync "$1/cp.data"'
for size in $fake_sizes; do
	"$top_builddir/bench/nvfp4-gen" "$dir/g.onnx" "$size" 16 >&2
	"$QOPT" -q "$dir/g.onnx" -o "$dir/in.onnx"
	rm -f "$dir"/g.onnx*
	: >"$dir/rt" ; : >"$dir/fake" ; : >"$dir/rt.cpu" ; : >"$dir/fake.cpu"
	: >"$dir/bc"
	i=0
	while [ $i -lt "$runs" ]; do
		warm
		timed "$dir/rt" "$QOPT" -q "$dir/in.onnx" -o "$dir/out.onnx"
		rm -f "$dir"/out.onnx*
		warm
		timed "$dir/fake" "$QOPT" -q --passes nvfp4-weights:mode=fake "$dir/in.onnx" -o "$dir/out.onnx"
		rm -f "$dir"/out.onnx*
		warm
		timed "$dir/bc" sh -c "$byte_copy" sh "$dir"
		rm -f "$dir/cp.data"
		i=$((i + 1))
	done
	rt=$(best <"$dir/rt") fake=$(best <"$dir/fake") bc=$(best <"$dir/bc")
	rtc=$(best <"$dir/rt.cpu") fakec=$(best <"$dir/fake.cpu")
	fake_rows="$fake_rows| $size MiB | $rt s | $fake s | $(ratio "$fake" "$rt") (<= 1.2) | $rtc s | $fakec s | $(ratio "$fakec" "$rtc") | $bc s | $(ratio "$fake" "$bc") |
"
	rm -f "$dir"/in.onnx*
done

fs=$(findmnt -n -o FSTYPE -T "$dir" 2>/dev/null || stat -f -c %T "$dir")
echo "Pairs on this machine: $(getconf _NPROCESSORS_ONLN) CPUs, $(uname -m), file system $fs (TMPDIR and outputs on it), $(awk '/MemTotal/ { printf "%d GiB", $2 / 1048576 }' /proc/meminfo), load average $(cut -d' ' -f1 /proc/loadavg) at the end; best of $runs rounds, each round alternating the two sides."
echo
[ -z "$calib_mib" ] || {
echo "| calibration ($calib_mib MiB FLOAT, 24 MatMul weights, external data, 2 random samples) | wall | ratio (target) | CPU | CPU ratio | temporary disk peak (target) |"
echo "|---|---|---|---|---|---|"
echo "| ONNX Runtime alone (node: session, 2 samples) | $ort s | | $ortc s | | |"
echo "| \`qopt calibrate --random 2 --passes fp8\` | $cal s | $(ratio "$cal" "$ort") x ORT (<= 1.5) | $calc s | $(ratio "$calc" "$ortc") x ORT | $(mib "$calpeak") (<= 64 MiB) |"
echo "| \`qopt --passes fp8:calibration=FILE\` | $pass s | | $passc s | | |"
echo "| two steps (calibrate + pass) | $two s | | $twoc s | | |"
echo "| one command \`qopt --passes fp8 --calibration-random 2\` | $one s | $(ratio "$one" "$two") x two steps (<= 1.1) | $onec s | $(ratio "$onec" "$twoc") x two steps | $(mib "$onepeak") |"
echo
echo "| $many random samples, max mode | wall | memory (target) | qopt's resident set, mapped input included |"
echo "|---|---|---|---|"
echo "| ONNX Runtime alone (node: session, $many samples) | $ortmany s | $(mib "$ortrss") peak resident set | |"
echo "| \`qopt calibrate --random $many --passes fp8\` | $calmany s | $(mib "$caltotal"): node's $(mib "$calnode") + qopt's anonymous $(mib "$calanon"); ORT's $(awk -v b=$((caltotal - ortrss)) 'BEGIN { printf "%+.1f MiB", b / 1048576 }') (<= +64 MiB) | $(mib "$calrss") |"
echo
}
[ -z "$fake_sizes" ] || {
echo "| nvfp4-weights fake (16 FLOAT16 weights, external data) | round trip | fake | ratio (target) | round trip CPU | fake CPU | CPU ratio | byte copy (cp --reflink=never + fsync) | fake / byte copy |"
echo "|---|---|---|---|---|---|---|---|---|"
printf '%s' "$fake_rows"
}
