# ir: the IR proper (graph operations, verifier, printer, folder)
libqopt_la_SOURCES += ir/internal.h ir/dtype.c ir/strmap.c ir/error.c \
	ir/tensor.c ir/value.c ir/node.c ir/attr.c ir/graph.c ir/model.c \
	ir/toposort.c ir/dead.c ir/verify.c ir/print.c ir/hash.c \
	ir/const_eval.c ir/spill.c

# Opset upgrade: operator history, per-change rules, their graph
# helpers and the driver (qir_model_upgrade_opset).
libqopt_la_SOURCES += ir/opset_upgrade.h ir/opset_history.c \
	ir/opset_rules.c ir/opset_keep.c ir/opset_rewrite.c ir/opset_upgrade.c

# ---- ONNX reading and writing (owner: ONNX I/O) ----
# The protobuf-c bindings are generated into the build tree from our
# own ir/onnx.proto; AM_CPPFLAGS finds them as "ir/onnx.pb-c.h".
libqopt_la_SOURCES += ir/onnx_io.h ir/onnx_check.c ir/onnx_tensor.c ir/onnx_sparse.c \
	ir/onnx_read.c ir/onnx_scan.c ir/onnx_skeleton.c ir/onnx_write.c ir/external.c \
	ir/atomic_file.h ir/atomic_file.c ir/open_regular.c ir/outfile.c ir/arena.c
nodist_libqopt_la_SOURCES += ir/onnx.pb-c.c ir/onnx.pb-c.h
BUILT_SOURCES += ir/onnx.pb-c.c ir/onnx.pb-c.h
CLEANFILES += ir/onnx.pb-c.c ir/onnx.pb-c.h
EXTRA_DIST += ir/onnx.proto

# One protoc-c run writes both files.
ir/onnx.pb-c.h: ir/onnx.pb-c.c
ir/onnx.pb-c.c: $(srcdir)/ir/onnx.proto
	$(AM_V_GEN)$(MKDIR_P) ir && \
	$(PROTOC_C) --c_out=$(builddir) -I$(srcdir) $(srcdir)/ir/onnx.proto
