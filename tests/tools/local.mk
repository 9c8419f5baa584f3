# tests of tools/: qopt-ort-check (fragment of the top Makefile.am).
TOOLS_SH = tests/tools/ortcheck.sh tests/tools/ortcheck-compare.sh \
	tests/tools/ortcheck-child.sh
TESTS += $(TOOLS_SH)
dist_check_SCRIPTS += $(TOOLS_SH)
EXTRA_DIST += tests/tools/ortcheck-gen.py tests/tools/ortcheck-child-gen.py
