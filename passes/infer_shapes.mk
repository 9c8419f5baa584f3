# infer-shapes pass module: its own .so, linked against libqopt with the public
# headers only (qopt/qopt.h), exactly as a third-party plugin would be.
passes_LTLIBRARIES += passes/infer_shapes.la
passes_infer_shapes_la_SOURCES = passes/infer_shapes/plugin.c
passes_infer_shapes_la_LDFLAGS = $(PASS_LDFLAGS)
passes_infer_shapes_la_LIBADD = passes/libpass-support.la $(PASS_LIBADD)
