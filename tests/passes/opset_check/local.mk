# tests of opset-check (fragment of the top Makefile.am); its upgrade
# on the backend corpus and PP-OCR is tests/e2e/upgrade-corpus.sh.
check_PROGRAMS += tests/passes/opset_check/opset-check
tests_passes_opset_check_opset_check_SOURCES = tests/passes/opset_check/opset-check.c \
	tests/passes/util.h tests/lib/tap.h
tests_passes_opset_check_opset_check_LDADD = libqopt.la
TESTS += tests/passes/opset_check/opset-check
