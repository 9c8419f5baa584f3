# `make fuzz`: builds the libFuzzer targets (`make fuzz-build` alone) and
# runs the differential test of shape inference against ONNX Runtime
# (`fuzz-infer`, below). The libFuzzer targets are built with clang (Debian's clang and
# libclang-rt-14-dev) and ASan + UBSan, outside the libtool build: the
# library's sources are compiled again here with coverage for the
# fuzzer. Targets: fuzz-load (loader, writer), fuzz-ini (pipeline
# parsers), fuzz-passes (every built-in pass through the manager). `make fuzz-smoke` runs each target briefly (FUZZ_SECONDS,
# default 20) from the seed corpus; `make fuzz-run FUZZ_SECONDS=600`
# runs longer. fuzz/run.sh says what the seeds are.
FUZZ_CC = clang
FUZZ_SECONDS = 20
# Empty: a new seed each run; check-sanitize fixes it.
FUZZ_SEED =
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS = -std=c11 -D_GNU_SOURCE -g -O1 $(FUZZ_SAN) $(AM_CPPFLAGS) $(QOPT_BUILD_CPPFLAGS) \
	-I$(top_srcdir)/ir -I$(top_srcdir)/core $(PROTOBUF_C_CFLAGS) \
	$(INIH_CFLAGS) -pthread
FUZZ_LIB_OBJS = $(patsubst %.c,fuzz/obj/%.o,$(filter %.c,$(libqopt_la_SOURCES))) \
	fuzz/obj/ir/onnx.pb-c.o
FUZZ_LIBS = $(PROTOBUF_C_LIBS) $(INIH_LIBS) $(LIBS) -pthread -lm
# fuzz-passes links the built-in passes in: their sources compiled with
# coverage, each QOPT_PLUGIN entry renamed fuzz_entry_<pass folder>.
# $(sort) drops a source two passes compile in (nvfp4 reads fp8-mha's
# calibration file reader), which would be defined twice in one link.
FUZZ_PASS_OBJS = $(sort $(patsubst %.c,fuzz/obj/%.o,$(filter %.c, \
	$(passes_cast_fold_la_SOURCES) $(passes_opset_check_la_SOURCES) \
	$(passes_hadamard_rotate_la_SOURCES) \
	$(passes_nvfp4_weights_la_SOURCES) $(passes_fp8_mha_la_SOURCES) \
	$(passes_infer_shapes_la_SOURCES) $(passes_mxfp8_la_SOURCES) \
	$(passes_libpass_support_la_SOURCES))))
FUZZ_TARGETS = fuzz/fuzz-load fuzz/fuzz-ini fuzz/fuzz-passes
EXTRA_DIST += fuzz/fuzz-load.c fuzz/fuzz-ini.c fuzz/fuzz-passes.c \
	fuzz/run.sh fuzz/regress fuzz/seed fuzz/open

fuzz: fuzz-build fuzz-infer

fuzz-build: fuzz-cc $(FUZZ_TARGETS)

fuzz-cc:
	@command -v $(FUZZ_CC) >/dev/null 2>&1 || { \
		echo "make fuzz needs $(FUZZ_CC) (Debian: clang libclang-rt-14-dev)"; \
		exit 1; }

fuzz/obj/ir/onnx.pb-c.o: ir/onnx/onnx.pb-c.c ir/onnx/onnx.pb-c.h
	@$(MKDIR_P) $(@D)
	$(AM_V_CC)$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ ir/onnx/onnx.pb-c.c

fuzz/obj/%.o: $(srcdir)/%.c ir/onnx/onnx.pb-c.h
	@$(MKDIR_P) $(@D)
	$(AM_V_CC)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

fuzz/obj/passes/%.o: $(srcdir)/passes/%.c ir/onnx/onnx.pb-c.h
	@$(MKDIR_P) $(@D)
	$(AM_V_CC)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link \
		-Dqopt_plugin_entry=fuzz_entry_$(firstword $(subst /, ,$*)) \
		-c -o $@ $<

fuzz/fuzz-passes: $(srcdir)/fuzz/fuzz-passes.c $(FUZZ_LIB_OBJS) $(FUZZ_PASS_OBJS)
	$(AM_V_CCLD)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< \
		$(FUZZ_LIB_OBJS) $(FUZZ_PASS_OBJS) $(FUZZ_LIBS)

fuzz/fuzz-%: $(srcdir)/fuzz/fuzz-%.c $(FUZZ_LIB_OBJS)
	$(AM_V_CCLD)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< \
		$(FUZZ_LIB_OBJS) $(FUZZ_LIBS)

fuzz-smoke: fuzz-build
	FUZZ_SEED=$(FUZZ_SEED) $(SHELL) $(srcdir)/fuzz/run.sh $(FUZZ_SECONDS)

fuzz-run: fuzz-build fuzz-infer
	$(SHELL) $(srcdir)/fuzz/run.sh $(FUZZ_SECONDS)

# `make fuzz-infer`: shape inference against ONNX Runtime's run-time
# shapes (tests/ir/infer-ort.sh) on FUZZ_INFER_COUNT random models from
# FUZZ_INFER_SEED (empty: a new seed each run; it is printed). Needs
# node and ORT, not clang; `make fuzz` and fuzz-run run it too.
FUZZ_INFER_COUNT = 5000
FUZZ_INFER_SEED =
fuzz-infer: all
	@seed=$(FUZZ_INFER_SEED); seed=$${seed:-$$(od -An -N3 -tu4 /dev/urandom | tr -d ' ')}; \
	echo "fuzz-infer: $(FUZZ_INFER_COUNT) models from seed $$seed"; \
	$(MAKE) $(AM_MAKEFLAGS) check TESTS=tests/ir/infer-ort.sh \
		QOPT_INFER_ORT_SEED=$$seed QOPT_INFER_ORT_COUNT=$(FUZZ_INFER_COUNT); \
	rc=$$?; tail -n 12 tests/ir/infer-ort.log; exit $$rc

clean-local: clean-fuzz
clean-fuzz:
	rm -rf fuzz/obj fuzz/work $(FUZZ_TARGETS)

.PHONY: fuzz fuzz-build fuzz-cc fuzz-smoke fuzz-run fuzz-infer clean-fuzz
.SECONDARY: $(FUZZ_LIB_OBJS) $(FUZZ_PASS_OBJS)
