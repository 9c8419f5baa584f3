/*
 * ir/model/internal.h - private to the IR library (not installed).
 *
 * The public structs in qopt/ir.h carry a `priv` pointer; these are the
 * structures behind them. Two halves of ir/ share them: the IR proper
 * (graph operations, verifier, printer, folder) and the ONNX reader and
 * writer (onnx_*.c), which keeps the parsed protobuf so that what the
 * IR does not model (doc strings, functions, training info, sparse
 * initializers, unknown fields) is written back untouched.
 */
#ifndef QOPT_IR_INTERNAL_H
#define QOPT_IR_INTERNAL_H

#include <sys/types.h>
#include <qopt/ir.h>

/* The newest ONNX IR version this libqopt knows: that of the newest
 * opset its upgrade knows (qir_opset_min_ir_version of
 * qir_upgrade_max_opset(), ir/transforms/, a layer above: the number is
 * repeated here and tests/ir/io-roundtrip checks that they agree). The
 * writer never writes a later one: a runtime refuses an IR version it
 * does not know, and this qopt cannot vouch for one it does not. */
#define IR_VERSION_NEWEST 13

/* Open-addressing string -> pointer map (ir/model/strmap.c). Keys are not
 * copied: they must outlive their entry (we key by the object's own
 * name buffer). */
typedef struct ir_strmap {
	const char **keys;
	void **vals;
	size_t cap, count, tombs;
} ir_strmap;

void *ir_strmap_get(const ir_strmap *m, const char *key);
int ir_strmap_put(ir_strmap *m, const char *key, void *val);
void ir_strmap_del(ir_strmap *m, const char *key);
void ir_strmap_free(ir_strmap *m);
/* Iteration: start with *it = 0; returns 1 and fills key/val (either
 * may be NULL) for each live entry, then 0. */
int ir_strmap_next(const ir_strmap *m, size_t *it, const char **key,
		    void **val);

/* A memory-mapped external data file, shared by the tensors that live
 * in it; unmapped with the model. */
typedef struct ir_mapping {
	char *path;		/* resolved absolute path */
	const uint8_t *addr;	/* NULL until first use */
	uint64_t size;
	/* The file checked at load: mapping a different one is refused. */
	dev_t dev;
	ino_t ino;
	struct ir_mapping *next;
} ir_mapping;

struct ir_tensor_priv {
	const void *data;	/* current bytes, whatever the storage */
	void *owned;		/* malloc'd buffer when QIR_STORE_OWNED */
	/* QIR_STORE_EXTERNAL: */
	ir_mapping *map;
	char *ext_location;	/* as written in the file (relative) */
	uint64_t ext_offset;
	/* Original Onnx__TensorProto (borrowed from the model's parsed
	 * message) for fields the IR does not model; NULL for new ones. */
	const void *pb;
	/* QIR_STORE_OWNED bytes moved to the spill file (ir/model/spill.c):
	 * the tensor's own read-only mapping, data points to it. */
	void *spill_addr;
	size_t spill_len;
	uint64_t spill_off;	/* where in the spill file */
	uint64_t spill_id;	/* which spill file (ir_spill.id) */
	/* Deferred (ir/model/deferred.c): output recipe_out of recipe,
	 * listed in its tensors by recipe_next; NULL once evaluated. */
	struct ir_recipe *recipe;
	size_t recipe_out;
	qir_tensor *recipe_next;
	/* ir/model/hash.c: the digest of the read-only bytes at dg_addr
	 * (dg_len of them), kept while data still points there. */
	const void *dg_addr;
	uint64_t dg_len;
	uint64_t dg;
};

struct ir_value_priv {
	/* Original Onnx__ValueInfoProto (doc_string, denotations,
	 * non-tensor types such as sequence/map/optional), or NULL. */
	const void *pb;
	int in_value_info;	/* listed in the graph's value_info */
	int inferred;		/* dtype/dims set by ir/infer, not declared */
	int shape_inferred;	/* declared element type, dims from ir/infer */
	struct iri_fold *fold;	/* ir/infer: contents folded during a walk */
	size_t order;		/* creation order, for stable output */
	size_t all_pos;		/* index in its graph's priv->all */
	int doomed;		/* qir_graph_remove_initializers' mark */
	size_t uses_cap;
	uint64_t mark;		/* scratch for walks (verifier) */
};

struct ir_node_priv {
	const void *pb;		/* original Onnx__NodeProto, or NULL */
	size_t scratch;		/* scratch for walks (toposort) */
};

/* a->priv may be NULL (attributes built without a protobuf). */
struct ir_attr_priv {
	const void *pb;		/* original Onnx__AttributeProto */
	/* Tensor built from a Constant's value_float(s)/value_int(s)
	 * by qir_value_const; freed with the attribute. */
	qir_tensor *const_cache;
};

struct ir_graph_priv {
	ir_strmap values;	/* name -> qir_value *, this graph only */
	qir_value **all;	/* every value defined here, creation order;
				 * NULL holes where values were freed, until
				 * ir_graph_compact_all */
	size_t nall, capall, holes;
	const void *pb;		/* original Onnx__GraphProto, or NULL */
};

struct ir_model_priv {
	const void *pb;		/* parsed Onnx__ModelProto, or NULL */
	void (*release)(qir_model *m); /* frees pb and file mapping */
	/* Large raw_data in pb point into these bytes instead of owning
	 * a copy (ir/onnx/onnx_skeleton.c): the model file's mapping, which
	 * is then file_addr and unmapped with the model, or the buffer
	 * given to qir_model_load_buffer. NULL when pb owns everything. */
	const void *pb_borrow;
	size_t pb_borrow_len;
	const void *file_addr;	/* mmap of the model file, kept while borrowed */
	size_t file_size;
	/* That file's identity: the writer copies from it inside the
	 * kernel when the path still names it (0, 0: unknown). */
	dev_t file_dev;
	ino_t file_ino;
	char *dir;		/* folder for external data, or NULL */
	ir_mapping *maps;	/* external data files in use */
	ir_strmap names;	/* value name -> count of values so named */
	ir_strmap node_names;	/* every non-empty node name */
	uint64_t name_counter;
	/* hint -> malloc'd entry holding its key and the next numeric
	 * suffix to try, so repeated hints do not rescan "w_1".."w_n". */
	ir_strmap hint_next;
	size_t value_order;	/* next ir_value_priv.order */
	struct ir_spill *spill; /* ir/model/spill.c, NULL until first used */
	uint64_t mark_gen;	/* last ir_value_priv.mark used */
	size_t load_moved;	/* nodes the load sorted into place */
	/* Conflicts the load's inference found; the first few kept. */
	size_t load_notes;
	char *load_note[64];
	/* The model's local functions, "domain.name" or "name" (owned):
	 * the IR does not model their bodies (the writer copies them back
	 * from pb), but their names are the model's, so they live here and
	 * not in the reader. */
	char **functions;
	size_t nfunctions;
};

#define QIR_TPRIV(t) ((struct ir_tensor_priv *)(t)->priv)
#define QIR_VPRIV(v) ((struct ir_value_priv *)(v)->priv)
#define QIR_NPRIV(n) ((struct ir_node_priv *)(n)->priv)
#define QIR_APRIV(a) ((struct ir_attr_priv *)(a)->priv)
#define QIR_GPRIV(g) ((struct ir_graph_priv *)(g)->priv)
#define QIR_MPRIV(m) ((struct ir_model_priv *)(m)->priv)

/* Used by the reader to build the IR without the checks and renaming
 * the public API does (names come from the file). */
qir_graph *ir_graph_new(qir_model *m, qir_graph *parent, qir_node *pnode,
			  const char *name);
/* Creates (or returns the existing) value named exactly name in g. */
qir_value *ir_value_get_or_make(qir_graph *g, const char *name);
/* A tensor shell with no data (storage NONE); caller owns. */
qir_tensor *ir_tensor_shell(const char *name, int dtype, int rank,
			      const int64_t *dims, qir_error *err);
void ir_tensor_set_borrowed(qir_tensor *t, const void *data);
/* ir/infer/driver.c: the inference qir_model_load runs, its notes kept
 * in the model through ir_model_keep_note (arg: the model's priv). */
int ir_infer_at_load(qir_model *m, qir_error *err);
/* ir/model/opts.c: a caller-allocated struct that starts with its size
 * (qir_save_opts, ...) copied into *dst (dst_size bytes, zeroed first):
 * the bytes its size covers, at most dst_size, and its size set to
 * dst_size. base is the struct's size at ABI 4.0, what a size of 0
 * means; a size below it is QIR_EUSAGE naming what (the struct's
 * type). src NULL: all zero. */
int ir_opts_read(void *dst, size_t dst_size, const void *src, size_t base,
		 const char *what, qir_error *err);
/* Writes back into the caller's struct (its size first) the bytes of
 * src its size covers, for a struct libqopt fills. */
void ir_opts_write(void *dst, const void *src, size_t src_size, size_t base);
/* The structs' sizes at ABI 4.0, what a size of 0 means. When a field
 * is appended, these stay: write them then as offsetof() the first
 * appended field. */
#define IR_LOAD_OPTS_4_0 offsetof(qir_load_opts, links_ok)
#define IR_SAVE_OPTS_4_0 offsetof(qir_save_opts, link_external)
#define IR_INFER_OPTS_4_0 sizeof(qir_infer_opts)
#define IR_UPGRADE_REPORT_4_0 sizeof(qir_upgrade_report)
void ir_model_keep_note(void *arg, const char *msg);
/* ir/model/function.c: records a local function's name (copied);
 * 0, or -1 out of memory. */
int ir_model_add_function(qir_model *m, const char *domain,
			  const char *name);
void ir_tensor_set_external(qir_tensor *t, ir_mapping *map,
			      const char *location, uint64_t offset);
/* Maps map->path on first use (read-only, MAP_PRIVATE). */
int ir_mapping_open(ir_mapping *map, qir_error *err);
void ir_mapping_close(ir_mapping *map);
/* Unmaps spilled bytes (ir/model/spill.c); clears data when it pointed
 * there. No-op for a tensor that was not spilled. */
void ir_tensor_unspill(struct ir_tensor_priv *p);
/* The spill file's descriptor and *off when data are t's spilled bytes
 * (for a copy inside the kernel); -1 otherwise. */
int ir_spill_source(const qir_model *m, const qir_tensor *t,
		    const void *data, uint64_t *off);
/* Closes the model's spill file (mappings stay valid). */
void ir_spill_close(qir_model *m);
/* ir/model/digest.c: a 64-bit digest of n bytes (qir_model_hash's
 * tensor bytes), word-wise. */
uint64_t ir_digest(const void *data, uint64_t n);
/* ---- ir/model/deferred.c ---- */
/* Evaluates t's recipe into owned bytes (siblings too); 0 or -1. */
int ir_deferred_materialize(qir_tensor *t, qir_error *err);
/* Drops t from its recipe (freeing the recipe with its last tensor). */
void ir_deferred_detach(qir_tensor *t);
/* The writer's evaluation: runs t's recipe once with dst[i] (may be
 * NULL) for output i; outputs without a destination are given owned
 * bytes (in the heap, never the spill file: this may run on any
 * thread), those with one stay deferred. nout receives the count. */
int ir_deferred_write(qir_tensor *t, void *const *dst, qir_error *err);
/* Before the writer's workers evaluate t's recipe: its deferred inputs
 * are evaluated here, on the calling thread (with every tensor of their
 * recipes), so that no worker ever evaluates a tensor another worker
 * may be reading. */
int ir_deferred_prepare(qir_tensor *t, qir_error *err);
/* The bytes of the inputs of t's recipe (0 when t has none). */
uint64_t ir_deferred_input_bytes(const qir_tensor *t);
/* The recipe t belongs to, its output index and output count. */
const void *ir_deferred_recipe(const qir_tensor *t, size_t *out,
			       size_t *nout);
/* Gives dst src's spilled bytes: a second mapping of them when they
 * are in m's spill file, else a heap copy. */
int ir_spill_share(qir_model *m, qir_tensor *dst, const qir_tensor *src,
		   qir_error *err);

/* How many bytes at s form one character shown as is: printable ASCII
 * or a well-formed UTF-8 sequence that is not a C1 control; 0 for a
 * byte to escape (controls, DEL, broken UTF-8). */
size_t ir_utf8_shown(const char *s);
/* Copies src into dst (cap bytes, always terminated) with every byte
 * ir_utf8_shown refuses written as \xNN; returns the length. */
size_t ir_escape_ctl(char *dst, size_t cap, const char *src);
/* Fills err from a failed call of the file layer (ir/file/code.h):
 * code becomes the QIR_E* value it stands for, msg is escaped as
 * qir_fail does. Returns -1. */
int ir_fail_file(qir_error *err, int code, const char *msg);
/* Frees a graph and everything in it (subgraphs too). */
void ir_graph_free(qir_graph *g);
/* Frees everything the attribute owns (name, tensors, subgraphs, priv)
 * and zeroes it; subgraph nodes drop their uses of outer values. */
void ir_attr_clear(qir_attr *a);

/* ---- used among the IR-proper files ---- */
int ir_use_add(qir_value *v, qir_node *n, int index);
void ir_use_del(qir_value *v, qir_node *n, int index);
/* Registers a new value named exactly name (must be free in g). */
qir_value *ir_value_make(qir_graph *g, const char *name);
/* Unregisters and frees v (no uses, no producer left to care). */
void ir_value_free(qir_value *v);
/* Frees v's memory only (whole-graph teardown). */
void ir_value_free_mem(qir_value *v);
/* Frees a node; detach: drop the uses its inputs (and its subgraphs'
 * nodes) hold, for erasing from a live model. */
void ir_node_free(qir_node *n, int detach);
void ir_graph_free_ex(qir_graph *g, int detach);
/* The model's count of values per name (mp->names): drop one use of
 * name; free the whole table. */
void ir_name_unref(struct ir_model_priv *mp, const char *name);
void ir_names_free(struct ir_model_priv *mp);
/* A name not taken in map: hint, hint_1, hint_2, ... (malloc'd). */
char *ir_unique_name(qir_model *m, const ir_strmap *map, const char *hint);
/* "'name' (Op)" or "Op producing 'out'" into buf, for messages. */
const char *ir_node_label(const qir_node *n, char *buf, size_t size);
/* ir/model/typecheck.c: 1 when inputs *first < *other of n, both
 * typed, have different element types where n's operator takes one
 * type for both (its ONNX schema); else 0. */
int ir_type_clash(const qir_node *n, size_t *first, size_t *other);
/* Removes n from its graph's list (does not free it). */
void ir_node_unlink(qir_node *n);
/* Appends item to *arrp (a malloc'd array of *count elements, sized
 * exactly or not): amortised O(1), the array grows geometrically. */
int ir_array_push(void *arrp, size_t *count, size_t elem, const void *item);
/* Removes the NULL holes of gp->all (creation order kept). Every
 * reader of gp->all calls it first. */
void ir_graph_compact_all(struct ir_graph_priv *gp);

#endif /* QOPT_IR_INTERNAL_H */
