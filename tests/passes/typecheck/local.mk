# tests of the typecheck pass (fragment of the top Makefile.am).
TESTS += tests/passes/typecheck/typecheck.sh
EXTRA_DIST += tests/passes/typecheck/typecheck.sh \
	tests/passes/typecheck/models.py
