# mxfp8 pass: its own module, public headers only (qopt/qopt.h).
passes_LTLIBRARIES += passes/mxfp8.la
# One header per file, each including only mxfp8.h (the configuration);
# calls go down: plugin -> export -> weight -> select, act -> util
# (tests/source/pass-layers.sh checks).
passes_mxfp8_la_SOURCES = \
	passes/mxfp8/mxfp8.h \
	passes/mxfp8/util.h passes/mxfp8/util.c \
	passes/mxfp8/select.h passes/mxfp8/select.c \
	passes/mxfp8/act.h passes/mxfp8/act.c \
	passes/mxfp8/weight.h passes/mxfp8/weight.c \
	passes/mxfp8/export.h passes/mxfp8/export.c \
	passes/mxfp8/plugin.c
passes_mxfp8_la_LDFLAGS = $(PASS_LDFLAGS)
passes_mxfp8_la_LIBADD = passes/libpass-support.la $(PASS_LIBADD)
EXTRA_DIST += docs/mxfp8.md
