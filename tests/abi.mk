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
