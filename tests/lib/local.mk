# tests/lib: what tests of every folder use (fragment of the top
# Makefile.am): semantic model comparison, the small model the manager and
# command-line tests run on, the TAP helpers for C and sh.
check_PROGRAMS += tests/lib/ir-compare tests/lib/mkmodel
tests_lib_ir_compare_SOURCES = tests/lib/ir-compare.c
tests_lib_ir_compare_LDADD = libqopt.la
tests_lib_mkmodel_SOURCES = tests/lib/mkmodel.c
tests_lib_mkmodel_LDADD = libqopt.la
EXTRA_DIST += tests/lib/common.sh tests/lib/tap.h tests/lib/io-util.h \
	tests/lib/cycles.sh tests/lib/render_text.py tests/lib/ocr-read.js \
	tests/lib/ocr_score.py
