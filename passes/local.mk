# passes/: the pass toolkit the built-in passes share; each pass module
# has its own passes/<name>.mk (<name>: its folder, its .so and its prefix).

# Helpers the built-in passes share (public API only underneath),
# linked into each module that uses them.
noinst_LTLIBRARIES += passes/libpass-support.la
passes_libpass_support_la_SOURCES = passes/support/support.h \
	passes/support/results.h passes/support/results.c \
	passes/support/fail.h passes/support/fail.c \
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
	passes/support/float_ops.h passes/support/float_ops.c

EXTRA_DIST += docs/pass-toolkit.md
