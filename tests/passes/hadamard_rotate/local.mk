# hadamard-rotate: the pass's tests and the Hadamard kernel's benchmark.

# ---- benchmark: `make bench` runs bench-hadamard ----
check_PROGRAMS += bench/hadamard-bench
bench_hadamard_bench_SOURCES = bench/hadamard-bench.c
bench_hadamard_bench_LDADD = libqopt.la
BENCH_TARGETS += bench-hadamard
bench-hadamard: bench/hadamard-bench$(EXEEXT)
	./bench/hadamard-bench$(EXEEXT)
	./bench/hadamard-bench$(EXEEXT) 128 0

# ---- the pass ----
TESTS += tests/passes/hadamard_rotate/rotate.sh
EXTRA_DIST += tests/passes/hadamard_rotate/rotate.sh tests/passes/hadamard_rotate/models.py \
	tests/passes/hadamard_rotate/accuracy.js docs/hadamard-rotate.md
