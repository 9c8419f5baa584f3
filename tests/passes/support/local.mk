# tests of passes/support: the pass toolkit, the weight passes' Inf/NaN
# scan, and the same bytes from the weight passes on --device cpu and
# cuda (fragment of the top Makefile.am).
check_PROGRAMS += tests/passes/support/toolkit tests/passes/support/finite \
	tests/passes/support/coverage
tests_passes_support_coverage_SOURCES = tests/passes/support/coverage.c tests/lib/tap.h
tests_passes_support_coverage_LDADD = passes/libpass-support.la libqopt.la
tests_passes_support_toolkit_SOURCES = tests/passes/support/toolkit.c tests/lib/tap.h
tests_passes_support_toolkit_LDADD = passes/libpass-support.la libqopt.la -lm
tests_passes_support_finite_SOURCES = tests/passes/support/finite.c tests/lib/tap.h
tests_passes_support_finite_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)
tests_passes_support_finite_LDADD = passes/libpass-support.la libqopt.la
TESTS += tests/passes/support/finite tests/passes/support/toolkit \
	tests/passes/support/device.sh tests/passes/support/coverage \
	tests/passes/support/coverage-moe.sh tests/passes/support/coverage-torch.sh
# a weight replaced by a recipe keeps its doc_string (recipe.c and the
# passes' fake modes)
TESTS += tests/passes/support/recipe.sh
# a fake-quantized weight is not quantized again (fakequant.c)
TESTS += tests/passes/support/fakequant.sh
EXTRA_DIST += tests/passes/support/fakequant.sh
# an unmatched target pattern names the nearest name (suggest.c)
TESTS += tests/passes/support/suggest.sh
EXTRA_DIST += tests/passes/support/suggest.sh
EXTRA_DIST += tests/passes/support/recipe.sh tests/passes/support/recipe.py
EXTRA_DIST += tests/passes/support/device.sh \
	tests/passes/support/coverage-moe.sh tests/passes/support/coverage-moe.py \
	tests/passes/support/coverage-moe.onnx tests/passes/support/coverage-torch.sh \
	tests/passes/support/coverage-torch.py
