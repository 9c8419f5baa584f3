# ir: four layers, each its own folder.

# ir/file: generic file code below the IR (atomic outputs, regular-file
# inputs, whole writes, bounded reads); it knows nothing of the model,
# returns enum fio_code and fills its caller's message buffer.
libqopt_la_SOURCES += ir/file/code.h ir/file/kind.h ir/file/kind.c \
	ir/file/write_all.h ir/file/write_all.c ir/file/open_regular.h \
	ir/file/open_regular.c ir/file/read_file.h ir/file/read_file.c \
	ir/file/stops.h ir/file/stops.c ir/file/dir_lock.h \
	ir/file/dir_lock.c ir/file/atomic_file.h ir/file/atomic_file.c \
	ir/file/mapfault.h ir/file/mapfault.c ir/file/direct_io.h \
	ir/file/direct_io.c ir/file/write_behind.h ir/file/write_behind.c

# ir/model: the IR proper (graph operations, verifier, printer, hash),
# and qopt/file.h over ir/file (ir/model/outfile.c).
libqopt_la_SOURCES += ir/model/internal.h ir/model/dtype.c \
	ir/model/strmap.c ir/model/error.c ir/model/tensor.c \
	ir/model/value.c ir/model/node.c ir/model/attr.c ir/model/graph.c \
	ir/model/model.c ir/model/function.c ir/model/opts.c ir/model/toposort.c ir/model/dead.c \
	ir/model/verify.c ir/model/typecheck.c ir/model/print.c \
	ir/model/hash.c ir/model/digest.c ir/model/spill.c \
	ir/model/deferred.c ir/model/outfile.c

# ir/infer: type and shape inference (docs/shape-inference.md): the
# driver, what rules read, and the rules by operator family.
libqopt_la_SOURCES += ir/infer/infer.h ir/infer/driver.c \
	ir/infer/input.c ir/infer/rules.c ir/infer/elementwise.c \
	ir/infer/shape_ops.c ir/infer/slicing.c ir/infer/linear.c \
	ir/infer/reduce.c ir/infer/conv.c ir/infer/resample.c \
	ir/infer/einsum.c ir/infer/quant.c ir/infer/control.c \
	ir/infer/recurrent.c

# ir/transforms: the constant folder (qopt/fold.h) and the opset upgrade
# (qopt/upgrade.h): operator history, per-change rules (and the rows
# for steps that need none), their graph helpers and the driver.
libqopt_la_SOURCES += ir/transforms/const_eval.c \
	ir/transforms/opset_upgrade.h ir/transforms/opset_history.c \
	ir/transforms/opset_rules.c ir/transforms/opset_keep.c \
	ir/transforms/opset_rewrite.c ir/transforms/opset_upgrade.c

# ir/onnx: ONNX reading and writing and external data. The protobuf-c bindings are
# generated into the build tree from our own ir/onnx/onnx.proto;
# AM_CPPFLAGS finds them as "ir/onnx/onnx.pb-c.h".
libqopt_la_SOURCES += ir/onnx/onnx_io.h ir/onnx/onnx_check.c \
	ir/onnx/onnx_tensor.c ir/onnx/onnx_sparse.c ir/onnx/onnx_read.c \
	ir/onnx/onnx_scan.c ir/onnx/onnx_skeleton.c ir/onnx/onnx_write.c \
	ir/onnx/external.c ir/onnx/ext_link.c ir/onnx/arena.c \
	ir/onnx/data_fill.c \
	ir/onnx/onnx_layout.c
nodist_libqopt_la_SOURCES += ir/onnx/onnx.pb-c.c ir/onnx/onnx.pb-c.h
BUILT_SOURCES += ir/onnx/onnx.pb-c.c ir/onnx/onnx.pb-c.h
CLEANFILES += ir/onnx/onnx.pb-c.c ir/onnx/onnx.pb-c.h
EXTRA_DIST += ir/onnx/onnx.proto

# One protoc-c run writes both files.
ir/onnx/onnx.pb-c.h: ir/onnx/onnx.pb-c.c
ir/onnx/onnx.pb-c.c: $(srcdir)/ir/onnx/onnx.proto
	$(AM_V_GEN)$(MKDIR_P) ir/onnx && \
	$(PROTOC_C) --c_out=$(builddir) -I$(srcdir) $(srcdir)/ir/onnx/onnx.proto
