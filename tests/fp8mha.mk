# tests of fp8-mha (fragment of the top Makefile.am).
TESTS += tests/fp8mha.sh
EXTRA_DIST += tests/fp8mha.sh tests/fp8mha-gen.py tests/fp8mha-check.py \
	tests/fp8mha-ort.js
