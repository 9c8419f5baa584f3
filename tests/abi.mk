# tests of the plugin ABI: the exported symbol set, plugin tables of
# older and newer ABI versions.
TESTS += tests/abi-exports.sh tests/abi-plugins.sh
dist_check_SCRIPTS += tests/abi-exports.sh tests/abi-plugins.sh
