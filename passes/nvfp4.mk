# nvfp4-weights pass: its own module, public headers only (qopt/qopt.h).
passes_LTLIBRARIES += passes/nvfp4.la
passes_nvfp4_la_SOURCES = \
	passes/nvfp4/nvfp4.h \
	passes/nvfp4/plugin.c \
	passes/nvfp4/select.c \
	passes/nvfp4/rewrite.c \
	passes/nvfp4/constants.c \
	passes/nvfp4/rotate.c \
	passes/nvfp4/act.c \
	passes/nvfp4/export.c
passes_nvfp4_la_LDFLAGS = $(PASS_LDFLAGS)
passes_nvfp4_la_LIBADD = passes/libpass-support.la $(PASS_LIBADD)
