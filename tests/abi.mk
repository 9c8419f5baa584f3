# tests of the plugin ABI: the exported symbol set, plugin tables of
# older and newer ABI versions.
TESTS += tests/abi-exports.sh tests/abi-plugins.sh tests/abi-options.sh \
	tests/policy-opset.sh tests/manager-input.sh tests/manager-discovery.sh \
	tests/docs-refs.sh tests/comment-refs.sh tests/abi-header-example.sh
dist_check_SCRIPTS += tests/abi-exports.sh tests/abi-plugins.sh \
	tests/abi-options.sh tests/policy-opset.sh tests/manager-input.sh \
	tests/manager-discovery.sh tests/docs-refs.sh tests/comment-refs.sh \
	tests/abi-header-example.sh
check_PROGRAMS += tests/abi-helpers
tests_abi_helpers_SOURCES = tests/abi-helpers.c tests/tap.h
tests_abi_helpers_LDADD = libqopt.la
TESTS += tests/abi-helpers
EXTRA_DIST += tests/abi1-example.c

# ABI 3.0's status convention: the codes, their names, the aliases; the
# loader's classification by code; and the messages users see.
check_PROGRAMS += tests/abi-status tests/abi-loader
tests_abi_status_SOURCES = tests/abi-status.c tests/tap.h
tests_abi_status_LDADD = libqopt.la
tests_abi_loader_SOURCES = tests/abi-loader.c tests/tap.h
tests_abi_loader_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/core
tests_abi_loader_LDADD = core/libpassmgr.la libqopt.la
TESTS += tests/abi-status tests/abi-loader tests/abi-errors.sh
dist_check_SCRIPTS += tests/abi-errors.sh
