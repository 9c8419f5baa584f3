# tests of nvfp4-weights (fragment of the top Makefile.am).

# Structure and real == fake numerics, through the qopt binary.
check_PROGRAMS += tests/passes/nvfp4/structure
tests_passes_nvfp4_structure_SOURCES = tests/passes/nvfp4/structure.c tests/lib/tap.h
tests_passes_nvfp4_structure_LDADD = libqopt.la -lm

TESTS += tests/passes/nvfp4/structure tests/passes/nvfp4/check.sh tests/passes/nvfp4/ort.sh \
	tests/passes/nvfp4/spill.sh tests/passes/nvfp4/skips.sh

EXTRA_DIST += tests/passes/nvfp4/check.sh tests/passes/nvfp4/check.py tests/passes/nvfp4/spill.sh \
	tests/passes/nvfp4/skips.sh \
	tests/passes/nvfp4/ort.sh tests/passes/nvfp4/ort.js \
	bench/nvfp4-bench.sh

# make bench-nvfp4: 1 GiB of FLOAT16 weights quantized end to end.
check_PROGRAMS += bench/nvfp4-gen
bench_nvfp4_gen_SOURCES = bench/nvfp4-gen.c bench/gen-common.h bench/gen-common.c
bench_nvfp4_gen_LDADD = libqopt.la
BENCH_TARGETS += bench-nvfp4
bench-nvfp4: all bench/nvfp4-gen$(EXEEXT)
	. $(top_builddir)/tests/env.sh; \
	$(SHELL) $(top_srcdir)/bench/nvfp4-bench.sh

# W4A4 (pass nvfp4, activations = yes): the fake form against the
# kernel bit for bit in ORT; the real form and calibration on the torch
# exports; ModelOpt W4A4 exports; the accuracy table.
check_PROGRAMS += tests/passes/nvfp4/act-exact
tests_passes_nvfp4_act_exact_SOURCES = tests/passes/nvfp4/act-exact.c
tests_passes_nvfp4_act_exact_LDADD = libqopt.la -lm
TESTS += tests/passes/nvfp4/act.sh tests/passes/nvfp4/w4a4.sh \
	tests/passes/nvfp4/modelopt.sh tests/passes/nvfp4/accuracy.sh
EXTRA_DIST += tests/passes/nvfp4/act.sh tests/passes/nvfp4/act-exact.js \
	tests/passes/nvfp4/w4a4.sh tests/passes/nvfp4/modelopt.sh \
	tests/passes/nvfp4/modelopt.py tests/passes/nvfp4/modelopt.js \
	tests/passes/nvfp4/accuracy.sh tests/passes/nvfp4/accuracy.js

# Malformed ModelOpt W4A4 exports (one attribute changed): refused,
# node and attribute named.
TESTS += tests/passes/nvfp4/export-bad.sh
EXTRA_DIST += tests/passes/nvfp4/export-bad.sh \
	tests/passes/nvfp4/export-bad.py
