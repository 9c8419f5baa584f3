/*
 * passes/autocast/fuse.c - decomposed LayerNorm fused into
 * LayerNormalization (opset 17) before the conversion. Torch exports
 * below opset 17 write a LayerNorm as
 *     m = ReduceMean(x); d = Sub(x, m); v = ReduceMean(Pow(d, 2));
 *     y = Div(d, Sqrt(Add(v, eps))) [; Mul(y, gamma)] [; Add(., beta)]
 * whose variance, a mean of squares, overflows FLOAT16 for activations
 * past 256. TensorRT computes LayerNormalization in FLOAT inside the
 * layer whatever its type, so fused it is safe in the low type. A unit
 * that cannot be fused (another reader of an inner tensor, axes that
 * are not the last ones, no opset 17) is kept FLOAT whole, with the
 * reason.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autocast.h"

struct ln_unit {
	qir_node *mean, *sub, *pow, *var, *add, *sqrt, *div, *mul, *bias;
	qir_value *x, *gamma, *beta;
	double eps;
	int64_t axis;		/* the first normalized axis, >= 0 */
};

/* The one producer of v when it is op and v has exactly uses readers
 * (and is no graph output). */
qir_node *autocast_made_by(qir_value *v, const char *op, size_t uses)
{
	if (!v || !v->producer || !qir_node_is(v->producer, op) ||
	    v->nuses != uses || v->is_output)
		return NULL;
	return v->producer;
}

int autocast_scalar(qir_value *v, double *out)
{
	qir_tensor *t = v ? qir_value_const(v) : NULL;
	qir_error err = { 0 };

	return t && qir_tensor_numel(t) == 1 &&
	       qir_tensor_get_f64(t, 0, out, &err) == 0;
}

/* ReduceMean's axes as the first of a suffix of x's axes: >= 0, or -1
 * when they are not the last ones or keepdims is 0. */
int64_t autocast_mean_axis(qir_node *r, int rank)
{
	const qir_attr *a = qir_node_attr(r, "axes");
	int64_t first = rank, ax;
	size_t i, n;
	qir_tensor *t = NULL;
	qir_error err = { 0 };

	if (qir_node_attr_int(r, "keepdims", 1) != 1 || rank <= 0)
		return -1;
	if (!a && r->ninputs > 1 && r->inputs[1])
		t = qir_value_const(r->inputs[1]);
	n = a ? a->n : t ? (size_t)qir_tensor_numel(t) : 0;
	if (!n)
		return -1;
	for (i = 0; i < n; i++) {
		if (a)
			ax = a->ints[i];
		else if (qir_tensor_get_i64(t, i, &ax, &err))
			return -1;
		ax = ax < 0 ? ax + rank : ax;
		if (ax < 0 || ax >= rank)
			return -1;
		first = ax < first ? ax : first;
	}
	return (int64_t)n == rank - first ? first : -1;
}

/* The unit whose Div is div, or 0 with *why when it is not one. */
static int match(qir_node *div, struct ln_unit *u, const char **why)
{
	qir_value *d, *y;
	double two;

	memset(u, 0, sizeof(*u));
	*why = NULL;
	if (!qir_node_is(div, "Div") || div->ninputs != 2)
		return 0;
	d = div->inputs[0];
	u->div = div;
	u->sqrt = autocast_made_by(div->inputs[1], "Sqrt", 1);
	u->add = u->sqrt ? autocast_made_by(u->sqrt->inputs[0], "Add", 1) : NULL;
	if (!u->add)
		return 0;
	u->var = autocast_made_by(u->add->inputs[0], "ReduceMean", 1);
	if (!u->var || !autocast_scalar(u->add->inputs[1], &u->eps))
		return 0;
	u->pow = autocast_made_by(u->var->inputs[0], "Pow", 1);
	if (!u->pow || u->pow->inputs[0] != d || !autocast_scalar(u->pow->inputs[1], &two) ||
	    two != 2.0)
		return 0;
	u->sub = autocast_made_by(d, "Sub", 2);
	if (!u->sub && d && d->producer && qir_node_is(d->producer, "Sub")) {
		/* the unit is there, but fusing would drop a reader */
		u->sub = d->producer;
		u->mean = autocast_made_by(u->sub->inputs[1], "ReduceMean", 1);
		*why = "the centred input has readers outside the LayerNorm";
		return -1;
	}
	u->mean = u->sub ? autocast_made_by(u->sub->inputs[1], "ReduceMean", 1) : NULL;
	if (!u->sub)
		return 0;
	if (!u->mean || u->mean->inputs[0] != u->sub->inputs[0])
		return 0;
	u->x = u->sub->inputs[0];
	if (u->x->rank <= 0 || u->x->dtype != QIR_FLOAT) {
		*why = "its input's rank or type is not known";
		return -1;
	}
	u->axis = autocast_mean_axis(u->mean, u->x->rank);
	if (u->axis < 0 || autocast_mean_axis(u->var, u->x->rank) != u->axis) {
		*why = "it does not normalize over the last axes";
		return -1;
	}
	y = div->outputs[0];
	if (y && y->nuses == 1 && !y->is_output &&
	    qir_node_is(y->uses[0].node, "Mul") && qir_value_const(
		    y->uses[0].node->inputs[1 - y->uses[0].index])) {
		u->mul = y->uses[0].node;
		u->gamma = u->mul->inputs[1 - y->uses[0].index];
		y = u->mul->outputs[0];
	}
	if (u->mul && y && y->nuses == 1 && !y->is_output &&
	    qir_node_is(y->uses[0].node, "Add") && qir_value_const(
		    y->uses[0].node->inputs[1 - y->uses[0].index])) {
		u->bias = y->uses[0].node;
		u->beta = u->bias->inputs[1 - y->uses[0].index];
	}
	return 1;
}

qir_value *autocast_norm_ones(struct autocast_cfg *cfg, const qir_value *x,
			      int64_t axis)
{
	int64_t dims[8];
	int r = x->rank - (int)axis, i;
	qir_error err = { 0 };
	qir_tensor *t;
	float *p;

	if (r > 8)
		return NULL;
	for (i = 0; i < r; i++) {
		dims[i] = x->dims[axis + i].value;
		if (dims[i] < 0)
			return NULL;
	}
	t = qir_tensor_new("ln_ones", QIR_FLOAT, r, dims, &err);
	p = t ? qir_tensor_mutable_data(t, &err) : NULL;
	if (!p) {
		qir_tensor_free(t);
		return NULL;
	}
	for (uint64_t k = 0; k < qir_tensor_numel(t); k++)
		p[k] = 1.0f;
	return qir_graph_add_initializer(cfg->m->graph, t);
}

/* The unit's nodes, last first: each one's readers are gone before it. */
static int erase_unit(struct autocast_cfg *cfg, const struct ln_unit *u)
{
	qir_node *const order[] = { u->bias, u->mul, u->div, u->sqrt, u->add,
				    u->var, u->pow, u->sub, u->mean };
	qir_error err = { 0 };
	size_t i;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (order[i] && qir_node_erase(order[i], &err)) {
			qopt_error(cfg->ctx, "%s", err.msg);
			return -1;
		}
	return 1;
}

/* The unit goes and the LayerNormalization's output takes the name of
 * the unit's (a graph output keeps its name; a calibration file's range
 * for it still applies). */
static int keep_name(struct autocast_cfg *cfg, qir_value *y, const char *name,
		     const struct ln_unit *u)
{
	char *keep = strdup(name);
	qir_error err = { 0 };
	int rc;

	if (!keep) {
		qopt_error(cfg->ctx, "out of memory");
		return -1;
	}
	rc = erase_unit(cfg, u);
	if (rc > 0 && qir_value_rename(y, keep, &err)) {
		qopt_error(cfg->ctx, "%s", err.msg);
		rc = -1;
	}
	free(keep);
	return rc;
}

static int fuse(struct autocast_cfg *cfg, struct ln_unit *u)
{
	qir_node *last = u->bias ? u->bias : u->mul ? u->mul : u->div, *ln;
	qir_value *out = last->outputs[0], *scale = u->gamma;

	if (!scale && !(scale = autocast_norm_ones(cfg, u->x, u->axis)))
		return 0;	/* dynamic normalized dims: left as it is */
	ln = qir_node_new(cfg->m->graph, "LayerNormalization", NULL,
			  u->div->name[0] ? u->div->name : "LayerNorm");
	if (!ln || qir_node_add_input(ln, u->x) ||
	    qir_node_add_input(ln, scale) ||
	    (u->beta && qir_node_add_input(ln, u->beta)) ||
	    qir_node_set_attr_int(ln, "axis", u->axis) ||
	    qir_node_set_attr_float(ln, "epsilon", (float)u->eps) ||
	    !qir_node_add_output(ln, NULL, out->name) ||
	    qir_value_copy_shape(ln->outputs[0], out, out->dtype, NULL) ||
	    qir_value_replace_all_uses(out, ln->outputs[0])) {
		qopt_error(cfg->ctx, "out of memory");
		return -1;
	}
	qir_node_move_after(ln, last);
	cfg->fused++;
	return keep_name(cfg, ln->outputs[0], out->name, u);
}

/* The unit's nodes found go on the keep list: decide() keeps each
 * FLOAT, so the unit stays FLOAT whole. */
static int keep_nodes(const struct ln_unit *u, qir_node ***keep,
		      size_t *nkeep)
{
	qir_node *const all[] = { u->mean, u->sub, u->pow, u->var, u->add,
				  u->sqrt, u->div, u->mul, u->bias };
	qir_node **g = realloc(*keep, (*nkeep + 9) * sizeof(*g));
	size_t i;

	if (!g)
		return -1;
	*keep = g;
	for (i = 0; i < 9; i++)
		if (all[i])
			g[(*nkeep)++] = all[i];
	return 0;
}

/* Says why the unit at div stays FLOAT. */
static void keep_unit(struct autocast_cfg *cfg, qir_node *div, const char *why)
{
	qopt_info(cfg->ctx, "decomposed LayerNorm at %s not fused: %s; kept "
		  "FLOAT as a unit", QIR_NODE_LABEL(div), why);
	cfg->unfused++;
}

int autocast_fuse_norms(struct autocast_cfg *cfg, qir_node ***keep, size_t *nkeep)
{
	qir_node **v = NULL;
	size_t i, n = 0;
	int rc = 0, opset_ok = cfg->opset >= 17;

	*keep = NULL;
	*nkeep = 0;
	if (qir_graph_nodes(cfg->m->graph, NULL, "Div", 0, &v, &n, NULL))
		return qopt_error(cfg->ctx, "out of memory"), -1;
	for (i = 0; i < n && rc >= 0; i++) {
		struct ln_unit u;
		const char *why;
		int m = match(v[i], &u, &why);

		if (m == 0)
			continue;
		if (m > 0 && !opset_ok && cfg->upgrade &&
		    qopt_require_opset(cfg->ctx, 17, "LayerNormalization") ==
		    QOPT_OK) {
			opset_ok = 1;
			cfg->opset = qir_model_opset(cfg->m, "");
		}
		if (m > 0 && !opset_ok)
			why = "LayerNormalization needs opset 17";
		if (m > 0 && opset_ok && qopt_may_rewrite(cfg->ctx,
				"fuse the LayerNorm at '%s'", v[i]->name)) {
			rc = fuse(cfg, &u);
			if (rc != 0)
				continue;
			why = "its normalized dims are not static";
		}
		if (!why)
			continue;	/* bisect declined: left as it is */
		keep_unit(cfg, v[i], why);
		if (keep_nodes(&u, keep, nkeep) < 0) {
			qopt_error(cfg->ctx, "out of memory");
			rc = -1;
		}
	}
	free(v);
	if (rc >= 0 && cfg->unfused)
		qopt_stat_add(cfg->ctx, "decomposed norms kept FLOAT",
			      (int64_t)cfg->unfused);
	if (rc >= 0 && cfg->fused) {
		qopt_info(cfg->ctx, "%llu decomposed LayerNorm(s) fused into "
			  "LayerNormalization", (unsigned long long)cfg->fused);
	}
	return rc < 0 ? -1 : 0;
}
