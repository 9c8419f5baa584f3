# typecheck pass: its own module, public headers only (qopt/qopt.h).
passes_LTLIBRARIES += passes/typecheck.la
passes_typecheck_la_SOURCES = \
	passes/typecheck/typecheck.h \
	passes/typecheck/plugin.c \
	passes/typecheck/precision.c \
	passes/typecheck/islands.c
passes_typecheck_la_LDFLAGS = $(PASS_LDFLAGS)
passes_typecheck_la_LIBADD = passes/libpass-support.la $(PASS_LIBADD)
