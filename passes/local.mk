# Built-in passes opset-check, cast-fold and infer-shapes: each its own module, linked
# against libqopt with the public headers only (qopt/qopt.h), exactly as
# a third-party plugin would be.
passes_LTLIBRARIES += passes/opset-check.la passes/cast-fold.la \
	passes/infer-shapes.la

# Helpers the built-in passes share (public API only underneath),
# linked into each module that uses them.
noinst_LTLIBRARIES += passes/libpass-support.la
passes_libpass_support_la_SOURCES = passes/support/support.h \
	passes/support/results.h passes/support/results.c \
	passes/support/finite.h passes/support/finite.c \
	passes/support/skip.h passes/support/skip.c \
	passes/support/targets.h passes/support/targets.c \
	passes/support/suggest.h passes/support/suggest.c \
	passes/support/weight.h passes/support/weight.c \
	passes/support/rotate.h passes/support/rotate.c \
	passes/support/qdq.h passes/support/qdq.c \
	passes/support/cleanup.h passes/support/cleanup.c \
	passes/support/fakequant.h passes/support/fakequant.c \
	passes/support/device.h passes/support/device.c \
	passes/support/recipe.h passes/support/recipe.c \
	passes/support/coverage.h passes/support/coverage.c \
	passes/support/float_ops.h passes/support/float_ops.c \
	passes/support/calib_file.h passes/support/calib_file.c \
	passes/support/calib_key.c

passes_opset_check_la_SOURCES = \
	passes/opset_check/opset_check.h \
	passes/opset_check/plugin.c \
	passes/opset_check/needs.c
passes_opset_check_la_LDFLAGS = $(PASS_LDFLAGS)
passes_opset_check_la_LIBADD = $(PASS_LIBADD)

passes_infer_shapes_la_SOURCES = passes/infer_shapes/plugin.c
passes_infer_shapes_la_LDFLAGS = $(PASS_LDFLAGS)
passes_infer_shapes_la_LIBADD = $(PASS_LIBADD)

passes_cast_fold_la_SOURCES = \
	passes/cast_fold/cast_fold.h \
	passes/cast_fold/plugin.c \
	passes/cast_fold/qdq.c \
	passes/cast_fold/redundant.c \
	passes/cast_fold/util.c
passes_cast_fold_la_LDFLAGS = $(PASS_LDFLAGS)
passes_cast_fold_la_LIBADD = passes/libpass-support.la $(PASS_LIBADD) -lm

EXTRA_DIST += passes/opset_check/README.md docs/pass-toolkit.md
