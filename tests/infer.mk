# tests of the IR's guarantees to passes: node order restored after
# each pass (tests/core-order.sh with the t-reverse / t-cycle plugin)
# and type and shape inference against onnx's (tests/infer-shapes.sh).
check_LTLIBRARIES += tests/plugins/reorder.la
tests_plugins_reorder_la_SOURCES = tests/plugins/reorder.c
tests_plugins_reorder_la_LDFLAGS = $(CORE_TEST_PLUGIN_LDFLAGS)
tests_plugins_reorder_la_LIBADD = libqopt.la

TESTS += tests/core-order.sh tests/infer-ir.sh tests/infer-shapes.sh
dist_check_SCRIPTS += tests/core-order.sh tests/infer-ir.sh tests/infer-shapes.sh
EXTRA_DIST += tests/infer-shapes-check.py docs/shape-inference.md

# Inference against ONNX Runtime's run-time shapes on random graphs of
# shape arithmetic: a seeded slice here; `make fuzz-infer` (fuzz/local.mk)
# runs it long.
TESTS += tests/infer-ort.sh
dist_check_SCRIPTS += tests/infer-ort.sh
EXTRA_DIST += tests/infer-ort.js

# The inference API as a pass uses it (C, TAP).
check_PROGRAMS += tests/ir-infer
TESTS += tests/ir-infer
tests_ir_infer_SOURCES = tests/ir-infer.c tests/tap.h
tests_ir_infer_LDADD = libqopt.la
