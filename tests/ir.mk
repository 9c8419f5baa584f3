# tests of ir (the IR proper): C programs printing TAP
IR_TESTS = tests/ir-dtype tests/ir-tensor tests/ir-graph tests/ir-order \
	tests/ir-verify tests/ir-const-eval tests/ir-print tests/ir-upgrade
check_PROGRAMS += $(IR_TESTS)
TESTS += $(IR_TESTS)
# ir-layers.sh: ir/file and ir/model include nothing from above them.
TESTS += tests/ir-layers.sh
dist_check_SCRIPTS += tests/ir-layers.sh

# ir-tensor reaches into ir/model/internal.h for the external-data mapping.
IR_TEST_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/ir
tests_ir_dtype_SOURCES = tests/ir-dtype.c tests/tap.h
tests_ir_dtype_LDADD = libqopt.la
tests_ir_tensor_SOURCES = tests/ir-tensor.c tests/tap.h
tests_ir_tensor_CPPFLAGS = $(IR_TEST_CPPFLAGS)
tests_ir_tensor_LDADD = $(LIBQOPT_INTERNALS)
tests_ir_graph_SOURCES = tests/ir-graph.c tests/tap.h
tests_ir_graph_LDADD = libqopt.la
tests_ir_order_SOURCES = tests/ir-order.c tests/tap.h
tests_ir_order_LDADD = libqopt.la
tests_ir_verify_SOURCES = tests/ir-verify.c tests/tap.h
tests_ir_verify_LDADD = libqopt.la
tests_ir_const_eval_SOURCES = tests/ir-const-eval.c tests/tap.h
tests_ir_const_eval_LDADD = libqopt.la
tests_ir_print_SOURCES = tests/ir-print.c tests/tap.h
tests_ir_print_LDADD = libqopt.la
# ir-upgrade hand-encodes a ModelProto with local functions (io-util.h).
tests_ir_upgrade_SOURCES = tests/ir-upgrade.c tests/io-util.h tests/tap.h
tests_ir_upgrade_LDADD = libqopt.la

# ---- ONNX I/O tests (owner: ONNX I/O): load/save, size checks,
# external data. io-util.h holds a small protobuf encoder so the tests
# write exactly the bytes they mean, malformed ones included.
IO_TESTS = tests/io-errors tests/io-roundtrip tests/io-external \
	tests/io-zerocopy tests/io-file
check_PROGRAMS += $(IO_TESTS)
TESTS += $(IO_TESTS)
tests_io_errors_SOURCES = tests/io-errors.c tests/io-util.h tests/tap.h
tests_io_errors_LDADD = libqopt.la
tests_io_roundtrip_SOURCES = tests/io-roundtrip.c tests/io-util.h tests/tap.h
tests_io_roundtrip_LDADD = libqopt.la
# io-file: qopt/file.h (ir/file/ underneath).
tests_io_file_SOURCES = tests/io-file.c tests/io-util.h tests/tap.h
tests_io_file_LDADD = libqopt.la
tests_io_external_SOURCES = tests/io-external.c tests/io-util.h tests/tap.h
tests_io_external_LDADD = libqopt.la
# io-zerocopy checks where tensor bytes live (ir/model/internal.h, ir/onnx/onnx_io.h).
tests_io_zerocopy_SOURCES = tests/io-zerocopy.c tests/io-util.h tests/tap.h
tests_io_zerocopy_CPPFLAGS = $(IR_TEST_CPPFLAGS)
tests_io_zerocopy_LDADD = $(LIBQOPT_INTERNALS)
# io-cli-errors.sh: every bad model io-mkbad writes, through the qopt
# command (run, verify, dump); save failures; --external-threshold.
check_PROGRAMS += tests/io-mkbad
TESTS += tests/io-cli-errors.sh
EXTRA_DIST += tests/io-cli-errors.sh
tests_io_mkbad_SOURCES = tests/io-mkbad.c tests/io-util.h
tests_io_mkbad_LDADD = libqopt.la
