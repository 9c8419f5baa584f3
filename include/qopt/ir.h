/*
 * qopt/ir.h - the qopt IR: a small, mutable view of an ONNX model.
 *
 * Public and versioned (qopt/version.h, docs/plugin-abi.md). Structs are
 * transparent so passes can read them directly; mutate only through
 * the functions below, which keep the use lists, producers and name
 * tables consistent.
 *
 * Ownership: a model owns its graphs; a graph owns its nodes, values
 * and initializer tensors; a node owns its attributes; an attribute
 * owns its tensors and subgraphs. Functions that create objects inside
 * a graph return borrowed pointers (freed with the model). Functions
 * documented "caller owns" return objects the caller must free or hand
 * over to a function that "takes ownership".
 *
 * Errors: functions that can fail take a qir_error *err (may be NULL)
 * and return 0 / a pointer on success, -1 / NULL on failure, with a
 * qopt_status in err->code (qopt/status.h: decide on the code) and a
 * message for people in err->msg that names the tensor, node or value
 * involved (not the file: the caller adds that).
 */
#ifndef QOPT_IR_H
#define QOPT_IR_H

#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <qopt/dtype.h>
#include <qopt/status.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct qir_error {
	qopt_status code;	/* QOPT_OK, else why (a QIR_E* / QOPT_E* value) */
	char msg[1024];
} qir_error;

/* The IR's names for the primary codes it uses (ABI 3.0: aliases of
 * qopt/status.h's, values unchanged since ABI 1). */
enum qir_errcode {
	QIR_OK = QOPT_OK,
	QIR_EIO = QOPT_EIO,		/* open/read/write/mmap/rename failed */
	QIR_EPARSE = QOPT_EPARSE,	/* malformed or truncated protobuf */
	QIR_EINVALID = QOPT_EINVALID,	/* well-formed but invalid model content */
	QIR_ENOMEM = QOPT_ENOMEM,
	QIR_EUNSAFE = QOPT_EUNSAFE,	/* external data path escapes the model folder */
	QIR_EUSAGE = QOPT_EUSAGE,	/* API misuse (erasing a node still used...) */
	QIR_EVERIFY = QOPT_EVERIFY,	/* verifier found a problem */
	QIR_EUNSUPPORTED = QOPT_EUNSUPPORTED, /* constant folder: op or type not handled */
};

/* On the IR's fallible mutators: a failed edit ignored by its caller
 * would leave a half-rewritten model reported as success. */
#if defined(__GNUC__) || defined(__clang__)
#define QIR_MUST_CHECK __attribute__((warn_unused_result))
#else
#define QIR_MUST_CHECK
#endif

/* Sets err (when non-NULL: code and the formatted message) and returns
 * -1; printf-style. */
int qir_fail(qir_error *err, qopt_status code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

typedef struct qir_model qir_model;
typedef struct qir_graph qir_graph;
typedef struct qir_node qir_node;
typedef struct qir_value qir_value;
typedef struct qir_tensor qir_tensor;
typedef struct qir_attr qir_attr;

/* ------------------------------------------------------------------ */
/* Tensors                                                             */

/* Where a tensor's bytes live. */
enum qir_storage {
	QIR_STORE_NONE = 0,	/* no data (dims only) */
	QIR_STORE_OWNED,	/* malloc'd by qopt, freed with the tensor */
	QIR_STORE_BORROWED,	/* inside the loaded model's buffers */
	QIR_STORE_EXTERNAL,	/* external data file, mapped on first use */
};

struct qir_tensor {
	char *name;		/* owned; may be "" for attribute tensors */
	int dtype;		/* enum qir_dtype */
	int rank;
	int64_t *dims;		/* owned, rank entries, all >= 0 */
	int storage;		/* enum qir_storage */
	uint64_t nbytes;	/* exact byte size implied by dtype and dims */
	/* STRING tensors only: nstrings byte strings (owned). */
	uint64_t nstrings;
	char **strings;
	uint64_t *string_lens;
	void *priv;		/* private to the IR library */
};

/* Number of elements (product of dims; 1 for rank 0). */
uint64_t qir_tensor_numel(const qir_tensor *t);
/* The tensor's bytes (raw, little-endian, sub-byte types packed),
 * mapping external data on first use. NULL with err on failure, or
 * when nbytes == 0 (then err->code stays 0). Borrowed pointer, valid
 * until the tensor's data is replaced or the model is freed.
 * Alignment: none promised. Bytes borrowed from the mapped file or
 * external data sit wherever the file put them (copying to align would
 * lose the zero-copy load): read them with memcpy, qir_tensor_get_f64 /
 * _i64, or the kernels (qopt/kernels.h), which accept any address.
 * qir_tensor_mutable_data and qir_tensor_new give malloc'd bytes,
 * aligned for every element type. */
const void *qir_tensor_data(qir_tensor *t, qir_error *err);
/* Caller owns: a new tensor with zeroed, owned data of the right size.
 * name may be NULL. Returns NULL on overflow or allocation failure. */
qir_tensor *qir_tensor_new(const char *name, int dtype, int rank,
			   const int64_t *dims, qir_error *err);
/* Caller owns: a deep copy (data copied, external data read). */
qir_tensor *qir_tensor_clone(qir_tensor *t, qir_error *err);
void qir_tensor_free(qir_tensor *t);
/* Writable bytes: converts borrowed/external storage into an owned
 * copy first. */
QIR_MUST_CHECK void *qir_tensor_mutable_data(qir_tensor *t, qir_error *err);
/* Replaces dtype, dims and data; on success takes ownership of data (malloc'd,
 * nbytes must equal what dtype and dims need). */
QIR_MUST_CHECK int qir_tensor_reset(qir_tensor *t, int dtype, int rank, const int64_t *dims,
		     void *data, uint64_t nbytes, qir_error *err);
/* Moves an owned tensor's bytes out of the heap: they are written to
 * the model's spill file (an unlinked temporary file in $QOPT_SPILL_DIR,
 * else $TMPDIR, else /var/tmp) and mapped back read-only; the tensor
 * stays QIR_STORE_OWNED and frees them with itself. For passes that make
 * many big tensors: the writer streams spilled bytes and drops their
 * pages, so the resident set stays near one tensor. Later
 * qir_tensor_mutable_data copies them back into the heap. Tensors with
 * no owned bytes (borrowed, external, empty, STRING) are left as they
 * are. On failure (-1, err set: no space, no folder) the tensor is
 * unchanged. */
QIR_MUST_CHECK int qir_tensor_spill(qir_model *m, qir_tensor *t, qir_error *err);
/* Caller owns: a new tensor whose nbytes (what dtype and dims need)
 * are copied from bytes straight into the model's spill file, as
 * qir_tensor_spill would leave them, with no heap copy: for a pass that
 * builds one big result after another in a buffer it reuses. Not for
 * STRING. NULL with err set on failure (no space, no folder: the
 * caller may fall back to qir_tensor_new). Since ABI 2.2. */
qir_tensor *qir_tensor_new_spilled(qir_model *m, const char *name, int dtype,
				   int rank, const int64_t *dims,
				   const void *bytes, qir_error *err);
/* 1 when t's bytes are in the spill file. */
int qir_tensor_spilled(const qir_tensor *t);
/* ---- deferred tensors (since ABI 2.3) ----
 * A tensor's bytes may be a recipe instead of a buffer: its dtype and
 * dims, its inputs (tensors the recipe owns, possibly deferred
 * themselves) and a fill function writing the bytes of every output of
 * the recipe into destination buffers. Nothing is computed when the
 * tensor is made. Whoever reads the bytes (qir_tensor_data and every
 * function built on it: a later pass, the hash, --print-after)
 * evaluates the recipe once; its outputs then hold their
 * bytes like any owned tensor (big ones in the spill file, as
 * qir_tensor_spill leaves them). The writer instead evaluates the
 * recipe straight into the output's data file, in parallel with the
 * rest of the save, and the tensor stays deferred. Either way the bytes
 * are those the fill writes, so a recipe must be deterministic: the
 * same inputs give the same bytes. */
typedef struct qir_recipe_ops {
	/* Writes output i's bytes (its nbytes) to dst[i], for every
	 * output, reading the inputs (qir_tensor_data). May run on any
	 * thread, never twice at once for one recipe; scratch memory it
	 * needs is its own to bound. 0, or -1 with err set. */
	int (*fill)(void *state, qir_tensor *const *inputs, size_t ninputs,
		    void *const *dst, qir_error *err);
	/* Frees state (may be NULL) with the recipe's last tensor. */
	void (*free_state)(void *state);
} qir_recipe_ops;

/* What one output of a recipe is (name may be NULL). */
typedef struct qir_tensor_spec {
	const char *name;
	int dtype;
	int rank;
	const int64_t *dims;
} qir_tensor_spec;

/* Makes the nout tensors of a recipe into out[] (caller owns each):
 * deferred, not STRING, each with the nbytes its spec needs. The recipe
 * takes ownership of inputs[] (tensors, e.g. from qir_tensor_share) and
 * of state, on failure too; ops must outlive it (a static table). m is
 * the model the outputs go into (its spill file holds what readers
 * evaluate) and must outlive them. 0, or -1 with err set. */
QIR_MUST_CHECK int qir_tensor_new_deferred(qir_model *m,
		const qir_recipe_ops *ops, void *state,
		qir_tensor **inputs, size_t ninputs,
		const qir_tensor_spec *specs, size_t nout,
		qir_tensor **out, qir_error *err);
/* 1 while t's bytes are a recipe not yet evaluated for a reader. */
int qir_tensor_deferred(const qir_tensor *t);
/* Caller owns: a tensor with t's name, type and bytes that stays valid
 * when t is freed, for a recipe's inputs: external and inline bytes
 * are shared (nothing copied), spilled bytes mapped again, a deferred
 * tensor shares its recipe, heap bytes are copied (into m's spill
 * file when big; m may be NULL). NULL with err set on failure. */
qir_tensor *qir_tensor_share(qir_model *m, qir_tensor *t, qir_error *err);
/* For a tensor dst that takes src's place (a pass's recipe replacing a
 * weight: same type and shape): dst is written with the fields of
 * src's TensorProto the IR does not model (doc_string, metadata_props,
 * segment, unknown fields), which a new tensor has none of. Borrowed
 * from src's model, so dst must be saved with that model. Nothing when
 * src came from no file. (ABI 4.2) */
void qir_tensor_keep_fields(qir_tensor *dst, const qir_tensor *src);

/* Access hints for a tensor whose bytes are mapped from a file
 * (external data, spilled). WILLNEED starts reading them in and
 * returns at once (from a cold page cache, a tensor read page by page
 * comes in at a fraction of the disk's speed); DONE drops them from
 * the process after their last read (they stay valid: touched again,
 * they come back from the file). Other storage holds nothing to read
 * in or drop: 0, nothing done. -1 with err for an unknown hint or
 * external data that cannot be mapped. */
enum qir_advice {
	QIR_ADVISE_WILLNEED = 1,
	QIR_ADVISE_DONE = 2,
};
int qir_tensor_advise(qir_tensor *t, int advice, qir_error *err);
/* Where the bytes live, for listings: "inline", "owned", "owned (spilled)",
 * "owned (deferred)",
 * "external:<location>@<offset>", written into buf (truncated to size)
 * and returned. */
char *qir_tensor_location(const qir_tensor *t, char *buf, size_t size);
/* Reads element i of a FLOAT, FLOAT16, BFLOAT16, DOUBLE, INTn, UINTn or BOOL
 * tensor as double (small constants: shapes, scales, axes). */
int qir_tensor_get_f64(qir_tensor *t, uint64_t i, double *out, qir_error *err);
int qir_tensor_get_i64(qir_tensor *t, uint64_t i, int64_t *out, qir_error *err);
/* "FLOAT[2,2]" into buf. */
char *qir_tensor_type_str(int dtype, int rank, const int64_t *dims,
			  char *buf, size_t n);

/* ------------------------------------------------------------------ */
/* Values (SSA edges)                                                  */

typedef struct qir_dim {
	int64_t value;		/* >= 0 when known, -1 when not */
	char *param;		/* symbolic name (owned) or NULL */
} qir_dim;

typedef struct qir_use {
	qir_node *node;
	int index;		/* input slot of node */
} qir_use;

struct qir_value {
	char *name;		/* owned; unique in its graph, its enclosing
				 * graphs and the graphs nested in it (the
				 * branches of an If may reuse a name) */
	int dtype;		/* element type; QIR_UNDEFINED when unknown */
	int rank;		/* -1 when the shape is unknown */
	qir_dim *dims;		/* owned, rank entries */
	qir_node *producer;	/* NULL for graph inputs, initializers, and
				 * outer-scope values seen from a subgraph */
	int producer_index;	/* output slot of producer */
	qir_tensor *init;	/* initializer tensor, or NULL */
	int is_input;		/* listed in graph inputs */
	int is_output;		/* listed in graph outputs */
	qir_use *uses;		/* all consuming input slots, including
				 * nodes inside subgraphs that capture it */
	size_t nuses;
	qir_graph *graph;	/* the graph that defines it */
	void *priv;
};

/* Finds a value by name in g, then in enclosing graphs. Borrowed. */
qir_value *qir_graph_find_value(qir_graph *g, const char *name);
/* A new value named after hint, made unique in the model ("w" ->
 * "w_1", ...). Type unknown until set. Borrowed. */
qir_value *qir_value_new(qir_graph *g, const char *hint);
/* Sets element type and shape (dims may be NULL for rank 0 or
 * rank -1); value_info is written for typed intermediate values. */
QIR_MUST_CHECK int qir_value_set_type(qir_value *v, int dtype, int rank,
		       const int64_t *dims, qir_error *err);
/* Sets v's element type to dtype and its shape to from's (symbolic
 * dimension names included; rank -1 when from's is unknown). */
QIR_MUST_CHECK int qir_value_copy_shape(qir_value *v, const qir_value *from,
					int dtype, qir_error *err);
/* Renames a value; fails if the name is taken where v lives: in its
 * graph, an enclosing graph or a graph nested in it (ONNX scoping;
 * sibling subgraphs, such as the two branches of an If, may reuse a
 * name). */
QIR_MUST_CHECK int qir_value_rename(qir_value *v, const char *name, qir_error *err);
/* Every use of from becomes a use of to (graph outputs too: the
 * output list then names to). -1 only when out of memory, and then
 * nothing has changed. */
QIR_MUST_CHECK int qir_value_replace_all_uses(qir_value *from, qir_value *to);
/* Only the given use (nothing when use is not a use of from); -1 when
 * out of memory, nothing changed. */
QIR_MUST_CHECK int qir_value_replace_use(qir_value *from, qir_use use,
					 qir_value *to);
/* Constant tensor behind v, or NULL: an initializer (that is not also
 * a graph input), or the output of a Constant node whose value is a
 * tensor (value, value_float(s), value_int(s)). Borrowed. */
qir_tensor *qir_value_const(qir_value *v);
/* Element type of v: its declared type, else that of the constant
 * behind it; QIR_UNDEFINED when neither says. */
int qir_value_elem_type(qir_value *v);

/* ------------------------------------------------------------------ */
/* Attributes                                                          */

enum qir_attr_type {	/* AttributeProto.AttributeType numbers */
	QIR_ATTR_UNDEFINED = 0,
	QIR_ATTR_FLOAT = 1, QIR_ATTR_INT = 2, QIR_ATTR_STRING = 3,
	QIR_ATTR_TENSOR = 4, QIR_ATTR_GRAPH = 5, QIR_ATTR_FLOATS = 6,
	QIR_ATTR_INTS = 7, QIR_ATTR_STRINGS = 8, QIR_ATTR_TENSORS = 9,
	QIR_ATTR_GRAPHS = 10, QIR_ATTR_SPARSE_TENSOR = 11,
	QIR_ATTR_SPARSE_TENSORS = 12, QIR_ATTR_TYPE_PROTO = 13,
	QIR_ATTR_TYPE_PROTOS = 14,
};

struct qir_attr {
	char *name;		/* owned */
	int type;		/* enum qir_attr_type */
	float f;
	int64_t i;
	char *s;		/* owned, NUL-terminated; slen bytes */
	size_t slen;
	qir_tensor *t;
	qir_graph *g;
	size_t n;		/* count for the list types */
	float *floats;
	int64_t *ints;
	char **strings;
	size_t *string_lens;
	qir_tensor **tensors;
	qir_graph **graphs;
	char *ref_attr_name;	/* function attribute reference, or NULL */
	void *priv;		/* kept verbatim: sparse tensors, type protos */
};

/* ------------------------------------------------------------------ */
/* Nodes                                                               */

struct qir_node {
	char *name;		/* owned; may be "" */
	char *op_type;		/* owned */
	char *domain;		/* owned; "" is the default ONNX domain */
	size_t ninputs;
	qir_value **inputs;	/* NULL entry = empty optional input */
	size_t noutputs;
	qir_value **outputs;	/* NULL entry = empty optional output */
	size_t nattrs;
	qir_attr *attrs;
	qir_graph *graph;
	qir_node *prev, *next;	/* graph order */
	void *priv;
};

/* A new node appended at the end of g (use qir_node_move_before/after
 * or qir_graph_toposort to place it). name may be NULL or a hint: it
 * is made unique among node names. domain NULL = "". Borrowed. */
qir_node *qir_node_new(qir_graph *g, const char *op_type,
		       const char *domain, const char *name);
/* Changes n's operator in place (name, inputs, outputs and attributes
 * stay): converting a custom op to its standard twin. domain NULL = "".
 * -1 when out of memory (n unchanged). */
int qir_node_set_op(qir_node *n, const char *op_type, const char *domain);
/* Inputs: append, or set slot i (v may be NULL for an empty input). */
QIR_MUST_CHECK int qir_node_add_input(qir_node *n, qir_value *v);
QIR_MUST_CHECK int qir_node_set_input(qir_node *n, size_t i, qir_value *v);
/* Outputs: append v (v must have no producer), or a new value named
 * after hint when v is NULL. Returns the output value, or NULL. */
QIR_MUST_CHECK qir_value *qir_node_add_output(qir_node *n, qir_value *v, const char *hint);
void qir_node_move_before(qir_node *n, qir_node *before);
void qir_node_move_after(qir_node *n, qir_node *after);
/* Removes n from its graph and frees it. Fails (QIR_EUSAGE) while an
 * output still has uses or is a graph output. Its output values are
 * freed; its inputs lose the use. */
QIR_MUST_CHECK int qir_node_erase(qir_node *n, qir_error *err);
/* Nodes that consume any output of n (deduplicated). Caller owns the
 * array (free()). */
qir_node **qir_node_consumers(qir_node *n, size_t *count);

/* "node 'fc1' (MatMul)", or "node MatMul producing 'y'" for an unnamed
 * node: how messages name a node. Writes into buf and returns it. */
char *qir_node_label(const qir_node *n, char *buf, size_t size);
/* The label in a temporary that lives until the end of the enclosing
 * block: printf("%s", QIR_NODE_LABEL(n)) with no buffer to declare. */
#define QIR_NODE_LABEL_SIZE 256
#define QIR_NODE_LABEL(n) \
	qir_node_label((n), (char[QIR_NODE_LABEL_SIZE]){ 0 }, \
		       QIR_NODE_LABEL_SIZE)

/* Copies text taken from a model (a name, a doc string) into dst for
 * printing: control bytes, DEL, C1 controls and broken UTF-8 become
 * \xNN, well-formed UTF-8 stays. cap bytes at most, always terminated.
 * Returns the length written. */
size_t qir_escape_text(char *dst, size_t cap, const char *src);

/* 1 for the default ONNX domain: NULL, "" or "ai.onnx". */
int qir_domain_is_default(const char *domain);
/* 1 when n is op_type of the default domain (what passes usually mean
 * by "a MatMul"): a custom domain's op of the same name is not. */
int qir_node_is(const qir_node *n, const char *op_type);

/* Attribute access. get returns NULL when absent. */
qir_attr *qir_node_attr(const qir_node *n, const char *name);
int64_t qir_node_attr_int(const qir_node *n, const char *name, int64_t dflt);
float qir_node_attr_float(const qir_node *n, const char *name, float dflt);
/* An INT attribute naming an element type (Cast's "to", "dtype",
 * "output_dtype"): the type, or QIR_UNDEFINED when absent, not an INT
 * or not a known type. Reads the whole int64, never a truncation. */
int qir_node_attr_dtype(const qir_node *n, const char *name);
const char *qir_node_attr_string(const qir_node *n, const char *name,
				 const char *dflt);
/* Setters replace an existing attribute of that name. */
QIR_MUST_CHECK int qir_node_set_attr_int(qir_node *n, const char *name, int64_t v);
QIR_MUST_CHECK int qir_node_set_attr_float(qir_node *n, const char *name, float v);
QIR_MUST_CHECK int qir_node_set_attr_string(qir_node *n, const char *name, const char *v);
QIR_MUST_CHECK int qir_node_set_attr_ints(qir_node *n, const char *name,
			   const int64_t *v, size_t count);
QIR_MUST_CHECK int qir_node_set_attr_floats(qir_node *n, const char *name,
			     const float *v, size_t count);
/* Takes ownership of t. */
QIR_MUST_CHECK int qir_node_set_attr_tensor(qir_node *n, const char *name, qir_tensor *t);
int qir_node_remove_attr(qir_node *n, const char *name);
/* Copies attribute a (from any node) onto n, replacing one of the same
 * name: scalars, strings (bytes kept), lists, tensors (cloned).
 * Subgraph, sparse and type-proto attributes: QIR_EUNSUPPORTED. */
QIR_MUST_CHECK int qir_node_copy_attr(qir_node *n, const qir_attr *a, qir_error *err);
/* A new empty subgraph held in attribute attr_name (type GRAPH,
 * replacing any attribute of that name); its parent is n's graph, so
 * its nodes may use values visible at n. graph_name NULL: attr_name.
 * Borrowed (owned by the attribute). */
QIR_MUST_CHECK qir_graph *qir_node_add_subgraph(qir_node *n, const char *attr_name,
				 const char *graph_name, qir_error *err);

/* ------------------------------------------------------------------ */
/* Graphs                                                              */

struct qir_graph {
	char *name;		/* owned */
	qir_node *first, *last;
	size_t nnodes;
	size_t ninputs;
	qir_value **inputs;
	size_t noutputs;
	qir_value **outputs;
	size_t ninits;
	qir_value **inits;	/* values with an initializer, file order */
	qir_graph *parent;	/* enclosing graph of a subgraph, or NULL */
	qir_node *parent_node;	/* node whose attribute holds it */
	qir_model *model;
	void *priv;
};

#define qir_graph_for_each_node(g, n) \
	for ((n) = (g)->first; (n); (n) = (n)->next)

/* Takes ownership of t; the value is named t->name made unique (the
 * tensor is renamed to match). Borrowed result. */
QIR_MUST_CHECK qir_value *qir_graph_add_initializer(qir_graph *g, qir_tensor *t);
/* Drops the initializer behind v (v must have no uses and not be an
 * output). One walk over g->inits: a pass removing many calls
 * qir_graph_remove_initializers once instead. */
QIR_MUST_CHECK int qir_graph_remove_initializer(qir_graph *g, qir_value *v, qir_error *err);
/* Drops the n initializers in vals (each as above; one may be listed
 * twice) in one walk over g->inits, the others keeping their order:
 * O(ninits + n), so removing many stays linear. Checks them all first:
 * on error (QIR_EUSAGE, naming the first bad one) nothing is removed
 * (ABI 2.3). */
QIR_MUST_CHECK int qir_graph_remove_initializers(qir_graph *g,
						 qir_value *const *vals,
						 size_t n, qir_error *err);
/* Turns the output of a Constant node into an initializer of the same
 * name and erases the node. */
QIR_MUST_CHECK int qir_graph_constant_to_initializer(qir_graph *g, qir_node *constant,
				      qir_error *err);
/* Graph inputs/outputs lists. */
QIR_MUST_CHECK int qir_graph_add_input(qir_graph *g, qir_value *v);
QIR_MUST_CHECK int qir_graph_add_output(qir_graph *g, qir_value *v);
QIR_MUST_CHECK int qir_graph_set_output(qir_graph *g, size_t i, qir_value *v);
/* A snapshot of g's nodes in graph order (with recurse, each nested
 * subgraph's after its parent graph's), keeping those whose domain is
 * domain (NULL: any; "" and "ai.onnx" both mean the default domain) and
 * whose op_type is op_type (NULL: any). Caller owns *out (free()); it is
 * NULL when *count is 0. Passes that rewrite while they iterate walk a
 * snapshot so erased or inserted nodes do not disturb the walk. */
int qir_graph_nodes(qir_graph *g, const char *domain, const char *op_type,
		    int recurse, qir_node ***out, size_t *count,
		    qir_error *err);
/* Orders nodes so every producer precedes its consumers (stable for
 * an already sorted graph), in g and every nested subgraph. QIR_EVERIFY
 * on a cycle, naming the nodes on it (the nodes stay in the graph, the
 * cyclic ones after the sorted ones). */
QIR_MUST_CHECK int qir_graph_toposort(qir_graph *g, qir_error *err);
/* Same; *moved (may be NULL) gets how many nodes changed place: those
 * outside a longest run that kept its relative order. */
QIR_MUST_CHECK int qir_graph_toposort_count(qir_graph *g, size_t *moved, qir_error *err);
/* Removes nodes none of whose outputs are used or graph outputs, and
 * initializers no one uses, repeatedly; subgraphs too. Returns the
 * number removed. */
size_t qir_graph_remove_dead(qir_graph *g);
/* Visits g and every nested subgraph (pre-order). Stops and returns
 * the first non-zero callback result. */
int qir_graph_walk(qir_graph *g, int (*fn)(qir_graph *, void *), void *arg);

/* ------------------------------------------------------------------ */
/* Models                                                              */

typedef struct qir_opset {
	char *domain;		/* "" or "ai.onnx" = default domain */
	int64_t version;
} qir_opset;

typedef struct qir_kv {
	char *key, *value;
} qir_kv;

struct qir_model {
	int64_t ir_version;
	char *producer_name;
	char *producer_version;
	char *domain;
	int64_t model_version;
	size_t nopsets;
	qir_opset *opsets;
	size_t nmetadata;
	qir_kv *metadata;
	qir_graph *graph;
	char *path;		/* file it was loaded from, or NULL */
	void *priv;
};

/* Caller owns: an empty model (IR version and default opset given). */
qir_model *qir_model_new(int64_t ir_version, int64_t opset, qir_error *err);
void qir_model_free(qir_model *m);
/* Version of the default domain ("" / "ai.onnx"), or 0. */
int64_t qir_model_opset(const qir_model *m, const char *domain);
QIR_MUST_CHECK int qir_model_set_opset(qir_model *m, const char *domain, int64_t version);
/* Drops the opset import of domain ("" / "ai.onnx": the default);
 * 1 when one was dropped, 0 when there was none. The caller checks
 * that no node still uses the domain. */
int qir_model_remove_opset(qir_model *m, const char *domain);
QIR_MUST_CHECK int qir_model_set_metadata(qir_model *m, const char *key, const char *value);

/* Caller-allocated option structs (qir_load_opts, qir_save_opts,
 * qir_infer_opts; qir_upgrade_report in <qopt/upgrade.h>) begin with
 * their size, as the caller was built (since ABI 4.0; the rule is in
 * docs/plugin-abi.md). Start from the struct's _INIT macro, which sets
 * it, then set fields by name:
 *	qir_save_opts so = QIR_SAVE_OPTS_INIT;
 *	so.threads = 4;
 * libqopt reads (and writes) only the fields the size covers: a later
 * minor appends fields at the end, and for a caller built before them
 * they read as zero, which always means "as before". size 0 reads as
 * ABI 4.0's layout; any other size below it fails with QIR_EUSAGE. */
typedef struct qir_load_opts {
	uint32_t size;		/* sizeof(qir_load_opts): QIR_LOAD_OPTS_INIT */
	int no_external;	/* refuse external data (for fuzzing) */
	/* (ABI 4.3) Accept external data files with more than one hard
	 * link, which are refused by default (one may be a file outside
	 * the model's folder): for a model the caller saved itself with
	 * link_external into a folder of its own. */
	int links_ok;
} qir_load_opts;
#define QIR_LOAD_OPTS_INIT { .size = sizeof(qir_load_opts) }

/* Caller owns *out. Maps the file, parses, checks every tensor's size
 * and every external data reference (must stay in the model's folder).
 * Nodes listed out of topological order (valid ONNX, common in
 * converted models) are sorted once here, so passes and the writer
 * see and keep producers before consumers; a cycle fails the load
 * (QIR_EVERIFY) naming its nodes. Then qir_model_infer types the
 * values the file leaves untyped (its notes: qir_model_load_notes).
 * opts may be NULL. */
int qir_model_load(const char *path, const qir_load_opts *opts,
		   qir_model **out, qir_error *err);
/* Same from a buffer the caller keeps alive for the model's lifetime;
 * dir is where external data is looked up (NULL: none allowed). */
int qir_model_load_buffer(const void *buf, size_t len, const char *dir,
			  qir_model **out, qir_error *err);
/* How many nodes the load moved to put the file's nodes in topological
 * order (all graphs); 0 for a sorted file or a model built in memory. */
size_t qir_model_load_reordered(const qir_model *m);

typedef struct qir_save_opts {
	uint32_t size;		/* sizeof(qir_save_opts): QIR_SAVE_OPTS_INIT */
	/* Tensors of at least this many bytes go to external data;
	 * 0: automatic, the input's layout: a model loaded with external
	 * data keeps it (every tensor of 1 KiB or more, and every tensor
	 * that was external); otherwise only when the model would exceed
	 * 2 GiB, then every tensor of 1 KiB or more. */
	uint64_t external_threshold;
	/* Data file name, relative to the output's folder; NULL:
	 * "<output file name>.data". */
	const char *external_name;
	int all_inline;		/* force everything inline (fails > 2 GiB) */
	/* Threads filling the data file (copying bytes, evaluating
	 * deferred tensors' recipes); 0: one per online CPU, at most 16.
	 * The bytes written do not depend on it. */
	int threads;
	/* ---- fields appended after ABI 4.0 go here ---- */
	/* (ABI 4.3) Tensors whose bytes are still those of the input's
	 * external data are not copied: the model refers to the input's
	 * data file through a hard link beside the output, named
	 * "<data file name>.in" (a second input file ".in2", and so on).
	 * For throwaway copies (the models qopt hands ONNX Runtime to
	 * calibrate), which are removed with their links; where no link
	 * can be made (another file system) the bytes are copied. */
	int link_external;
} qir_save_opts;
#define QIR_SAVE_OPTS_INIT { .size = sizeof(qir_save_opts) }

/* The external data file qir_model_save writes beside output: output's
 * folder joined with external_name (qir_save_opts.external_name), or
 * with "<output's file name>.data" when that is NULL. Caller frees;
 * NULL when out of memory. Since ABI 4.0. */
char *qir_model_data_path(const char *output, const char *external_name);
/* Writes to a temporary file beside path and renames it over path;
 * the data file likewise. Never leaves a partial output. */
int qir_model_save(qir_model *m, const char *path,
		   const qir_save_opts *opts, qir_error *err);

/* Type and shape inference (docs/shape-inference.md). Every value a
 * node produces whose type is not declared (by the file's value_info,
 * a graph input or output, or a pass through qir_value_set_type /
 * qir_value_copy_shape) gets the element type and shape ONNX's
 * operator rules give, symbolic dims kept by name; earlier inferred
 * types are recomputed. A declared type is never changed: where
 * inference disagrees with it, note (when set) gets a message naming
 * the value. Inferred types are not written as value_info (the pass
 * infer-shapes does that). Since ABI 2.3. */
typedef struct qir_infer_opts {
	uint32_t size;		/* sizeof(qir_infer_opts): QIR_INFER_OPTS_INIT */
	void (*note)(void *arg, const char *msg);
	void *arg;
} qir_infer_opts;
#define QIR_INFER_OPTS_INIT { .size = sizeof(qir_infer_opts) }
/* Runs inference on every graph of m, in graph order (m must be
 * sorted). opts may be NULL. -1 only when out of memory or when opts'
 * size is wrong (QIR_EUSAGE). Since ABI 2.3. */
QIR_MUST_CHECK int qir_model_infer(qir_model *m, const qir_infer_opts *opts,
				   qir_error *err);
/* 1 when v's type and shape came from inference, 0 when declared or
 * unknown. Since ABI 2.3. */
int qir_value_type_inferred(const qir_value *v);
/* Notes of the inference qir_model_load ran: how many declared types
 * disagreed with inference, and the text of note i (the first 64 are
 * kept; NULL beyond). Borrowed. Since ABI 2.3. */
size_t qir_model_load_notes(const qir_model *m);
const char *qir_model_load_note(const qir_model *m, size_t i);

/* Verifier: every input defined before use (graph inputs,
 * initializers, earlier outputs, outer-scope values), output names
 * unique, graph outputs produced, an opset import for each domain used,
 * use lists consistent, and the known element types of the inputs an
 * operator's schema binds to one type agree (MatMul, Gemm, Conv, Add,
 * Concat, Where's X and Y, ...). Reports the first problem. */
int qir_verify(qir_model *m, qir_error *err);

/* Readable listing (qopt dump, --print-after); after each graph's nodes
 * the type of every node output, "(inferred)" where inference gave it
 * and "?" where nothing is known. */
void qir_print(qir_model *m, FILE *f);
/* One line per node: "name = OpType(inputs) attrs", then the types. */
void qir_print_graph(qir_graph *g, FILE *f, int indent);

/* A hash of the model's structure and tensor bytes; equal models have
 * equal hashes (--print-changed uses it, calibration files carry it).
 * Since ABI 4.3 tensor bytes enter by a word-wise digest, read once per
 * process for the bytes of a mapped file: the value differs from the
 * one earlier releases gave. */
uint64_t qir_model_hash(qir_model *m);
/* 1 when hex (16 hex digits, either case) is m's hash as
 * qir_model_hash gives it, or as it was given before ABI 4.3 (a
 * calibration file made by an earlier qopt still matches); else 0.
 * (ABI 4.3) */
int qir_model_hash_is(qir_model *m, const char *hex);

/* Model-local functions (ModelProto.functions) of a loaded model: the
 * IR does not model them, the writer keeps them as read. 0 for a model
 * built in memory. */
size_t qir_model_function_count(const qir_model *m);
/* "domain.name" of function i written into buf (truncated to size) and
 * returned, or NULL when i is out of range. */
char *qir_model_function_name(const qir_model *m, size_t i, char *buf,
			      size_t size);

#ifdef __cplusplus
}
#endif
#endif /* QOPT_IR_H */
