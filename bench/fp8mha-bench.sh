#!/bin/sh
# bench/fp8mha-bench.sh - fp8-mha end to end on a generated model with
# 1 GiB of FLOAT16 weights behind Q/DQ in external data (16 nn.Linear
# weights of 8192 x 4096, each Q -> DQ -> Transpose -> MatMul), against a
# plain `cp` of the same files. Targets (issue 12):
#   wall time:   at most 2x the cp
#   peak memory: anonymous memory at most the largest weight (64 MiB)
#                + 256 MiB
# Peak RSS is the kernel's high-water mark (the mapped input and the
# output the writer fills through a mapping count too); the sampled
# peaks of anonymous and file-backed memory are shown beside it. qopt's time includes the fsync of its output, the
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

max_ratio=2
. "$top_srcdir/bench/pass-bench.sh"

pass_bench_main "behind Q/DQ ($nw x ${largest} MiB)" --passes fp8-mha
# The output: 16 FP8 weights, stored transposed, no Q, no Transpose.
"$QOPT" dump "$dir/out.onnx" | grep -c 'FLOAT8E4M3FN\[4096,[0-9]*\]' |
	sed 's/^/FP8 weights stored transposed in the output: /'
cuda_row --passes fp8-mha
