#!/bin/sh
# fuzz/run.sh SECONDS - runs each libFuzzer target for SECONDS, after
# replaying every saved regression input (fuzz/regress/TARGET/*).
# Seeds: the ONNX backend test models ($QOPT_TESTDATA, default
# /usr/share/libonnx-testdata/data) and examples/*.onnx for the loader;
# examples/*.ini and the regression inputs for the INI parser; for the
# passes, those models and fuzz/seed/passes (small models of the shapes
# each pass rewrites: FP8 attention blocks, MLPs, attention, Q/DQ, the
# odd shapes of issue 21, an MXFP8 export; made by
# tests/passes/fp8/gen.py, tests/passes/hadamard_rotate/models.py and
# tests/passes/mxfp8/models.py). FUZZ_TARGETS (default "load ini passes")
# picks targets. New
# inputs the fuzzer finds go to fuzz/work/TARGET (not kept); a crash
# leaves its input as fuzz/work/crash-* and fails the run: copy it to
# fuzz/regress/TARGET/ with the fix.
set -u
secs=${1:-20}
# FUZZ_SEED fixes libFuzzer's seed (check-sanitize): a run repeats.
seed=
[ -n "${FUZZ_SEED:-}" ] && seed="-seed=$FUZZ_SEED"
src=$(cd "$(dirname "$0")/.." && pwd)
data=${QOPT_TESTDATA:-/usr/share/libonnx-testdata/data}
work=fuzz/work
mkdir -p "$work/load" "$work/ini" "$work/passes" "$work/seed-load" \
	"$work/seed-ini" || exit 1
if [ -d "$data" ] && [ -z "$(ls -A "$work/seed-load")" ]; then
	find "$data" -name '*.onnx' -size -256k | while read -r f; do
		cp "$f" "$work/seed-load/$(echo "$f" | cksum | cut -d' ' -f1).onnx"
	done
fi
cp "$src"/examples/*.onnx "$work/seed-load/" 2>/dev/null
cp "$src"/examples/*.ini "$work/seed-ini/" 2>/dev/null
rc=0
for t in ${FUZZ_TARGETS:-load ini passes}; do
	reg="$src/fuzz/regress/$t"
	if [ -d "$reg" ] && [ -n "$(ls -A "$reg")" ]; then
		echo "fuzz-$t: replaying $(ls "$reg" | wc -l) regression inputs"
		./fuzz/fuzz-$t -close_fd_mask=2 "$reg"/* >"$work/$t-replay.log" 2>&1 || {
			tail -30 "$work/$t-replay.log"
			rc=1
		}
	fi
	echo "fuzz-$t: fuzzing for $secs s"
	seeds="$work/seed-$t"
	[ $t = passes ] && seeds="$work/seed-load $src/fuzz/seed/passes"
	[ -d "$reg" ] && seeds="$seeds $reg"
	# Long runs (over a minute) go on past a finding and collect them
	# all as $work/crash-*; short ones stop at the first.
	keep=
	[ "$secs" -gt 60 ] && keep="-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1"
	# shellcheck disable=SC2086
	./fuzz/fuzz-$t -max_total_time="$secs" -timeout=20 -rss_limit_mb=4096 \
		-close_fd_mask=2 -print_final_stats=1 $keep $seed \
		-artifact_prefix="$work/crash-$t-" "$work/$t" $seeds \
		>"$work/$t.log" 2>&1 || {
		tail -40 "$work/$t.log"
		rc=1
	}
	if ls "$work"/crash-$t-* >/dev/null 2>&1; then
		echo "fuzz-$t: inputs that fail: $(ls "$work"/crash-$t-* | wc -l) (in $work)"
		rc=1
	fi
	grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' "$work/$t.log" | tail -2
done
exit $rc
