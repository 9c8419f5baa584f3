# tests of the opset-check and cast-fold passes (fragment of the top
# Makefile.am). The C tests build graphs with the IR API and run them
# through the qopt binary; ORT comparisons SKIP without ONNX Runtime.
check_PROGRAMS += tests/passes-cast-fold tests/passes-opset-check \
	tests/passes-toolkit
tests_passes_toolkit_SOURCES = tests/passes-toolkit.c tests/tap.h
tests_passes_toolkit_LDADD = passes/libpass-support.la libqopt.la -lm
tests_passes_cast_fold_SOURCES = tests/passes-cast-fold.c \
	tests/passes-util.h tests/tap.h
tests_passes_cast_fold_LDADD = libqopt.la
tests_passes_opset_check_SOURCES = tests/passes-opset-check.c \
	tests/passes-util.h tests/tap.h
tests_passes_opset_check_LDADD = libqopt.la

# passes-finite: the weight passes' Inf/NaN scan (passes/support).
check_PROGRAMS += tests/passes-finite
tests_passes_finite_SOURCES = tests/passes-finite.c tests/tap.h
tests_passes_finite_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)
tests_passes_finite_LDADD = passes/libpass-support.la libqopt.la

TESTS += tests/passes-finite tests/passes-cast-fold tests/passes-opset-check \
	tests/passes-toolkit \
	tests/passes-upgrade-corpus.sh tests/passes-device.sh

EXTRA_DIST += tests/passes-upgrade-corpus.sh tests/passes-device.sh
