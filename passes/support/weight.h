/*
 * passes/support/weight.h - a weight and its reduction axis K.
 *
 * A "stored weight" is the value whose constant bytes a pass rewrites
 * (an initializer, a Constant node's output, or the output of a
 * constant subgraph). It reaches its consumers through layout-only
 * nodes: Identity, float Casts (16 bits and up), Transpose (which
 * moves axes) and, with PS_WALK_PLACEHOLDER, TensorRT's
 * trt::TRT_FP4QDQ. The walk follows every use forward and maps each
 * consumer's K back to the stored coordinates; every consumer must
 * reduce over the weight and agree on K, or the weight is skipped
 * with a reason (skip.h kinds).
 *
 * K per consumer input (ps_reduce_axis): MatMul A[..., K] and
 * B[..., K, N] (B of rank 1: [K]); Gemm A [M, K] ([K, M] with
 * transA) and B [K, N] ([N, K] with transB), rank 2 only; Conv W
 * [M, C/group, k...]: the input channels, rank 3 and up.
 */
#ifndef PASSES_SUPPORT_WEIGHT_H
#define PASSES_SUPPORT_WEIGHT_H

#include <stddef.h>

#include <qopt/qopt.h>

#include "skip.h"

#define PS_MAX_PATH 8		/* layout nodes between weight and consumer */

/* ps_collect_uses flags */
#define PS_WALK_PLACEHOLDER 1u	/* trt::TRT_FP4QDQ is a layout node */
#define PS_WALK_ACTIVATION 2u	/* MatMul/Gemm input A counts as a use
				 * (else only the weight slot does) */

/* One consumer input reached from a stored weight. */
struct ps_use {
	qir_node *node;		/* the consumer */
	int slot;		/* its input index */
	qir_value *input;	/* the value the consumer reads */
	qir_node *path[PS_MAX_PATH];	/* layout nodes, weight first */
	int npath;
	int placeholder;	/* a trt::TRT_FP4QDQ lies on the path */
};

struct ps_uses {
	struct ps_use *v;	/* owned: ps_uses_free */
	size_t n, cap;
};

/* K's axis of input slot of n reading a value of rank rank, or -1
 * when n does not reduce over that input (or the rank does not fit). */
int ps_reduce_axis(const qir_node *n, int slot, int rank);
/* The weight input of MatMul, Gemm or Conv (1), else -1. */
int ps_weight_slot(const qir_node *n);
/* 1 for trt::TRT_FP4QDQ. */
int ps_is_placeholder(const qir_node *n);
/* 1 when n only changes the layout (flags as for the walk). */
int ps_is_layout_node(const qir_node *n, unsigned flags);
/* Axis of a Transpose's input that its output axis `axis` is (no perm:
 * reversed); -1 when the perm does not fit rank. n of another op:
 * axis itself. */
int ps_layout_axis(const qir_node *n, int axis, int rank);
/* v, looked through the layout nodes producing it: the stored value. */
qir_value *ps_stored_value(qir_value *v, unsigned flags);
/* The graph input (or outer-scope value) v is computed from at run
 * time, v itself when it is one; NULL when v comes from constants
 * alone. */
qir_value *ps_runtime_source(qir_value *v);
/* 1 with s set (ps_skip_activation, naming the node that computes it)
 * when input slot of n is computed at run time from a graph input (an
 * activation, not a weight); else 0 (a graph input read directly too:
 * maybe a weight fed at run time, ps_weight_tensor's "not constant"). */
int ps_skip_if_activation(const qir_node *n, int slot, struct ps_skip *s);
/* 1 when v is computed from constants only (within depth nodes). */
int ps_is_const_expr(qir_value *v, int depth);

/* Every consumer input reached from stored through layout nodes, into
 * u (emptied first). A use that is no reduction over the weight (a
 * graph output, another op, too long a path) sets s (first reason
 * wins) and the walk goes on. 0, or -1 when out of memory. */
int ps_collect_uses(qir_value *stored, unsigned flags, struct ps_uses *u,
		    struct ps_skip *s);
/* K in stored coordinates (rank known) agreed by every use: *kaxis, 0;
 * -1 with s set when a use's layout does not fit or uses disagree. */
int ps_uses_kaxis(const struct ps_uses *u, int rank, int *kaxis,
		  struct ps_skip *s);
void ps_uses_free(struct ps_uses *u);

/* 1 for the types a weight pass rewrites: FLOAT, FLOAT16, BFLOAT16. */
int ps_float_weight_type(int dtype);
/* The bytes of stored weight v: its constant (borrowed; *folded 0), or
 * its constant subgraph evaluated (at most max_bytes; caller owns it,
 * *folded 1). NULL with s set (ps_skip_not_constant) when v is a graph
 * input, has no constant value, or its subgraph cannot be evaluated. */
qir_tensor *ps_weight_tensor(qir_value *v, uint64_t max_bytes, int *folded,
			     struct ps_skip *s);

/* The element layout [outer, k, inner] of dims around axis. */
void ps_axis_split(const int64_t *dims, int rank, int axis, size_t *outer,
		   size_t *k, size_t *inner);

#endif
