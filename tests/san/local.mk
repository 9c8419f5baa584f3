# Every test runs through tests/san/wrap.sh, which in a sanitizer build
# (make check-sanitize) fails a test on any ASan/UBSan report of the
# programs it ran, and otherwise just runs it (fragment of Makefile.am).
LOG_COMPILER = $(SHELL) $(top_srcdir)/tests/san/wrap.sh
SH_LOG_COMPILER = $(SHELL) $(top_srcdir)/tests/san/wrap.sh
EXTRA_DIST += tests/san/wrap.sh tests/san/qopt.sh

# make check-sanitize: a separate ASan+UBSan build of the CPU code in
# _build-san, running every test (the backend corpus too) but the 2 GiB
# round trip, which plain `make check` covers. It builds from a clean
# copy of the distributed sources (make distdir), so it works whether
# this tree was configured in place or not.
check-sanitize:
	rm -rf _build-san && mkdir _build-san
	$(MAKE) $(AM_MAKEFLAGS) distdir distdir=_build-san/src
	cd _build-san/src && ./configure -q --enable-sanitizers --without-cuda && \
	$(MAKE) && \
	ASAN_OPTIONS=detect_leaks=1 QOPT_SKIP_BIG=1 $(MAKE) check
	@# A short, reproducible run of each fuzz target (fixed seed).
	cd _build-san/src && $(MAKE) fuzz-smoke FUZZ_SECONDS=15 FUZZ_SEED=1
.PHONY: check-sanitize

# The gate's own test: it SKIPs outside a sanitizer build.
check_PROGRAMS += tests/san/ub
tests_san_ub_SOURCES = tests/san/ub.c
TESTS += tests/san/gate.sh
dist_check_SCRIPTS += tests/san/gate.sh
