# fp8-mha pass: its own module, public headers only (qopt/qopt.h).
passes_LTLIBRARIES += passes/fp8.la
passes_fp8_la_SOURCES = \
	passes/fp8/fp8.h \
	passes/fp8/plugin.c \
	passes/fp8/steps.c \
	passes/fp8/match.c \
	passes/fp8/notes.c \
	passes/fp8/build.c \
	passes/fp8/custom_ops.c \
	passes/fp8/weight_match.c \
	passes/fp8/weights.c \
	passes/fp8/fake.c \
	passes/fp8/rotate.c \
	passes/fp8/pretranspose.c \
	passes/fp8/motion.c \
	passes/fp8/sink.c \
	passes/fp8/softmax.c \
	passes/fp8/attn.c \
	passes/fp8/report.c \
	passes/fp8/calib.h \
	passes/fp8/calib_place.c \
	passes/fp8/calib_targets.c \
	passes/fp8/residual.c
passes_fp8_la_LDFLAGS = $(PASS_LDFLAGS)
passes_fp8_la_LIBADD = passes/libpass-support.la $(PASS_LIBADD) -lm
EXTRA_DIST += docs/fp8-mha.md
EXTRA_DIST += docs/calibration.md docs/fp8.md docs/int8.md
