# tests: what every folder's tests share (fragment of the top
# Makefile.am): ONNX Runtime, the helpers in tests/lib, check-slow and
# the work folders. Each folder of tests/ has its own local.mk, included
# from Makefile.am after this one (see tests/README.md).

# ONNX Runtime for node and the PP-OCR models, installed into the build
# tree before the tests run (check_DATA is built before TESTS). The
# install never fails the build: tests that need ORT SKIP with the
# reason setup.sh wrote to tests/ort/setup.log.
check_DATA = tests/ort/.stamp
tests/ort/.stamp: $(top_srcdir)/tests/ort/package.json \
		  $(top_srcdir)/tests/ort/setup.sh
	$(AM_V_GEN)$(SHELL) $(top_srcdir)/tests/ort/setup.sh \
		'$(top_srcdir)' '$(top_builddir)/tests/ort' '$(NPM)' '$(NODE)'


# make check-slow: the tests too slow or too disk-hungry for every
# `make check` (the 2 GiB external-data round trip writes and reads
# 4 GiB). CI (.ci/run) runs it after make check. Its summary goes to
# tests/slow-suite.log, so test-suite.log stays make check's.
# It also runs the whole ONNX backend corpus (make check: a seeded slice
# of its node tests, tests/e2e/corpus-roundtrip.sh, tests/ir/infer-shapes.sh,
# tests/e2e/upgrade-corpus.sh).
SLOW_TESTS = tests/e2e/big-roundtrip.sh tests/e2e/corpus-roundtrip.sh \
	tests/ir/infer-shapes.sh tests/e2e/upgrade-corpus.sh
check-slow: all
	QOPT_CORPUS_EVERY=1 $(MAKE) $(AM_MAKEFLAGS) check TESTS='$(SLOW_TESTS)' \
		TEST_SUITE_LOG=tests/slow-suite.log
.PHONY: check-slow

EXTRA_DIST += tests/ort/package.json tests/ort/setup.sh \
	tests/ort/common.sh tests/ort/lib.js tests/ort/run-compare.js \
	examples/make-mlp.py examples/mlp.onnx examples/quantize.ini \
	bench/io-bench.sh bench/scale-bench.sh bench/calib-scale.sh \
	bench/calib-gen.py bench/ort-alone.js bench/autocast-scale.sh

clean-local: clean-local-tests
clean-local-tests:
	-rm -rf tests/work tests/ort/node_modules
	-rm -f tests/ort/.stamp tests/ort/setup.log tests/ort/package-lock.json
	-test '$(abs_top_srcdir)' = '$(abs_top_builddir)' || \
		rm -f tests/ort/package.json
.PHONY: clean-local-tests

# make bench-scale: the default invocation of round trip, fp8-mha and
# nvfp4-weights against cp + fsync of the input, paired, external and
# inline, at 1 GiB (SCALE_BENCH_SIZES="1024 4096" adds 4 GiB); prints a
# markdown table (bench/scale-bench.sh). Then the pairs of issue 40
# (bench/calib-scale.sh): calibration against ONNX Runtime alone, one
# command against two, fake against the round trip, the temporary disk
# peak, with the core count and the file system. Then autocast on a
# 2.25 GiB FLOAT model against cp + fsync (bench/autocast-scale.sh).
BENCH_TARGETS += bench-scale
bench-scale: all bench/nvfp4-gen$(EXEEXT) bench/fp8mha-gen$(EXEEXT)
	. $(top_builddir)/tests/env.sh; $(SHELL) $(top_srcdir)/bench/scale-bench.sh
	. $(top_builddir)/tests/env.sh; $(SHELL) $(top_srcdir)/bench/calib-scale.sh
	. $(top_builddir)/tests/env.sh; $(SHELL) $(top_srcdir)/bench/autocast-scale.sh
