/*
 * passes/support/weight.c - from a stored weight forward to every
 * consumer, with the reduction axis carried back through Transpose
 * permutations (weight.h).
 */
#include <stdlib.h>
#include <string.h>

#include "weight.h"

int ps_is_placeholder(const qir_node *n)
{
	return n->domain && !strcmp(n->domain, "trt") &&
	       !strcmp(n->op_type, "TRT_FP4QDQ");
}

/* A Cast keeps the layout; only float-to-float casts are looked
 * through, since the weights the passes rewrite are floats. */
static int is_float_cast(const qir_node *n)
{
	return qir_node_is(n, "Cast") &&
	       qir_dtype_is_float(qir_node_attr_dtype(n, "to")) &&
	       qir_dtype_bits(qir_node_attr_dtype(n, "to")) >= 16;
}

int ps_is_layout_node(const qir_node *n, unsigned flags)
{
	if (n->ninputs < 1 || !n->inputs[0] || n->noutputs != 1 ||
	    !n->outputs[0])
		return 0;
	if (ps_is_placeholder(n))
		return (flags & PS_WALK_PLACEHOLDER) != 0;
	if (qir_node_is(n, "Identity") || is_float_cast(n))
		return n->ninputs == 1;
	/* Transpose-1 and -13 take the perm as an attribute only. */
	return qir_node_is(n, "Transpose") && n->ninputs == 1;
}

int ps_weight_slot(const qir_node *n)
{
	/* A constant MatMul A input is not treated as a weight (the K
	 * axis would be A's last one; exporters keep weights on B). */
	if (qir_node_is(n, "MatMul") || qir_node_is(n, "Gemm") ||
	    qir_node_is(n, "Conv"))
		return n->ninputs >= 2 ? 1 : -1;
	return -1;
}

int ps_reduce_axis(const qir_node *n, int slot, int rank)
{
	if (qir_node_is(n, "MatMul")) {
		if (slot == 0)
			return rank >= 1 ? rank - 1 : -1;
		if (slot != 1)
			return -1;
		if (rank == 1)
			return 0;	/* B is [K] */
		return rank >= 2 ? rank - 2 : -1;
	}
	if (qir_node_is(n, "Gemm")) {
		if (rank != 2 || slot > 1)
			return -1;
		if (slot == 0)
			return qir_node_attr_int(n, "transA", 0) ? 0 : 1;
		return qir_node_attr_int(n, "transB", 0) ? 1 : 0;
	}
	if (qir_node_is(n, "Conv"))
		return slot == 1 && rank >= 3 ? 1 : -1;
	return -1;
}

int ps_layout_axis(const qir_node *n, int axis, int rank)
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

qir_value *ps_stored_value(qir_value *v, unsigned flags)
{
	int guard = 0;

	while (v && v->producer && ps_is_layout_node(v->producer, flags) &&
	       guard++ < PS_MAX_PATH)
		v = v->producer->inputs[0];
	return v;
}

/* Follows the first non-constant input first, so that an activation
 * path fails after a few steps instead of exploring the whole graph. */
int ps_is_const_expr(qir_value *v, int depth)
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
		if (!ps_is_const_expr(p->inputs[i], depth - 1))
			return 0;
	return 1;
}

/* Depth first, first inputs first: an activation reaches its graph
 * input in a few steps along its data path; constant branches end at
 * constants. The budget bounds a wide constant subgraph (then "not
 * found": the constant folder decides). */
static qir_value *runtime_source(qir_value *v, size_t *budget)
{
	qir_node *p;
	qir_value *r;
	size_t i;

	if (!v || qir_value_const(v) || !*budget)
		return NULL;
	--*budget;
	p = v->producer;
	if (!p)
		return v;	/* a graph input or an outer-scope value */
	for (i = 0; i < p->ninputs; i++)
		if ((r = runtime_source(p->inputs[i], budget)))
			return r;
	return NULL;
}

qir_value *ps_runtime_source(qir_value *v)
{
	size_t budget = 100000;

	return runtime_source(v, &budget);
}

static const char *input_letter(const qir_node *n, int slot)
{
	static const char *const mm[] = { "A", "B", "C" };
	static const char *const conv[] = { "X", "W", "B" };

	if (slot < 0 || slot > 2)
		return "?";
	return qir_node_is(n, "Conv") ? conv[slot] : mm[slot];
}

int ps_skip_if_activation(const qir_node *n, int slot, struct ps_skip *s)
{
	qir_value *v = n->inputs[slot];
	qir_value *src = ps_runtime_source(v);

	/* A graph input read directly may be a weight fed at run time:
	 * ps_weight_tensor says it is not constant. */
	if (!src || src == v)
		return 0;
	ps_skip_set(s, &ps_skip_activation, "input %s is computed at run "
		    "time (from node '%s', which depends on graph input "
		    "'%s'), not a weight", input_letter(n, slot),
		    v->producer->name, src->name);
	return 1;
}

static int add_use(struct ps_uses *u, const struct ps_use *x)
{
	if (u->n == u->cap) {
		size_t cap = u->cap ? 2 * u->cap : 4;
		struct ps_use *nv = realloc(u->v, cap * sizeof(*nv));

		if (!nv)
			return -1;
		u->v = nv;
		u->cap = cap;
	}
	u->v[u->n++] = *x;
	return 0;
}

/* Does n reading the walked value at slot reduce over it? */
static int is_use(const qir_node *n, int slot, unsigned flags)
{
	if (flags & PS_WALK_ACTIVATION)
		return (slot == 0 || slot == 1) &&
		       (qir_node_is(n, "MatMul") || qir_node_is(n, "Gemm"));
	return slot == ps_weight_slot(n) &&
	       !ps_is_const_expr(n->inputs[0], 16);
}

struct walk {
	unsigned flags;
	struct ps_uses *u;
	struct ps_skip *s;
};

static int walk_uses(struct walk *w, qir_value *v, struct ps_use *cur)
{
	size_t i;

	if (v->is_output) {
		ps_skip_first(w->s, &ps_skip_shared, "'%s' is a graph output",
			      v->name);
		return 0;
	}
	for (i = 0; i < v->nuses; i++) {
		qir_node *n = v->uses[i].node;
		int slot = v->uses[i].index;

		if (slot == 0 && ps_is_layout_node(n, w->flags)) {
			struct ps_use next = *cur;

			if (next.npath == PS_MAX_PATH) {
				ps_skip_first(w->s, &ps_skip_shared,
					      "too many layout nodes before "
					      "'%s'", n->name);
				continue;
			}
			next.path[next.npath++] = n;
			next.placeholder |= ps_is_placeholder(n);
			if (walk_uses(w, n->outputs[0], &next))
				return -1;
		} else if (is_use(n, slot, w->flags)) {
			struct ps_use x = *cur;

			x.node = n;
			x.slot = slot;
			x.input = v;
			if (add_use(w->u, &x))
				return -1;
		} else {
			ps_skip_first(w->s, &ps_skip_shared,
				      "also read by %s node '%s'", n->op_type,
				      n->name);
		}
	}
	return 0;
}

int ps_collect_uses(qir_value *stored, unsigned flags, struct ps_uses *u,
		    struct ps_skip *s)
{
	struct walk w = { flags, u, s };
	struct ps_use root;

	memset(&root, 0, sizeof(root));
	u->n = 0;
	return walk_uses(&w, stored, &root);
}

int ps_uses_kaxis(const struct ps_uses *u, int rank, int *kaxis,
		  struct ps_skip *s)
{
	size_t i;
	int j;

	*kaxis = -1;
	for (i = 0; i < u->n; i++) {
		const struct ps_use *x = &u->v[i];
		int ax = ps_reduce_axis(x->node, x->slot, rank);

		for (j = x->npath - 1; j >= 0 && ax >= 0; j--)
			ax = ps_layout_axis(x->path[j], ax, rank);
		if (ax < 0) {
			ps_skip_first(s, &ps_skip_layout, "%s node '%s' reads "
				      "it with an unsupported rank or perm",
				      x->node->op_type, x->node->name);
			return -1;
		}
		if (*kaxis >= 0 && *kaxis != ax) {
			ps_skip_first(s, &ps_skip_k_disagree, "consumers '%s' "
				      "and '%s' reduce along different axes",
				      u->v[0].node->name, x->node->name);
			return -1;
		}
		*kaxis = ax;
	}
	return 0;
}

void ps_uses_free(struct ps_uses *u)
{
	free(u->v);
	u->v = NULL;
	u->n = u->cap = 0;
}

int ps_float_weight_type(int dtype)
{
	return dtype == QIR_FLOAT || dtype == QIR_FLOAT16 ||
	       dtype == QIR_BFLOAT16;
}

/* The DequantizeLinear (standard, or an exporter's custom one) that
 * v comes from through layout nodes, or NULL. */
static qir_node *quantized_by(qir_value *v)
{
	qir_node *p;
	int hops;

	for (hops = 0; v && (p = v->producer) && hops <= PS_MAX_PATH; hops++) {
		if (strstr(p->op_type, "DequantizeLinear"))
			return p;	/* any domain: trt's FP8 one too */
		if (!ps_is_layout_node(p, PS_WALK_PLACEHOLDER))
			return NULL;
		v = p->inputs[0];
	}
	return NULL;
}

qir_tensor *ps_weight_tensor(qir_value *v, uint64_t max_bytes, int *folded,
			     struct ps_skip *s)
{
	qir_tensor *t = qir_value_const(v);
	qir_error err = { 0 };
	qir_node *dq;
	int rc;

	*folded = 0;
	if (t)
		return t;
	if (!v->producer) {
		ps_skip_set(s, &ps_skip_not_constant, "'%s' is %s", v->name,
			    v->is_input ? "a graph input" :
			    "not a constant");
		return NULL;
	}
	rc = qir_const_eval(v, max_bytes, &t, &err);
	if (rc && (dq = quantized_by(v))) {
		ps_skip_set(s, &ps_skip_quantized, "'%s' comes from %s node "
			    "'%s': the weight is quantized already", v->name,
			    dq->op_type, dq->name);
		return NULL;
	}
	if (rc) {
		/* Computed from constants alone (an activation is found
		 * earlier, ps_skip_if_activation): the folder's reason is
		 * the cause. */
		ps_skip_set(s, &ps_skip_not_constant, "'%s' is computed from "
			    "constants by %s node '%s', which qopt cannot "
			    "evaluate (%s)", v->name, v->producer->op_type,
			    v->producer->name, err.msg);
		return NULL;
	}
	*folded = 1;
	return t;
}

void ps_axis_split(const int64_t *dims, int rank, int axis, size_t *outer,
		   size_t *k, size_t *inner)
{
	*outer = *inner = 1;
	*k = axis >= 0 && axis < rank ? (size_t)dims[axis] : 1;
	for (int i = 0; i < rank; i++) {
		if (i < axis)
			*outer *= (size_t)dims[i];
		else if (i > axis)
			*inner *= (size_t)dims[i];
	}
}
