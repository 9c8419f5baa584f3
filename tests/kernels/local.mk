# tests of kernels (fragment of the top Makefile.am)

KERNELS_TESTS = tests/kernels/scalar tests/kernels/convert \
	tests/kernels/fp8 tests/kernels/nvfp4 tests/kernels/hadamard \
	tests/kernels/ctx tests/kernels/cuda tests/kernels/transpose \
	tests/kernels/nvfp4-amax tests/kernels/simd tests/kernels/mxfp8 \
	tests/kernels/int8
check_PROGRAMS += $(KERNELS_TESTS) tests/kernels/dump-fp8
TESTS += $(KERNELS_TESTS) tests/kernels/ort-cast.sh
EXTRA_DIST += tests/kernels/ort-cast.sh tests/kernels/ort-cast.js

KERNELS_TEST_HDRS = tests/lib/tap.h tests/kernels/util.h
# libm explicitly: configure finds sqrt without it when it is inlined.
KERNELS_TEST_LIBS = libqopt.la -lm
tests_kernels_scalar_SOURCES = tests/kernels/scalar.c $(KERNELS_TEST_HDRS)
tests_kernels_scalar_LDADD = $(KERNELS_TEST_LIBS)
tests_kernels_convert_SOURCES = tests/kernels/convert.c $(KERNELS_TEST_HDRS)
tests_kernels_convert_LDADD = $(KERNELS_TEST_LIBS)
tests_kernels_fp8_SOURCES = tests/kernels/fp8.c $(KERNELS_TEST_HDRS)
tests_kernels_fp8_LDADD = $(KERNELS_TEST_LIBS)
tests_kernels_int8_SOURCES = tests/kernels/int8.c $(KERNELS_TEST_HDRS)
tests_kernels_int8_LDADD = $(KERNELS_TEST_LIBS)
tests_kernels_nvfp4_SOURCES = tests/kernels/nvfp4.c $(KERNELS_TEST_HDRS)
tests_kernels_nvfp4_LDADD = $(KERNELS_TEST_LIBS)
tests_kernels_nvfp4_amax_SOURCES = tests/kernels/nvfp4-amax.c $(KERNELS_TEST_HDRS)
tests_kernels_nvfp4_amax_LDADD = $(KERNELS_TEST_LIBS)
tests_kernels_simd_SOURCES = tests/kernels/simd.c $(KERNELS_TEST_HDRS)
tests_kernels_simd_LDADD = $(KERNELS_TEST_LIBS)
tests_kernels_hadamard_SOURCES = tests/kernels/hadamard.c $(KERNELS_TEST_HDRS)
tests_kernels_hadamard_LDADD = $(KERNELS_TEST_LIBS)
tests_kernels_transpose_SOURCES = tests/kernels/transpose.c $(KERNELS_TEST_HDRS)
tests_kernels_transpose_LDADD = $(KERNELS_TEST_LIBS)
tests_kernels_ctx_SOURCES = tests/kernels/ctx.c $(KERNELS_TEST_HDRS)
tests_kernels_ctx_LDADD = $(KERNELS_TEST_LIBS)
tests_kernels_cuda_SOURCES = tests/kernels/cuda.c $(KERNELS_TEST_HDRS)
tests_kernels_cuda_LDADD = $(KERNELS_TEST_LIBS)
tests_kernels_dump_fp8_SOURCES = tests/kernels/dump-fp8.c $(KERNELS_TEST_HDRS)
tests_kernels_dump_fp8_LDADD = $(KERNELS_TEST_LIBS)

# How libqopt treats each status of the CUDA module: a fake module
# (same table, no GPU) returns what the test asks.
check_LTLIBRARIES += tests/kernels/fake-cuda.la
tests_kernels_fake_cuda_la_SOURCES = tests/kernels/fake-cuda.c
tests_kernels_fake_cuda_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/kernels
tests_kernels_fake_cuda_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
check_PROGRAMS += tests/kernels/cuda-status
tests_kernels_cuda_status_SOURCES = tests/kernels/cuda-status.c $(KERNELS_TEST_HDRS)
tests_kernels_cuda_status_LDADD = $(KERNELS_TEST_LIBS)
TESTS += tests/kernels/cuda-status

# Kernels on buffers at any address (bytes borrowed from mapped files).
check_PROGRAMS += tests/kernels/align
TESTS += tests/kernels/align
tests_kernels_align_SOURCES = tests/kernels/align.c $(KERNELS_TEST_HDRS)
tests_kernels_align_LDADD = $(KERNELS_TEST_LIBS)
tests_kernels_mxfp8_SOURCES = tests/kernels/mxfp8.c $(KERNELS_TEST_HDRS)
tests_kernels_mxfp8_LDADD = $(KERNELS_TEST_LIBS)
