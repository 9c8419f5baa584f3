# tests of fp8-mha (fragment of the top Makefile.am).
check_PROGRAMS += tests/fp8mha-ir
tests_fp8mha_ir_SOURCES = tests/fp8mha-ir.c tests/tap.h
tests_fp8mha_ir_LDADD = libqopt.la
TESTS += tests/fp8mha-ir tests/fp8mha.sh
EXTRA_DIST += tests/fp8mha-lib.sh tests/fp8mha.sh tests/fp8mha-gen.py tests/fp8mha-check.py \
	tests/fp8mha-ort.js
# weight_mode = fake and rotate = rotate_back
TESTS += tests/fp8mha-rotate.sh tests/fp8mha-steps.sh
EXTRA_DIST += tests/fp8mha-rotate.sh tests/fp8mha-steps.sh tests/fp8mha-rotate.py \
	tests/fp8mha-rotate.js
# the pass fp8: CNNs, If/Loop calibration (issue 29)
TESTS += tests/fp8.sh tests/fp8-ppocr.sh
EXTRA_DIST += tests/fp8.sh tests/fp8-gen.py tests/fp8-check.py \
	tests/fp8-ppocr.sh

# make bench-fp8mha: 1 GiB of FLOAT16 weights behind Q/DQ, end to end.
check_PROGRAMS += bench/fp8mha-gen
bench_fp8mha_gen_SOURCES = bench/fp8mha-gen.c bench/gen-common.h bench/gen-common.c
bench_fp8mha_gen_LDADD = libqopt.la
EXTRA_DIST += bench/fp8mha-bench.sh bench/pass-bench.sh
BENCH_TARGETS += bench-fp8mha
bench-fp8mha: all bench/fp8mha-gen$(EXEEXT)
	. $(top_builddir)/tests/env.sh; \
	$(SHELL) $(top_srcdir)/bench/fp8mha-bench.sh
