/*
 * ir/infer/infer.h - private to the type and shape inference
 * (docs/shape-inference.md): the working shape every rule fills, the
 * walk's context and the rules' signature.
 */
#ifndef QOPT_IR_INFER_H
#define QOPT_IR_INFER_H

#include <qopt/ir.h>
#include "model/internal.h"

/* Ranks above this are typed but left without a shape. */
#define IRI_MAXRANK 32
#include <stdint.h>
/* Constant int64 vectors longer than this are not folded. */
#define IRI_MAXFOLD 64

/* An element type and a shape: rank -1 unknown; per dim d >= 0 known,
 * else -1 with p the symbolic name (borrowed from the value it came
 * from) or NULL. */
typedef struct iri_shape {
	int dtype;
	int rank;
	int64_t d[IRI_MAXRANK];
	const char *p[IRI_MAXRANK];
} iri_shape;

/* One walk of qir_model_infer. folded: the int64 contents of small
 * shape-like values (Shape -> Gather -> Unsqueeze -> Concat) computed
 * on the way, hung on each value (ir_value_priv.fold) for the walk and
 * chained here to be freed after it. */
struct iri_ctx {
	struct iri_fold *folded;
	const qir_infer_opts *opts;
	size_t conflicts;
	qir_error *err;
};

struct iri_fold {
	struct iri_fold *next;
	qir_value *owner;
	size_t n;
	const char **p;		/* n names, borrowed from the dims folded */
	int64_t v[];		/* n values; p follows them */
};

/* A rule fills out[0..nout-1] (preset to unknown) from n's inputs;
 * -1 only when out of memory. */
typedef int (*iri_rule)(struct iri_ctx *c, const qir_node *n,
			iri_shape *out, size_t nout);

/* ir/infer/rules.c: the rule of n's operator, or NULL. */
iri_rule iri_rule_for(const qir_node *n);

/* ir/infer/input.c: reading inputs and constants. */
void iri_unknown(iri_shape *s);
/* Input i of n (unknown when absent or untyped). */
void iri_input(const qir_node *n, size_t i, iri_shape *s);
int iri_input_dtype(const qir_node *n, size_t i);
/* Whole contents of input i as int64 (a constant, or folded on the
 * way); 1 with *len set, 0 when not known. */
int iri_const_ints(struct iri_ctx *c, const qir_node *n, size_t i,
		   int64_t *out, size_t cap, size_t *len);
/* Same, but INT64_MIN in a constant is a value, not IRI_UNKNOWN
 * (Slice's starts and ends: the spec's "to the front" is INT64_MIN). */
int iri_bound_ints(struct iri_ctx *c, const qir_node *n, size_t i,
		   int64_t *out, size_t cap, size_t *len);
/* Same, but a folded shape vector may hold IRI_UNKNOWN entries (a dim
 * of unknown size: Concat(batch, 12, 64) with a dynamic batch). */
#define IRI_UNKNOWN INT64_MIN
int iri_shape_ints(struct iri_ctx *c, const qir_node *n, size_t i,
		   int64_t *out, size_t cap, size_t *len);
/* Same with the symbolic names of IRI_UNKNOWN entries (NULL when
 * unnamed; names may be NULL). */
int iri_shape_ints_named(struct iri_ctx *c, const qir_node *n, size_t i,
			 int64_t *out, const char **names, size_t cap,
			 size_t *len);
/* Remembers that value v holds vals (n entries; names: the symbolic
 * names of unknown ones, or NULL): -1 out of memory. */
int iri_fold_set(struct iri_ctx *c, const qir_value *v, const int64_t *vals,
		 size_t n);
int iri_fold_set_named(struct iri_ctx *c, const qir_value *v,
		       const int64_t *vals, const char *const *names, size_t n);
/* Whole contents of FLOAT constant input i; 1 with *len set. */
int iri_const_floats(const qir_node *n, size_t i, float *out, size_t cap,
		     size_t *len);
/* The default domain's opset of n's model, or 0 when not known. */
int64_t iri_opset(const qir_node *n);
/* The input element output element idx (a multi-index of out) comes
 * from, as a flat index into in; -1 when none. */
typedef int64_t (*iri_fold_src_fn)(const void *arg, const iri_shape *in,
				   const iri_shape *out, const int64_t *idx);
/* Folds output 0 of a layout op (Reshape, Transpose, Slice) from input
 * 0's known contents, moved as src says, when both shapes are static
 * and small: torch computes Pad's pads by reshaping, reversing and
 * transposing a constant. -1 only when out of memory. */
int iri_fold_move(struct iri_ctx *c, const qir_node *n, const iri_shape *in,
		  const iri_shape *out, iri_fold_src_fn src, const void *arg);
/* Row-major flat index of multi-index idx in static shape s. */
int64_t iri_flat(const iri_shape *s, const int64_t *idx);
/* Axis a of rank r normalized into [0, r); -1 when out of range. */
int iri_axis(int64_t a, int r);
/* An INTS attribute of n: its count (0 when absent), copied into out. */
size_t iri_attr_ints(const qir_node *n, const char *name, int64_t *out,
		     size_t cap, int *present);
/* Copies in's shape (not its type) into out. */
void iri_copy_shape(iri_shape *out, const iri_shape *in);
/* Sets out to a rank-r shape of unknown, unnamed dims. */
void iri_rank_only(iri_shape *out, int r);
/* a * b and a + b of dims and attribute values a hostile file sets
 * anywhere in int64: -1 (unknown) where the result would overflow or
 * an operand is unknown (< 0). */
int64_t iri_mul(int64_t a, int64_t b);
int64_t iri_add(int64_t a, int64_t b);
/* The two's complement bits u as a value of int type dtype (INT32:
 * the low 32 bits, as Cast and INT32 arithmetic wrap at run time;
 * otherwise int64), IRI_UNKNOWN for any other dtype. */
int64_t iri_wrap(int dtype, uint64_t u);
/* 1 when every dim of s is known. */
int iri_static(const iri_shape *s);

/* The rules, one family per file. */
/* elementwise.c */
int iri_same(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_bool_same(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_broadcast(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_compare(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_where(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_cast(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_dtype_attr(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
/* shape_ops.c */
int iri_shape_op(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_size(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_reshape(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_flatten(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_transpose(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_squeeze(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_unsqueeze(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_expand(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_constant(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_constant_of_shape(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_range(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_tile(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_depth_space(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
/* recurrent.c */
int iri_recurrent(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
/* GatherND (slicing.c), GridSample (resample.c), RoiAlign (conv.c) */
int iri_gather_nd(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_grid_sample(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_roi_align(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
/* slicing.c */
int iri_concat(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_split(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_slice(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_gather(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_gather_elements(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
/* linear.c */
int iri_matmul(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_gemm(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
/* reduce.c */
int iri_reduce(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_argminmax(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_layer_norm(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_batch_norm(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_dropout(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_topk(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
/* conv.c */
int iri_conv(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_pool(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_global_pool(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_conv_transpose(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
/* resample.c */
int iri_pad(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_resize(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
/* einsum.c */
int iri_einsum(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
/* quant.c */
int iri_quantize(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_dequantize(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_dyn_quantize(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_int32_out(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_qlinear(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_trt_fp8_q(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_trt_fp8_dq(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
/* control.c */
int iri_if(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
int iri_loop(struct iri_ctx *, const qir_node *, iri_shape *, size_t);
/* driver.c: infers one graph and those nested in it. */
int iri_graph(struct iri_ctx *c, qir_graph *g);

#endif
