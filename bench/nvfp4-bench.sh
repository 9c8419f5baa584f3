#!/bin/sh
# bench/nvfp4-bench.sh - nvfp4-weights end to end on a generated model
# holding 1 GiB of FLOAT16 weights in external data (16 MatMul weights
# of 4096 x 8192), against a plain `cp` of the same files.
#   wall time:   at most 3x the cp
#   peak memory: anonymous memory at most the largest weight (64 MiB)
#                + 256 MiB
# Peak RSS (the kernel's high-water mark, what /usr/bin/time %M shows)
# also counts the mapped pages of the input and of the output, which the
# writer fills through a mapping; the sampled peaks of anonymous and
# file-backed memory are shown beside it. qopt's time includes the fsync of its output
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

max_ratio=3
. "$top_srcdir/bench/pass-bench.sh"

pass_bench_main "($nw x ${largest} MiB)" -p "$dir/p.ini"
cuda_row -p "$dir/p.ini"
