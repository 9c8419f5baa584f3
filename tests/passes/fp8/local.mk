# tests of fp8-mha (fragment of the top Makefile.am).
check_PROGRAMS += tests/passes/fp8/ir
tests_passes_fp8_ir_SOURCES = tests/passes/fp8/ir.c tests/lib/tap.h
tests_passes_fp8_ir_LDADD = libqopt.la
TESTS += tests/passes/fp8/ir tests/passes/fp8/fp8mha.sh
EXTRA_DIST += tests/passes/fp8/lib.sh tests/passes/fp8/fp8mha.sh tests/passes/fp8/gen.py tests/passes/fp8/check.py \
	tests/passes/fp8/ort.js
# weight_mode = fake and rotate = rotate_back
TESTS += tests/passes/fp8/rotate.sh tests/passes/fp8/steps.sh
EXTRA_DIST += tests/passes/fp8/rotate.sh tests/passes/fp8/steps.sh tests/passes/fp8/rotate.py \
	tests/passes/fp8/rotate.js

# make bench-fp8mha: 1 GiB of FLOAT16 weights behind Q/DQ, end to end.
check_PROGRAMS += bench/fp8mha-gen
bench_fp8mha_gen_SOURCES = bench/fp8mha-gen.c bench/gen-common.h bench/gen-common.c
bench_fp8mha_gen_LDADD = libqopt.la
EXTRA_DIST += bench/fp8mha-bench.sh bench/pass-bench.sh
BENCH_TARGETS += bench-fp8mha
bench-fp8mha: all bench/fp8mha-gen$(EXEEXT)
	. $(top_builddir)/tests/env.sh; \
	$(SHELL) $(top_srcdir)/bench/fp8mha-bench.sh

# the pass fp8: CNNs, If/Loop calibration, the PP-OCR models
TESTS += tests/passes/fp8/fp8.sh tests/passes/fp8/fp8-ppocr.sh
EXTRA_DIST += tests/passes/fp8/fp8.sh tests/passes/fp8/fp8-gen.py \
	tests/passes/fp8/fp8-check.py tests/passes/fp8/fp8-ppocr.sh

# the pass int8: the same placement in symmetric INT8 (docs/int8.md)
TESTS += tests/passes/fp8/int8.sh tests/passes/fp8/int8-ppocr.sh
EXTRA_DIST += tests/passes/fp8/int8.sh tests/passes/fp8/int8-gen.py \
	tests/passes/fp8/int8-ppocr.sh tests/passes/fp8/int8-ppocr-text.sh
# on rendered text, make check-slow: 6 calibrations, 7 models over 60 lines
SLOW_TESTS += tests/passes/fp8/int8-ppocr-text.sh

# weight_mode = fake: deferred DQ(Q(W)) (no spill file), equal to the
# ONNX definitions in NumPy; rotate_back deferred too, equal byte for
# byte to the eager reference (rotref).
TESTS += tests/passes/fp8/fake.sh
check_PROGRAMS += tests/passes/fp8/rotref
tests_passes_fp8_rotref_SOURCES = tests/passes/fp8/rotref.c
tests_passes_fp8_rotref_LDADD = libqopt.la
EXTRA_DIST += tests/passes/fp8/fake.sh tests/passes/fp8/fake.py

# the pass fp8 under a degenerate amax: both inputs float, a warning
TESTS += tests/passes/fp8/fp8-degenerate.sh
# the calibration file reader: every field checked, no key twice
TESTS += tests/passes/fp8/calib-file.sh
EXTRA_DIST += tests/passes/fp8/fp8-degenerate.sh \
	tests/passes/fp8/calib-file.sh \
	tests/passes/fp8/fp8-degenerate.py
