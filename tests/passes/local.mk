# tests of the passes (fragment of the top Makefile.am): the shared
# helper passes/util.h, then one local.mk per pass folder below. The C
# tests build graphs with the IR API and run them through the qopt
# binary; ORT comparisons SKIP without ONNX Runtime.
EXTRA_DIST += tests/passes/util.h
