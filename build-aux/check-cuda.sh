#!/bin/sh
# build-aux/check-cuda.sh - `make check-cuda`, for a machine with a GPU
# (CI has none, so `make check` only SKIPs these): what proves the CUDA
# module, in the order it proved it on an H100.
#  1. tests/kernels/cuda with its 2^31-element case (QOPT_TEST_HUGE=1)
#     and tests/passes/support/device.sh (the weight passes' bytes, cpu vs cuda);
#  2. compute-sanitizer's memcheck, racecheck, initcheck and synccheck
#     over tests/kernels/cuda, where compute-sanitizer is installed;
#  3. the whole suite with every kernel call sent to CUDA
#     (QOPT_DEVICE=cuda), but for the corpus scripts, which start qopt
#     thousands of times and would pay a CUDA start-up each: they run
#     with the default device.
# Exit 0 when all of it passed, 1 on a failure, 2 when no usable CUDA.
# Run from the build tree: make check-cuda.
MAKE=${MAKE:-make}
# Where the GPU machine's python3 with numpy and onnx is not the one
# configure found: QOPT_TEST_PYTHON3=/path/to/python3 make check-cuda
# (without it the tests that need one SKIP).
corpus="tests/e2e/corpus-roundtrip.sh tests/e2e/upgrade-corpus.sh tests/ir/infer-shapes.sh"

probe=$(QOPT_DEVICE= ./qopt --device cuda "$top_srcdir/examples/mlp.onnx" \
	-o /dev/null 2>&1) || {
	echo "check-cuda: no usable CUDA here: $probe" >&2
	exit 2
}
echo "== 1. CUDA against the CPU, bit for bit"
QOPT_TEST_HUGE=1 $MAKE check TESTS='tests/kernels/cuda tests/passes/support/device.sh' ||
	exit 1
if command -v compute-sanitizer >/dev/null 2>&1; then
	echo "== 2. compute-sanitizer over tests/kernels/cuda"
	for tool in memcheck racecheck initcheck synccheck; do
		out=$(LD_LIBRARY_PATH=.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
		      QOPT_CUDA_MODULE=kernels/libqopt-cuda.so \
		      compute-sanitizer --tool "$tool" --error-exitcode 99 \
		      tests/kernels/.libs/cuda 2>&1) || {
			printf '%s\n' "$out" | tail -n 30
			echo "check-cuda: compute-sanitizer $tool failed" >&2
			exit 1
		}
		printf '%s: %s\n' "$tool" "$(printf '%s\n' "$out" | tail -n 1)"
	done
else
	echo "== 2. compute-sanitizer not installed: skipped"
fi
echo "== 3. the suite with QOPT_DEVICE=cuda (corpus scripts on the default device)"
all=$(printf 'qopt-print-tests:\n\t@echo $(TESTS)\n' |
	$MAKE -s -f Makefile -f - qopt-print-tests)
rest=
for t in $all; do
	case " $corpus " in *" $t "*) ;; *) rest="$rest $t" ;; esac
done
QOPT_DEVICE=cuda $MAKE check TESTS="$rest" || exit 1
$MAKE check TESTS="$corpus" || exit 1
echo "check-cuda: all passed"
