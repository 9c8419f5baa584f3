# end-to-end tests (fragment of the top Makefile.am): the ONNX backend
# corpus and PP-OCR round-tripped and run in ONNX Runtime, opset-check's
# upgrade on both, a model over 2 GiB (make check-slow, tests/local.mk).
check_PROGRAMS += tests/e2e/big-gen
tests_e2e_big_gen_SOURCES = tests/e2e/big-gen.c

TESTS += tests/e2e/corpus-roundtrip.sh tests/e2e/ppocr-roundtrip.sh \
	tests/e2e/upgrade-corpus.sh tests/e2e/ppocr-text.sh
EXTRA_DIST += tests/e2e/corpus-ort.js tests/e2e/corpus-roundtrip.sh \
	tests/e2e/ppocr-roundtrip.sh tests/e2e/big-roundtrip.sh \
	tests/e2e/upgrade-corpus.sh tests/e2e/ppocr-text.sh

# make bench-io: qopt's load+save against python onnx's (bench/io-bench.sh).
BENCH_TARGETS += bench-io
bench-io: all tests/e2e/big-gen$(EXEEXT) tests/ort/.stamp
	. $(top_builddir)/tests/env.sh; $(SHELL) $(top_srcdir)/bench/io-bench.sh

