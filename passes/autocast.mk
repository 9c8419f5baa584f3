# autocast pass: its own module, public headers only (qopt/qopt.h).
passes_LTLIBRARIES += passes/autocast.la
passes_autocast_la_SOURCES = \
	passes/autocast/autocast.h \
	passes/autocast/plugin.c \
	passes/autocast/decide.c \
	passes/autocast/fuse.c \
	passes/autocast/fuse_rms.c \
	passes/autocast/memo.h \
	passes/autocast/memo.c \
	passes/autocast/weights.c \
	passes/autocast/ranges.c \
	passes/autocast/keep.c \
	passes/autocast/rewrite.c
passes_autocast_la_LDFLAGS = $(PASS_LDFLAGS)
passes_autocast_la_LIBADD = passes/libpass-support.la $(PASS_LIBADD) -lm
EXTRA_DIST += docs/autocast.md
