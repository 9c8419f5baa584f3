# tests of the plugin ABI: the exported symbol set, plugin tables of
# older and newer ABI versions.
TESTS += tests/abi-exports.sh
dist_check_SCRIPTS += tests/abi-exports.sh
