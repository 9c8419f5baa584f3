# tests of hostile input and interrupted runs (issue: nothing crashes,
# hangs, or is destroyed): hand-made adversarial files, odd output
# paths, signals, misbehaving plugins.
TESTS += tests/hostile/load.sh tests/hostile/output.sh
dist_check_SCRIPTS += tests/hostile/load.sh tests/hostile/output.sh
EXTRA_DIST += tests/hostile/gen.py

check_PROGRAMS += tests/hostile/scan
TESTS += tests/hostile/scan
tests_hostile_scan_SOURCES = tests/hostile/scan.c tests/lib/tap.h
tests_hostile_scan_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/ir
tests_hostile_scan_LDADD = $(LIBQOPT_INTERNALS)

TESTS += tests/hostile/signals.sh tests/hostile/pipeline.sh \
	tests/hostile/fuzz-regress.sh
dist_check_SCRIPTS += tests/hostile/signals.sh tests/hostile/pipeline.sh \
	tests/hostile/fuzz-regress.sh
# a mapped file that fails (issue 28): an error naming it, not SIGBUS
TESTS += tests/hostile/mapfault.sh
dist_check_SCRIPTS += tests/hostile/mapfault.sh

check_PROGRAMS += tests/hostile/external
TESTS += tests/hostile/external
tests_hostile_external_SOURCES = tests/hostile/external.c tests/lib/io-util.h tests/lib/tap.h
tests_hostile_external_LDADD = libqopt.la
EXTRA_DIST += docs/hostile-input.md
# the writer's O_DIRECT path beside the mapping (issue 40)
TESTS += tests/hostile/direct.sh
dist_check_SCRIPTS += tests/hostile/direct.sh
