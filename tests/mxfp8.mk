# tests of the MXFP8 kernel and the mxfp8 pass (fragment of the top Makefile.am).

check_PROGRAMS += tests/kernels-mxfp8
TESTS += tests/kernels-mxfp8
tests_kernels_mxfp8_SOURCES = tests/kernels-mxfp8.c tests/tap.h \
	tests/kernels-util.h
tests_kernels_mxfp8_LDADD = libqopt.la -lm
