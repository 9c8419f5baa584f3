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
TESTS += tests/hadamard-rotate.sh
EXTRA_DIST += tests/hadamard-rotate.sh tests/hadamard-models.py \
	tests/hadamard-accuracy.js docs/hadamard-rotate.md
