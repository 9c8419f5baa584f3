# tests of base/ (fragment of the top Makefile.am).
# utf8: the one UTF-8 check and its two users (the IR's escaping, the
# manager's JSON strings).
check_PROGRAMS += tests/base/utf8
tests_base_utf8_SOURCES = tests/base/utf8.c tests/lib/tap.h
tests_base_utf8_LDADD = $(LIBQOPT_INTERNALS)
TESTS += tests/base/utf8
