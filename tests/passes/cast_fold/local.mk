# tests of cast-fold (fragment of the top Makefile.am).
check_PROGRAMS += tests/passes/cast_fold/cast-fold
tests_passes_cast_fold_cast_fold_SOURCES = tests/passes/cast_fold/cast-fold.c \
	tests/passes/util.h tests/lib/tap.h
tests_passes_cast_fold_cast_fold_LDADD = libqopt.la
TESTS += tests/passes/cast_fold/cast-fold
