# tests of ir (the IR proper): C programs printing TAP
IR_TESTS = tests/ir/dtype tests/ir/tensor tests/ir/graph tests/ir/order \
	tests/ir/verify tests/ir/const-eval tests/ir/print tests/ir/upgrade
check_PROGRAMS += $(IR_TESTS)
TESTS += $(IR_TESTS)

# ir-tensor reaches into ir/model/internal.h for the external-data mapping.
IR_TEST_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/ir
tests_ir_dtype_SOURCES = tests/ir/dtype.c tests/lib/tap.h
tests_ir_dtype_LDADD = libqopt.la
tests_ir_tensor_SOURCES = tests/ir/tensor.c tests/lib/tap.h
tests_ir_tensor_CPPFLAGS = $(IR_TEST_CPPFLAGS)
tests_ir_tensor_LDADD = $(LIBQOPT_INTERNALS)
tests_ir_graph_SOURCES = tests/ir/graph.c tests/lib/tap.h
tests_ir_graph_LDADD = libqopt.la
tests_ir_order_SOURCES = tests/ir/order.c tests/lib/tap.h
tests_ir_order_LDADD = libqopt.la
tests_ir_verify_SOURCES = tests/ir/verify.c tests/lib/tap.h
tests_ir_verify_LDADD = libqopt.la
tests_ir_const_eval_SOURCES = tests/ir/const-eval.c tests/lib/tap.h
tests_ir_const_eval_LDADD = libqopt.la
tests_ir_print_SOURCES = tests/ir/print.c tests/lib/tap.h
tests_ir_print_LDADD = libqopt.la
# ir-upgrade hand-encodes a ModelProto with local functions (io-util.h).
tests_ir_upgrade_SOURCES = tests/ir/upgrade.c tests/lib/io-util.h tests/lib/tap.h
tests_ir_upgrade_LDADD = libqopt.la

# ---- ONNX I/O tests (owner: ONNX I/O): load/save, size checks,
# external data. io-util.h holds a small protobuf encoder so the tests
# write exactly the bytes they mean, malformed ones included.
IO_TESTS = tests/ir/io-errors tests/ir/io-roundtrip tests/ir/io-external \
	tests/ir/io-zerocopy tests/ir/io-file tests/ir/io-layout \
	tests/ir/write-behind
check_PROGRAMS += $(IO_TESTS)
TESTS += $(IO_TESTS)
tests_ir_io_errors_SOURCES = tests/ir/io-errors.c tests/lib/io-util.h tests/lib/tap.h
tests_ir_io_errors_LDADD = libqopt.la
# io-layout sets the writer's test hook (ir/onnx/onnx_io.h).
tests_ir_io_layout_SOURCES = tests/ir/io-layout.c tests/lib/io-util.h tests/lib/tap.h
tests_ir_io_layout_CPPFLAGS = $(IR_TEST_CPPFLAGS)
tests_ir_io_layout_LDADD = $(LIBQOPT_INTERNALS)
tests_ir_io_roundtrip_SOURCES = tests/ir/io-roundtrip.c tests/lib/io-util.h tests/lib/tap.h
tests_ir_io_roundtrip_LDADD = libqopt.la
# io-file: qopt/file.h (ir/file/ underneath).
tests_ir_io_file_SOURCES = tests/ir/io-file.c tests/lib/io-util.h tests/lib/tap.h
tests_ir_io_file_LDADD = libqopt.la
# write-behind: the writer's write-behind thread (ir/file/write_behind.h).
tests_ir_write_behind_SOURCES = tests/ir/write-behind.c tests/lib/io-util.h tests/lib/tap.h
tests_ir_write_behind_CPPFLAGS = $(IR_TEST_CPPFLAGS)
tests_ir_write_behind_LDADD = $(LIBQOPT_INTERNALS)
tests_ir_io_external_SOURCES = tests/ir/io-external.c tests/lib/io-util.h tests/lib/tap.h
tests_ir_io_external_LDADD = libqopt.la
# io-zerocopy checks where tensor bytes live (ir/model/internal.h, ir/onnx/onnx_io.h).
tests_ir_io_zerocopy_SOURCES = tests/ir/io-zerocopy.c tests/lib/io-util.h tests/lib/tap.h
tests_ir_io_zerocopy_CPPFLAGS = $(IR_TEST_CPPFLAGS)
tests_ir_io_zerocopy_LDADD = $(LIBQOPT_INTERNALS)
# io-version.sh: an IR version newer than qopt knows, warned and written
# as the newest known (the command line, python3-onnx, ORT).
TESTS += tests/ir/io-version.sh
dist_check_SCRIPTS += tests/ir/io-version.sh

# ---- type and shape inference (ir/infer) against onnx's and ONNX
# Runtime's; the inference API as a pass uses it.
TESTS += tests/ir/infer-ir.sh tests/ir/infer-shapes.sh
dist_check_SCRIPTS += tests/ir/infer-ir.sh tests/ir/infer-shapes.sh
EXTRA_DIST += tests/ir/infer-shapes-check.py docs/shape-inference.md

# Inference against ONNX Runtime's run-time shapes on random graphs of
# shape arithmetic: a seeded slice here; `make fuzz-infer` (fuzz/local.mk)
# runs it long.
TESTS += tests/ir/infer-ort.sh
dist_check_SCRIPTS += tests/ir/infer-ort.sh
EXTRA_DIST += tests/ir/infer-ort.js

# The inference API as a pass uses it (C, TAP).
check_PROGRAMS += tests/ir/infer
TESTS += tests/ir/infer
tests_ir_infer_SOURCES = tests/ir/infer.c tests/lib/tap.h
tests_ir_infer_LDADD = libqopt.la

# What qopt accepts and refuses as ONNX: python3-onnx builds the models, ONNX Runtime checks the
# accepted ones compute the same after a round trip.
TESTS += tests/ir/validity.sh
dist_check_SCRIPTS += tests/ir/validity.sh
EXTRA_DIST += tests/ir/validity-models.py

# The opset rule table against the operator history (reaches into the
# IR library's private opset_upgrade.h).
check_PROGRAMS += tests/ir/opset-table
TESTS += tests/ir/opset-table
tests_ir_opset_table_SOURCES = tests/ir/opset-table.c tests/lib/tap.h
tests_ir_opset_table_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/ir
tests_ir_opset_table_LDADD = $(LIBQOPT_INTERNALS)

# no quadratic growth in the IR (issue 21, row 9): reallocations
# counted, batch removal timed at N and 4N; `make bench-scaling` shows
# N, 2N, 4N for the IR and for fp8-mha up to 10,000 attention blocks
check_PROGRAMS += tests/ir/scaling
TESTS += tests/ir/scaling
tests_ir_scaling_SOURCES = tests/ir/scaling.c tests/lib/tap.h
tests_ir_scaling_LDADD = libqopt.la
EXTRA_DIST += bench/scaling-bench.sh
BENCH_TARGETS += bench-scaling
bench-scaling: all tests/ir/scaling$(EXEEXT)
	. $(top_builddir)/tests/env.sh; $(SHELL) $(top_srcdir)/bench/scaling-bench.sh
