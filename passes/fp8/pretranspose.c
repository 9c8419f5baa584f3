/*
 * passes/fp8/pretranspose.c - rewrite 2, second half: an FP8 weight
 * whose DequantizeLinear feeds only a Transpose (possibly behind one
 * float Cast) whose consumers are all MatMul is stored transposed, and
 * the Transpose goes. A per-axis `axis` moves with its dimension.
 * Moving bytes is exact; the weight must have no other reader.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp8.h"

#define MAXRANK FP8_PT_MAXRANK

static int is_float_cast(const qir_node *n)
{
	return fp8_is_op(n, "Cast") && n->ninputs == 1 &&
	       fp8_is_float((int)qir_node_attr_int(n, "to", 0));
}

/* The path after a weight's DQ: [one float Cast] -> Transpose whose
 * consumers are all MatMul, with a perm of p->rank. 1 found, 0 not this
 * pattern, -1 not safe (reported when report is set). */
static int path_match(struct fp8_cfg *cfg, qir_node *dq,
		      struct fp8_pt *p, int report)
{
	qir_node *u;
	char why[256];

	u = fp8_sole_user(dq->outputs[0]);
	if (u && is_float_cast(u)) {
		p->cast = u;
		u = fp8_sole_user(u->outputs[0]);
	}
	if (!u) {
		qir_value *v = p->cast ? p->cast->outputs[0] : dq->outputs[0];
		size_t i;

		/* A Transpose among several readers: it cannot be folded
		 * into the weight without changing what the others see. */
		for (i = 0; i < v->nuses; i++)
			if (fp8_is_op(v->uses[i].node, "Transpose"))
				break;
		if (i == v->nuses)
			return 0;
		fp8_all_users_are(v, "Transpose", why, sizeof(why));
		if (report)
			fp8_skip(cfg, v->uses[i].node, "pre-transposes "
				    "skipped (consumer off the path)",
				    "weight '%s': %s", p->w->name, why);
		return -1;
	}
	if (!fp8_is_op(u, "Transpose") || u->ninputs != 1)
		return 0;	/* no Transpose: nothing to do */
	p->tr = u;
	if (p->rank > MAXRANK || fp8_transpose_perm(u, p->rank, p->perm)) {
		if (report)
			fp8_skip(cfg, u, "pre-transposes skipped",
				    "weight '%s': perm does not fit rank %d",
				    p->w->name, p->rank);
		return -1;
	}
	if (!fp8_all_users_are(u->outputs[0], "MatMul", why, sizeof(why))) {
		if (report)
			fp8_skip(cfg, u, "pre-transposes skipped (consumer "
				    "not MatMul)", "weight '%s': %s",
				    p->w->name, why);
		return -1;
	}
	return 1;
}

/* 1 candidate, 0 not this pattern, -1 skipped (reported). */
static int match(struct fp8_cfg *cfg, qir_node *dq, struct fp8_pt *p)
{
	int i, rc;

	memset(p, 0, sizeof(*p));
	p->dq = dq;
	p->w = dq->inputs[0];
	p->t = qir_value_const(p->w);
	if (!p->t || p->w->producer || (p->t->dtype != QIR_FLOAT8E4M3FN &&
					p->t->dtype != QIR_FLOAT8E5M2))
		return 0;
	p->rank = p->t->rank;
	if ((rc = path_match(cfg, dq, p, 1)) <= 0)
		return rc;
	if (p->w->nuses != 1 || p->w->is_output) {
		fp8_skip(cfg, p->tr, "pre-transposes skipped (weight shared)",
			    "weight '%s' has %zu readers", p->w->name,
			    p->w->nuses);
		return -1;
	}
	for (i = 0; i < p->rank; i++)
		p->dims[i] = p->t->dims[p->perm[i]];
	return 1;
}

int fp8_pretranspose_plan(struct fp8_cfg *cfg, qir_node *dq,
			     qir_value *w, const qir_tensor *t,
			     struct fp8_pt *p)
{
	memset(p, 0, sizeof(*p));
	p->dq = dq;
	p->w = w;
	p->rank = t->rank;
	if (t->rank != 2 || path_match(cfg, dq, p, 0) <= 0 ||
	    p->perm[0] != 1)
		return 0;
	p->dims[0] = t->dims[1];
	p->dims[1] = t->dims[0];
	return 1;
}

/* Output element j (row-major over dims) reads input element at
 * sum(idx[k] * stride[perm[k]]). The innermost output axis is walked
 * in a tight loop; a plain 2-D transpose goes to the kernels. */
static int permute(qk_ctx *qk, const uint8_t *src, uint8_t *dst,
		   const struct fp8_pt *p)
{
	int64_t stride[MAXRANK], idx[MAXRANK] = { 0 };
	int r = p->rank, k;
	uint64_t total = 1, done = 0;
	int64_t inner, step;

	if (r == 2 && p->perm[0] == 1)
		return qk_transpose(qk, 1, src, (size_t)p->t->dims[0],
				    (size_t)p->t->dims[1], dst,
				    (size_t)p->t->dims[0]);
	stride[r - 1] = 1;
	for (k = r - 2; k >= 0; k--)
		stride[k] = stride[k + 1] * p->t->dims[k + 1];
	for (k = 0; k < r; k++)
		total *= (uint64_t)p->dims[k];
	inner = p->dims[r - 1];
	step = stride[p->perm[r - 1]];
	while (done < total) {
		int64_t off = 0, j;

		for (k = 0; k < r - 1; k++)
			off += idx[k] * stride[p->perm[k]];
		for (j = 0; j < inner; j++)
			dst[done + (uint64_t)j] = src[off + j * step];
		done += (uint64_t)inner;
		for (k = r - 2; k >= 0; k--) {
			if (++idx[k] < p->dims[k])
				break;
			idx[k] = 0;
		}
	}
	return 0;
}

static int remap_axis(struct fp8_pt *p)
{
	int64_t axis;
	qir_tensor *s = qir_value_const(p->dq->inputs[1]);
	int i;

	if (s && qir_tensor_numel(s) == 1)
		return 0;
	axis = qir_node_attr_int(p->dq, "axis", 1);
	if (axis < 0)
		axis += p->rank;
	for (i = 0; i < p->rank; i++)
		if (p->perm[i] == axis)
			return qir_node_set_attr_int(p->dq, "axis", i);
	return -1;
}

int fp8_pretranspose_finish(struct fp8_cfg *cfg, struct fp8_pt *p,
			       qir_tensor *nt)
{
	const struct ps_results res = fp8_results(cfg);
	qir_error err = { 0 };
	qir_value *nv, *last;

	ps_spill(&res, nt);
	nv = ps_add_initializer(p->dq->graph, nt);
	if (!nv || remap_axis(p))
		return fp8_fail(cfg, p->tr, NULL);
	if (qir_node_set_input(p->dq, 0, nv))
		return fp8_fail(cfg, p->tr, NULL);
	last = p->cast ? p->cast->outputs[0] : p->dq->outputs[0];
	/* An untyped DQ output stays untyped (a shape with no element
	 * type cannot be written). */
	if ((p->dq->outputs[0]->dtype &&
	     qir_value_set_type(p->dq->outputs[0], p->dq->outputs[0]->dtype,
				p->rank, p->dims, &err)) ||
	    (p->cast && qir_value_set_type(last, (int)qir_node_attr_int(
					   p->cast, "to", 0), p->rank,
					   p->dims, &err)))
		return fp8_fail(cfg, p->tr, &err);
	if (qir_value_replace_all_uses(p->tr->outputs[0], last) ||
	    qir_node_erase(p->tr, &err))
		return fp8_fail(cfg, p->tr, &err);
	qopt_stat_add(cfg->ctx, "weights pre-transposed", 1);
	return 1;
}

int fp8_pretranspose_gate(struct fp8_cfg *cfg, const struct fp8_pt *p)
{
	return qopt_may_rewrite(cfg->ctx, "store weight '%s' transposed, drop "
				"Transpose '%s'", p->w->name, p->tr->name);
}

/* The transposed codes as a deferred tensor: permuted by the writer
 * straight into the output (or by whoever reads them first). The
 * recipe keeps its own view of the codes and the permutation (p's
 * dims and perm; its t is the recipe's input). */
struct perm_recipe {
	struct ps_recipe base;	/* the weight's name; always the CPU */
	struct fp8_pt p;
};

static int perm_run(struct ps_recipe *base, qk_ctx *kc, const qir_tensor *in,
		    const void *src, void *const *dst, const char **step,
		    qir_error *err)
{
	struct perm_recipe *r = (struct perm_recipe *)base;

	(void)kc;
	(void)err;
	*step = "transpose";
	r->p.t = (qir_tensor *)in;
	return permute(NULL, src, dst[0], &r->p);
}

static qir_tensor *transposed(struct fp8_cfg *cfg, const struct fp8_pt *p,
			      const char *name, qir_error *err)
{
	/* No context: a permutation is the CPU's alone. */
	struct perm_recipe *r = ps_recipe_new(NULL, sizeof(*r), p->w->name,
					      perm_run, NULL);
	const qir_tensor_spec spec = { name, p->t->dtype, p->rank, p->dims };
	qir_tensor *out = NULL;

	if (!r) {
		qir_fail(err, QIR_ENOMEM, "out of memory");
		return NULL;
	}
	r->p = *p;
	if (ps_recipe_defer(cfg->m, &r->base, p->t, 0, &spec, 1, &out, err))
		return NULL;
	return out;
}

static int apply(struct fp8_cfg *cfg, struct fp8_pt *p)
{
	qir_error err = { 0 };
	qir_tensor *nt;
	char name[512];
	int rc;

	if (!fp8_pretranspose_gate(cfg, p))
		return 0;
	snprintf(name, sizeof(name), "%s_T", p->w->name);
	nt = p->t->nbytes ? transposed(cfg, p, name, &err) :
	     qir_tensor_new(name, p->t->dtype, p->rank, p->dims, &err);
	if (!nt)
		return fp8_fail(cfg, p->tr, &err);
	rc = fp8_pretranspose_finish(cfg, p, nt);
	if (rc > 0)
		fp8_erase_unused(cfg, p->w);
	return rc;
}

int fp8_pretranspose_dq(struct fp8_cfg *cfg, qir_node *dq)
{
	struct fp8_pt p;

	if (match(cfg, dq, &p) <= 0)
		return 0;
	return apply(cfg, &p);
}

/* One FP8 weight already stored (exported so, or compressed) whose DQ
 * feeds a Transpose. */
static int one(struct fp8_cfg *cfg, qir_node *dq, void *arg)
{
	const struct fp8_weight_opts *o = arg;
	struct fp8_pt p;

	if (match(cfg, dq, &p) <= 0)
		return 0;
	if (!o->compress) {
		fp8_skip(cfg, p.tr, "pre-transposes skipped",
			    "compress_weights = no");
		return 0;
	}
	return apply(cfg, &p);
}

int fp8_pretranspose(struct fp8_cfg *cfg,
			const struct fp8_weight_opts *o, int *changed)
{
	return fp8_each_weight_dq(cfg, one, (void *)o, NULL, changed);
}
