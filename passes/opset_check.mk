# opset-check pass module: its own .so, linked against libqopt with the public
# headers only (qopt/qopt.h), exactly as a third-party plugin would be.
passes_LTLIBRARIES += passes/opset_check.la
passes_opset_check_la_SOURCES = \
	passes/opset_check/opset_check.h \
	passes/opset_check/plugin.c \
	passes/opset_check/needs.c
passes_opset_check_la_LDFLAGS = $(PASS_LDFLAGS)
passes_opset_check_la_LIBADD = passes/libpass-support.la $(PASS_LIBADD)
EXTRA_DIST += passes/opset_check/README.md
