/*
 * passes/autocast/fuse_rms.c - decomposed RMSNorm fused into
 * RMSNormalization (opset 23) before the conversion. Torch exports
 * (LLaMA-style models' RMSNorm below opset 23) write it as
 *     s = Sqrt(Add(ReduceMean(Pow(x, 2)), eps))
 *     y = Mul(x, Div(1, s))  or  Mul(x, Reciprocal(s))  or  Div(x, s)
 *     [; Mul(y, gamma)]
 * whose mean of squares overflows FLOAT16 for activations past 256, as
 * LayerNorm's variance does (fuse.c); TensorRT computes the fused
 * normalization in FLOAT inside the layer. A unit that cannot be fused
 * (an inner tensor read outside it, axes that are not the last ones, no
 * opset 23, dynamic normalized dims without gamma) stays FLOAT whole,
 * with the reason. A LayerNorm's tail (Pow of a centred input) is
 * fuse.c's, never matched here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autocast.h"

struct rms_unit {
	qir_node *pow, *mean, *add, *sqrt, *inv, *norm, *mul;
	qir_value *x, *gamma;
	double eps;
	int64_t axis;
};

/* The scalar operand of the two-input node n other than v, or 0. */
static int other_scalar(qir_node *n, const qir_value *v, double *out)
{
	if (n->ninputs != 2)
		return 0;
	return autocast_scalar(n->inputs[n->inputs[0] == v ? 1 : 0], out);
}

/* v's producer when it is op, whatever reads v. */
static qir_node *prod(qir_value *v, const char *op)
{
	return v && v->producer && qir_node_is(v->producer, op) ?
	       v->producer : NULL;
}

/* An inner tensor of the unit read outside it (or a graph output):
 * fusing would drop that reader. */
static int inner_shared(const struct rms_unit *u)
{
	qir_node *const in[] = { u->pow, u->mean, u->add, u->inv };

	for (size_t i = 0; i < sizeof(in) / sizeof(*in); i++)
		if (in[i] && (in[i]->outputs[0]->nuses != 1 ||
			      in[i]->outputs[0]->is_output))
			return 1;
	return u->sqrt->outputs[0]->nuses != 1 || u->sqrt->outputs[0]->is_output;
}

/* y = x * (1 / s), x * Reciprocal(s) or x / s, the first reader of s
 * that is one: the node making y (and in *inv the inverse). */
static qir_node *normalizer(qir_value *s, qir_value *x, qir_node **inv)
{
	for (size_t k = 0; k < s->nuses; k++) {
		qir_node *d = s->uses[k].node, *m;
		qir_value *r;
		double one;

		*inv = NULL;
		if (qir_node_is(d, "Div") && d->ninputs == 2 &&
		    d->inputs[1] == s && d->inputs[0] == x)
			return d;
		if (!(qir_node_is(d, "Div") && d->ninputs == 2 &&
		      d->inputs[1] == s && autocast_scalar(d->inputs[0], &one) &&
		      one == 1.0) && !qir_node_is(d, "Reciprocal"))
			continue;
		r = d->outputs[0];
		for (size_t j = 0; r && j < r->nuses; j++) {
			m = r->uses[j].node;
			if (qir_node_is(m, "Mul") && m->ninputs == 2 &&
			    m->inputs[1 - r->uses[j].index] == x) {
				*inv = d;
				return m;
			}
		}
	}
	return NULL;
}

/* x = Sub(z, ReduceMean(z)): a LayerNorm's centred input. */
static int centred(qir_value *x)
{
	qir_node *sub = prod(x, "Sub"), *m;

	m = sub && sub->ninputs == 2 ? prod(sub->inputs[1], "ReduceMean") :
	    NULL;
	return m && m->inputs[0] == sub->inputs[0];
}

/* The unit whose Sqrt is sq: 1 matched, -1 matched but not fusible
 * (*why), 0 not one. */
static int match(qir_node *sq, struct rms_unit *u, const char **why)
{
	qir_value *y;
	double two;

	memset(u, 0, sizeof(*u));
	*why = NULL;
	u->sqrt = sq;
	u->add = prod(sq->inputs[0], "Add");
	if (!u->add || u->add->ninputs != 2)
		return 0;
	u->mean = prod(u->add->inputs[0], "ReduceMean");
	if (!u->mean)
		u->mean = prod(u->add->inputs[1], "ReduceMean");
	if (!u->mean || !other_scalar(u->add, u->mean->outputs[0], &u->eps))
		return 0;
	u->pow = prod(u->mean->inputs[0], "Pow");
	if (!u->pow || !autocast_scalar(u->pow->inputs[1], &two) || two != 2.0)
		return 0;
	u->x = u->pow->inputs[0];
	if (centred(u->x))
		return 0;	/* a LayerNorm's: fuse.c's */
	u->norm = normalizer(sq->outputs[0], u->x, &u->inv);
	if (!u->norm)
		return 0;
	if (inner_shared(u)) {
		*why = "an inner tensor has readers outside the RMSNorm";
		return -1;
	}
	if (u->x->rank <= 0 || u->x->dtype != QIR_FLOAT) {
		*why = "its input's rank or type is not known";
		return -1;
	}
	u->axis = autocast_mean_axis(u->mean, u->x->rank);
	if (u->axis < 0) {
		*why = "it does not normalize over the last axes";
		return -1;
	}
	y = u->norm->outputs[0];
	if (y && y->nuses == 1 && !y->is_output &&
	    qir_node_is(y->uses[0].node, "Mul") && qir_value_const(
		    y->uses[0].node->inputs[1 - y->uses[0].index])) {
		u->mul = y->uses[0].node;
		u->gamma = u->mul->inputs[1 - y->uses[0].index];
	}
	return 1;
}

/* The Constant node making the unit's scalar operand of n, if any. */
static qir_node *constant_of(qir_node *n, const qir_node *unit_in)
{
	for (size_t i = 0; n && i < n->ninputs; i++) {
		qir_value *v = n->inputs[i];

		if (v && v->producer && v->producer != unit_in &&
		    qir_node_is(v->producer, "Constant"))
			return v->producer;
	}
	return NULL;
}

/* The unit's nodes, last first, then the Constants (2, eps, 1) only it
 * read. */
static int erase_unit(struct autocast_cfg *cfg, const struct rms_unit *u)
{
	qir_node *const order[] = { u->mul, u->norm, u->inv, u->sqrt, u->add,
				    u->mean, u->pow };
	qir_node *consts[] = { constant_of(u->pow, NULL),
			       constant_of(u->add, u->mean),
			       u->inv ? constant_of(u->inv, u->sqrt) : NULL };
	qir_error err = { 0 };
	size_t i;

	for (i = 0; i < sizeof(order) / sizeof(*order); i++)
		if (order[i] && qir_node_erase(order[i], &err))
			goto fail;
	for (i = 0; i < sizeof(consts) / sizeof(*consts); i++)
		if (consts[i] && consts[i]->outputs[0] &&
		    !consts[i]->outputs[0]->nuses &&
		    !consts[i]->outputs[0]->is_output &&
		    qir_node_erase(consts[i], &err))
			goto fail;
	return 0;
fail:
	qopt_error(cfg->ctx, "%s", err.msg);
	return -1;
}

/* 1 fused, 0 not (dynamic normalized dims without gamma), -1 failed. */
static int fuse(struct autocast_cfg *cfg, const struct rms_unit *u)
{
	qir_node *last = u->mul ? u->mul : u->norm, *n;
	qir_value *out = last->outputs[0], *scale = u->gamma;
	qir_error err = { 0 };
	char *name;

	if (!scale && !(scale = autocast_norm_ones(cfg, u->x, u->axis)))
		return 0;
	n = qir_node_new(cfg->m->graph, "RMSNormalization", NULL,
			 u->sqrt->name[0] ? u->sqrt->name : "RMSNorm");
	if (!n || qir_node_add_input(n, u->x) || qir_node_add_input(n, scale) ||
	    qir_node_set_attr_int(n, "axis", u->axis) ||
	    qir_node_set_attr_float(n, "epsilon", (float)u->eps) ||
	    !qir_node_add_output(n, NULL, out->name) ||
	    qir_value_copy_shape(n->outputs[0], out, out->dtype, NULL) ||
	    qir_value_replace_all_uses(out, n->outputs[0]) ||
	    !(name = strdup(out->name))) {
		qopt_error(cfg->ctx, "out of memory");
		return -1;
	}
	qir_node_move_after(n, last);
	cfg->rms_fused++;
	/* the unit goes; the output keeps its name (a graph output, a
	 * calibration range) */
	if (erase_unit(cfg, u) || qir_value_rename(n->outputs[0], name, &err)) {
		if (err.msg[0])
			qopt_error(cfg->ctx, "%s", err.msg);
		free(name);
		return -1;
	}
	free(name);
	return 1;
}

static int keep_nodes(const struct rms_unit *u, qir_node ***keep,
		      size_t *nkeep)
{
	qir_node *const all[] = { u->pow, u->mean, u->add, u->sqrt, u->inv,
				  u->norm, u->mul };
	size_t n = sizeof(all) / sizeof(*all);
	qir_node **g = realloc(*keep, (*nkeep + n) * sizeof(*g));

	if (!g)
		return -1;
	*keep = g;
	for (size_t i = 0; i < n; i++)
		if (all[i])
			g[(*nkeep)++] = all[i];
	return 0;
}

/* The opset 23 RMSNormalization needs, raised once when upgrade allows;
 * 1 when the model has it. */
static int opset_ok(struct autocast_cfg *cfg)
{
	if (cfg->opset >= 23)
		return 1;
	if (!cfg->upgrade || qopt_require_opset(cfg->ctx, 23,
						"RMSNormalization") != QOPT_OK)
		return 0;
	cfg->opset = qir_model_opset(cfg->m, "");
	return 1;
}

int autocast_fuse_rms(struct autocast_cfg *cfg, qir_node ***keep,
		      size_t *nkeep)
{
	qir_node **v = NULL;
	size_t i, n = 0;
	int64_t unfused = 0;
	int rc = 0;

	if (qir_graph_nodes(cfg->m->graph, NULL, "Sqrt", 0, &v, &n, NULL))
		return qopt_error(cfg->ctx, "out of memory"), -1;
	for (i = 0; i < n && rc >= 0; i++) {
		struct rms_unit u;
		const char *why;
		int m = match(v[i], &u, &why);

		if (m == 0)
			continue;
		if (m > 0 && !opset_ok(cfg))
			why = "RMSNormalization needs opset 23";
		if (m > 0 && !why && qopt_may_rewrite(cfg->ctx,
				"fuse the RMSNorm at '%s'", v[i]->name)) {
			rc = fuse(cfg, &u);
			if (rc != 0)
				continue;
			why = "its normalized dims are not static";
		}
		if (!why)
			continue;	/* bisect declined: left as it is */
		qopt_info(cfg->ctx, "decomposed RMSNorm at %s not fused: %s; "
			  "kept FLOAT as a unit", QIR_NODE_LABEL(v[i]), why);
		unfused++;
		if (keep_nodes(&u, keep, nkeep) < 0) {
			qopt_error(cfg->ctx, "out of memory");
			rc = -1;
		}
	}
	free(v);
	if (rc >= 0 && unfused)
		qopt_stat_add(cfg->ctx, "decomposed norms kept FLOAT", unfused);
	if (rc >= 0 && cfg->rms_fused)
		qopt_info(cfg->ctx, "%llu decomposed RMSNorm(s) fused into "
			  "RMSNormalization",
			  (unsigned long long)cfg->rms_fused);
	return rc < 0 ? -1 : 0;
}
