# nvfp4-weights pass: its own module, public headers only (qopt/qopt.h).
passes_LTLIBRARIES += passes/nvfp4-weights.la
passes_nvfp4_weights_la_SOURCES = \
	passes/nvfp4_weights/nvfp4.h \
	passes/nvfp4_weights/plugin.c \
	passes/nvfp4_weights/select.c \
	passes/nvfp4_weights/rewrite.c \
	passes/nvfp4_weights/constants.c \
	passes/nvfp4_weights/rotate.c \
	passes/nvfp4_weights/act.c \
	passes/nvfp4_weights/export.c
passes_nvfp4_weights_la_LDFLAGS = $(PASS_LDFLAGS)
passes_nvfp4_weights_la_LIBADD = passes/libpass-support.la $(PASS_LIBADD)
