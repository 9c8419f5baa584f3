# mxfp8 pass: its own module, public headers only (qopt/qopt.h).
passes_LTLIBRARIES += passes/mxfp8.la
passes_mxfp8_la_SOURCES = \
	passes/mxfp8/mxfp8.h \
	passes/mxfp8/plugin.c \
	passes/mxfp8/weight.c \
	passes/mxfp8/act.c \
	passes/mxfp8/export.c
passes_mxfp8_la_LDFLAGS = $(PASS_LDFLAGS)
passes_mxfp8_la_LIBADD = passes/libpass-support.la $(PASS_LIBADD)
EXTRA_DIST += docs/mxfp8.md
