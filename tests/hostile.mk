# tests of hostile input and interrupted runs (issue: nothing crashes,
# hangs, or is destroyed): hand-made adversarial files, odd output
# paths, signals, misbehaving plugins.
TESTS += tests/hostile-load.sh tests/hostile-output.sh
dist_check_SCRIPTS += tests/hostile-load.sh tests/hostile-output.sh
EXTRA_DIST += tests/hostile-gen.py

check_PROGRAMS += tests/hostile-scan
TESTS += tests/hostile-scan
tests_hostile_scan_SOURCES = tests/hostile-scan.c tests/tap.h
tests_hostile_scan_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/ir
tests_hostile_scan_LDADD = $(LIBQOPT_INTERNALS)

check_LTLIBRARIES += tests/plugins/hostile.la
tests_plugins_hostile_la_SOURCES = tests/plugins/hostile.c
tests_plugins_hostile_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_hostile_la_LIBADD = libqopt.la
# a table claiming entries larger than this ABI's (issue 21 row 15)
check_LTLIBRARIES += tests/plugins/big-entry.la
tests_plugins_big_entry_la_SOURCES = tests/plugins/big-entry.c
tests_plugins_big_entry_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_big_entry_la_LIBADD = libqopt.la

TESTS += tests/hostile-signals.sh tests/hostile-pipeline.sh \
	tests/hostile-fuzz-regress.sh
dist_check_SCRIPTS += tests/hostile-signals.sh tests/hostile-pipeline.sh \
	tests/hostile-fuzz-regress.sh
# a mapped file that fails (issue 28): an error naming it, not SIGBUS
TESTS += tests/hostile-mapfault.sh
dist_check_SCRIPTS += tests/hostile-mapfault.sh

check_PROGRAMS += tests/hostile-external
TESTS += tests/hostile-external
tests_hostile_external_SOURCES = tests/hostile-external.c tests/io-util.h tests/tap.h
tests_hostile_external_LDADD = libqopt.la
EXTRA_DIST += docs/hostile-input.md

# no quadratic growth in the IR (issue 21, row 9): reallocations
# counted, batch removal timed at N and 4N; `make bench-scaling` shows
# N, 2N, 4N for the IR and for fp8-mha up to 10,000 attention blocks
check_PROGRAMS += tests/ir-scaling
TESTS += tests/ir-scaling
tests_ir_scaling_SOURCES = tests/ir-scaling.c tests/tap.h
tests_ir_scaling_LDADD = libqopt.la
EXTRA_DIST += bench/scaling-bench.sh
BENCH_TARGETS += bench-scaling
bench-scaling: all tests/ir-scaling$(EXEEXT)
	. $(top_builddir)/tests/env.sh; $(SHELL) $(top_srcdir)/bench/scaling-bench.sh
