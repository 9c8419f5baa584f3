# hadamard-rotate pass: its own module, public headers only (qopt/qopt.h).
passes_LTLIBRARIES += passes/hadamard_rotate.la
passes_hadamard_rotate_la_SOURCES = \
	passes/hadamard_rotate/hadamard_rotate.h \
	passes/hadamard_rotate/plugin.c \
	passes/hadamard_rotate/run.c \
	passes/hadamard_rotate/select.c \
	passes/hadamard_rotate/once.c \
	passes/hadamard_rotate/weight.c \
	passes/hadamard_rotate/activation.c \
	passes/hadamard_rotate/fold.c \
	passes/hadamard_rotate/quantizer.c \
	passes/hadamard_rotate/memo.c
passes_hadamard_rotate_la_LDFLAGS = $(PASS_LDFLAGS)
passes_hadamard_rotate_la_LIBADD = passes/libpass-support.la $(PASS_LIBADD) -lm
