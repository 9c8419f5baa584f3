# tests of the plugin ABI: the exported symbol set, plugin tables of
# older and newer ABI versions.
ABI_SH = tests/abi/exports.sh tests/abi/plugins.sh tests/abi/options.sh \
	tests/abi/policy-opset.sh tests/abi/header-example.sh
TESTS += $(ABI_SH)
dist_check_SCRIPTS += $(ABI_SH)
check_PROGRAMS += tests/abi/helpers
tests_abi_helpers_SOURCES = tests/abi/helpers.c tests/lib/tap.h
tests_abi_helpers_LDADD = libqopt.la
TESTS += tests/abi/helpers
EXTRA_DIST += tests/abi/abi1-example.c

# ABI 3.0's status convention: the codes, their names, the aliases; the
# loader's classification by code; and the messages users see.
check_PROGRAMS += tests/abi/status tests/abi/loader
tests_abi_status_SOURCES = tests/abi/status.c tests/lib/tap.h
tests_abi_status_LDADD = libqopt.la
tests_abi_loader_SOURCES = tests/abi/loader.c tests/lib/tap.h
tests_abi_loader_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/core
tests_abi_loader_LDADD = $(QOPT_MANAGER_OBJECTS) libqopt.la
TESTS += tests/abi/status tests/abi/loader tests/abi/errors.sh
dist_check_SCRIPTS += tests/abi/errors.sh

# The SDK example (plugins/example) built against `make install
# DESTDIR=...`. `make install` relinks the built-in passes in place
# (libtool), which must not happen while other tests dlopen them: the
# SDK test runs last.
TESTS += tests/abi/sdk.sh
dist_check_SCRIPTS += tests/abi/sdk.sh
EXTRA_DIST += plugins/example/Makefile plugins/example/example-rename.c
# (library.log runs after it: both out of the list, or make drops the
# circle and the order with it, and an install relinks a pass another
# test is loading: "file too short".)
tests/abi/sdk.log: $(filter-out tests/abi/sdk.log tests/abi/library.log,$(TEST_LOGS))

# The caller-allocated option structs carry their size (ABI 4.0).
check_PROGRAMS += tests/abi/opts-size
tests_abi_opts_size_SOURCES = tests/abi/opts-size.c tests/lib/tap.h
tests_abi_opts_size_LDADD = libqopt.la
TESTS += tests/abi/opts-size

# libqopt as a library (<qopt/session.h>): a client built out of tree
# with pkg-config against `make install DESTDIR=...`. It installs too,
# so it runs after the SDK test.
TESTS += tests/abi/library.sh
dist_check_SCRIPTS += tests/abi/library.sh
EXTRA_DIST += tests/abi/library-client.c
tests/abi/library.log: tests/abi/sdk.log
