/*
 * passes/nvfp4_weights/trace.c - from a consumer back to the stored
 * weight, and from the stored weight forward to every consumer, with
 * the reduction axis carried through Transpose permutations.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvfp4.h"

int nvfp4_is_placeholder(const qir_node *n)
{
	return n->domain && !strcmp(n->domain, "trt") &&
	       !strcmp(n->op_type, "TRT_FP4QDQ");
}

/* A Cast keeps the layout; only float-to-float casts are looked
 * through, since the quantized weight is a float. */
static int is_float_cast(const qir_node *n)
{
	return qir_node_is(n, "Cast") &&
	       qir_dtype_is_float(qir_node_attr_dtype(n, "to")) &&
	       qir_dtype_bits(qir_node_attr_dtype(n, "to")) >= 16;
}

int nvfp4_is_layout_node(const qir_node *n)
{
	if (n->ninputs < 1 || !n->inputs[0] || n->noutputs != 1 ||
	    !n->outputs[0])
		return 0;
	if (nvfp4_is_placeholder(n))
		return 1;
	if (qir_node_is(n, "Identity") || is_float_cast(n))
		return n->ninputs == 1;
	/* Transpose-1 and -13 take the perm as an attribute only. */
	return qir_node_is(n, "Transpose") && n->ninputs == 1;
}

/* The input slot holding the weight, or -1. MatMul(x, W), Gemm(A, B),
 * Conv(X, W): always slot 1. A constant MatMul A input is not treated
 * as a weight (the K axis would be A's last one; exporters keep
 * weights on B). */
int nvfp4_weight_slot(const qir_node *n)
{
	if (qir_node_is(n, "MatMul") || qir_node_is(n, "Gemm") ||
	    qir_node_is(n, "Conv"))
		return n->ninputs >= 2 ? 1 : -1;
	return -1;
}

/* K axis of the weight as the consumer reads it (rank of that input),
 * or -1 when the layout is not one we block. */
int nvfp4_consumer_axis(const qir_node *n, int rank)
{
	if (qir_node_is(n, "MatMul")) {
		/* B is [..., K, N]; a rank-1 B is [K]. */
		if (rank == 1)
			return 0;
		return rank >= 2 ? rank - 2 : -1;
	}
	if (qir_node_is(n, "Gemm")) {
		if (rank != 2)
			return -1;
		return qir_node_attr_int(n, "transB", 0) ? 1 : 0;
	}
	if (qir_node_is(n, "Conv")) {
		/* W is [M, C/group, k...]: the input channels reduce. */
		return rank >= 3 ? 1 : -1;
	}
	return -1;
}

qir_value *nvfp4_stored_value(qir_value *v)
{
	int guard = 0;

	while (v && v->producer && nvfp4_is_layout_node(v->producer) &&
	       guard++ < NVFP4_MAX_PATH)
		v = v->producer->inputs[0];
	return v;
}

/* 1 when v is computed from constants only. Follows the first
 * non-constant input first, so that an activation path fails after a
 * few steps instead of exploring the whole graph. */
int nvfp4_is_const_expr(qir_value *v, int depth)
{
	qir_node *p;
	size_t i;

	if (!v)
		return 1;	/* absent optional input */
	if (qir_value_const(v))
		return 1;
	p = v->producer;
	if (!p || depth <= 0 || !p->ninputs)
		return p && !p->ninputs && qir_node_is(p, "Constant");
	for (i = 0; i < p->ninputs; i++)
		if (!nvfp4_is_const_expr(p->inputs[i], depth - 1))
			return 0;
	return 1;
}

static int add_use(struct nvfp4_weight *w, const struct nvfp4_use *u)
{
	if (w->nuses == w->capuses) {
		size_t cap = w->capuses ? 2 * w->capuses : 4;
		struct nvfp4_use *nu = realloc(w->uses, cap * sizeof(*nu));

		if (!nu)
			return -1;
		w->uses = nu;
		w->capuses = cap;
	}
	w->uses[w->nuses++] = *u;
	return 0;
}

static void set_skip(struct nvfp4_weight *w, const char *counter,
		     const char *fmt, const char *a, const char *b)
{
	if (w->skip)
		return;
	w->skip = counter;
	snprintf(w->why, sizeof(w->why), fmt, a, b);
}

static int walk_uses(struct nvfp4_weight *w, qir_value *v,
		     struct nvfp4_use *cur)
{
	size_t i;

	if (v->is_output) {
		set_skip(w, "skipped (shared with a non-weight use)",
			 "'%s' is a graph output%s", v->name, "");
		return 0;
	}
	for (i = 0; i < v->nuses; i++) {
		qir_node *n = v->uses[i].node;
		int slot = v->uses[i].index;

		if (slot == 0 && nvfp4_is_layout_node(n)) {
			struct nvfp4_use next = *cur;

			if (next.npath == NVFP4_MAX_PATH) {
				set_skip(w, "skipped (shared with a non-weight use)",
					 "too many layout nodes before '%s'%s",
					 n->name, "");
				continue;
			}
			next.path[next.npath++] = n;
			next.placeholder |= nvfp4_is_placeholder(n);
			if (walk_uses(w, n->outputs[0], &next))
				return -1;
		} else if (slot == nvfp4_weight_slot(n) &&
			   !nvfp4_is_const_expr(n->inputs[0], 16)) {
			struct nvfp4_use u = *cur;

			u.node = n;
			u.slot = slot;
			u.input = v;
			if (add_use(w, &u))
				return -1;
		} else {
			set_skip(w, "skipped (shared with a non-weight use)",
				 "also read by %s node '%s'", n->op_type,
				 n->name);
		}
	}
	return 0;
}

int nvfp4_collect_uses(struct nvfp4_weight *w)
{
	struct nvfp4_use root;

	memset(&root, 0, sizeof(root));
	w->nuses = 0;
	return walk_uses(w, w->stored, &root);
}

/* Transpose: output axis j is input axis perm[j]. */
static int map_through(const qir_node *n, int axis, int rank)
{
	const qir_attr *perm;

	if (strcmp(n->op_type, "Transpose"))
		return axis;
	perm = qir_node_attr(n, "perm");
	if (!perm || perm->type != QIR_ATTR_INTS)
		return rank - 1 - axis;
	if ((int)perm->n != rank || perm->ints[axis] < 0 ||
	    perm->ints[axis] >= rank)
		return -1;
	return (int)perm->ints[axis];
}

int nvfp4_resolve_axis(struct nvfp4_weight *w, int rank)
{
	size_t i;
	int j;

	w->kaxis = -1;
	for (i = 0; i < w->nuses; i++) {
		const struct nvfp4_use *u = &w->uses[i];
		int ax = nvfp4_consumer_axis(u->node, rank);

		for (j = u->npath - 1; j >= 0 && ax >= 0; j--)
			ax = map_through(u->path[j], ax, rank);
		if (ax < 0) {
			set_skip(w, "skipped (unsupported layout)",
				 "%s node '%s' reads it with an unsupported rank or perm",
				 u->node->op_type, u->node->name);
			return -1;
		}
		if (w->kaxis >= 0 && w->kaxis != ax) {
			set_skip(w, "skipped (consumers disagree on K)",
				 "consumers '%s' and '%s' reduce along different axes",
				 w->uses[0].node->name, u->node->name);
			return -1;
		}
		w->kaxis = ax;
	}
	return 0;
}

void nvfp4_weight_release(struct nvfp4_weight *w)
{
	free(w->uses);
	w->uses = NULL;
	w->nuses = w->capuses = 0;
}
