# tests of the autocast pass (fragment of the top Makefile.am).
TESTS += tests/passes/autocast/autocast.sh tests/passes/autocast/tune.sh
EXTRA_DIST += tests/passes/autocast/autocast.sh tests/passes/autocast/models.py \
	tests/passes/autocast/tune.sh
