# tests of nvfp4-weights (fragment of the top Makefile.am).

# Structure and real == fake numerics, through the qopt binary.
check_PROGRAMS += tests/nvfp4-structure
tests_nvfp4_structure_SOURCES = tests/nvfp4-structure.c tests/tap.h
tests_nvfp4_structure_LDADD = libqopt.la -lm

TESTS += tests/nvfp4-structure tests/nvfp4-check.sh tests/nvfp4-ort.sh \
	tests/nvfp4-spill.sh tests/nvfp4-skips.sh

# W4A4 (pass nvfp4, activations = yes): the fake form against the
# kernel bit for bit in ORT; the real form and calibration on the torch
# exports.
check_PROGRAMS += tests/nvfp4-act-exact
tests_nvfp4_act_exact_SOURCES = tests/nvfp4-act-exact.c
tests_nvfp4_act_exact_LDADD = libqopt.la -lm
TESTS += tests/nvfp4-act.sh tests/nvfp4-w4a4.sh tests/nvfp4-modelopt.sh \
	tests/nvfp4-accuracy.sh
EXTRA_DIST += tests/nvfp4-act.sh tests/nvfp4-act-exact.js tests/nvfp4-w4a4.sh \
	tests/nvfp4-modelopt.sh tests/nvfp4-modelopt.py tests/nvfp4-modelopt.js \
	tests/nvfp4-accuracy.sh tests/nvfp4-accuracy.js

EXTRA_DIST += tests/nvfp4-check.sh tests/nvfp4-check.py tests/nvfp4-spill.sh \
	tests/nvfp4-skips.sh \
	tests/nvfp4-ort.sh tests/nvfp4-ort.js \
	bench/nvfp4-bench.sh

# make bench-nvfp4: 1 GiB of FLOAT16 weights quantized end to end.
check_PROGRAMS += bench/nvfp4-gen
bench_nvfp4_gen_SOURCES = bench/nvfp4-gen.c bench/gen-common.h bench/gen-common.c
bench_nvfp4_gen_LDADD = libqopt.la
BENCH_TARGETS += bench-nvfp4
bench-nvfp4: all bench/nvfp4-gen$(EXEEXT)
	. $(top_builddir)/tests/env.sh; \
	$(SHELL) $(top_srcdir)/bench/nvfp4-bench.sh
