# fp8-mha pass: its own module, public headers only (qopt/qopt.h).
passes_LTLIBRARIES += passes/fp8-mha.la
passes_fp8_mha_la_SOURCES = \
	passes/fp8_mha/fp8mha.h \
	passes/fp8_mha/plugin.c \
	passes/fp8_mha/steps.c \
	passes/fp8_mha/match.c \
	passes/fp8_mha/notes.c \
	passes/fp8_mha/build.c \
	passes/fp8_mha/custom_ops.c \
	passes/fp8_mha/weight_match.c \
	passes/fp8_mha/weights.c \
	passes/fp8_mha/fake.c \
	passes/fp8_mha/rotate.c \
	passes/fp8_mha/pretranspose.c \
	passes/fp8_mha/motion.c \
	passes/fp8_mha/sink.c \
	passes/fp8_mha/softmax.c \
	passes/fp8_mha/attn.c \
	passes/fp8_mha/report.c \
	passes/fp8_mha/calib.h \
	passes/fp8_mha/calib_place.c \
	passes/fp8_mha/calib_targets.c \
	passes/fp8_mha/residual.c
passes_fp8_mha_la_LDFLAGS = $(PASS_LDFLAGS)
passes_fp8_mha_la_LIBADD = passes/libpass-support.la $(PASS_LIBADD) -lm
EXTRA_DIST += docs/fp8-mha.md
EXTRA_DIST += docs/calibration.md docs/fp8.md docs/int8.md
