/*
 * passes/autocast/ranges.c - activation ranges from a calibration file
 * (`calibration = FILE`, or qopt's one-command --calibration-data): a
 * node whose input or output reaches beyond data_max over the samples
 * stays FLOAT, so a tensor the low type would turn to Inf is never
 * stored in it, and the readers of such a tensor stay FLOAT with it.
 * Body tensors are measured where `qopt calibrate` can hoist them (If
 * branches, and Loop bodies for tensors of a static shape,
 * docs/calibration.md); a body node with a tensor the file has no range
 * for is counted and said per body.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autocast.h"

/* Whether calibrate can measure tensors of g: the main graph's, or
 * those inside If branches and Loop bodies only, with no If inside a
 * Loop (iterations taking different branches would change the hoisted
 * scan output's shape: calibrate refuses it). *in_loop: inside a Loop,
 * where a tensor is stacked over the iterations. */
static int measurable(const qir_graph *g, int *in_loop)
{
	int in_if = 0;

	*in_loop = 0;
	for (; g->parent; g = g->parent) {
		const qir_node *p = g->parent_node;

		if (!p || !qir_domain_is_default(p->domain))
			return 0;
		if (qir_node_is(p, "If"))
			in_if = 1;
		else if (!qir_node_is(p, "Loop") || in_if)
			return 0;
		else
			*in_loop = 1;
	}
	return 1;
}

/* A FLOAT tensor worth asking for: inside a Loop only with a shape
 * known in full, which cannot change from one iteration to the next
 * (ONNX Runtime's stacking of the hoisted scan output needs that; a
 * growing tensor would fail the calibration). */
static int wanted(const qir_value *v, int in_loop)
{
	if (v->dtype != QIR_FLOAT || v->init)
		return 0;
	if (!in_loop)
		return 1;
	if (v->rank < 0)
		return 0;
	for (int i = 0; i < v->rank; i++)
		if (v->dims[i].value < 0)
			return 0;
	return 1;
}

struct want {
	qopt_ctx *ctx;
	qopt_status rc;
};

/* Every FLOAT tensor g computes or takes as input (constants have
 * their ranges in the model; captured values are their own graph's). */
static int want_graph(qir_graph *g, void *arg)
{
	struct want *w = arg;
	qir_node *n;
	size_t i;
	int in_loop;

	if (!measurable(g, &in_loop))
		return 0;
	for (i = 0; i < g->ninputs && w->rc == QOPT_OK; i++)
		if (wanted(g->inputs[i], in_loop))
			w->rc = qopt_want_range(w->ctx, g->inputs[i]);
	qir_graph_for_each_node(g, n) {
		if (qir_node_is(n, "Constant") || qir_node_is(n, "ConstantOfShape"))
			continue;
		for (i = 0; i < n->noutputs && w->rc == QOPT_OK; i++)
			if (n->outputs[i] && wanted(n->outputs[i], in_loop))
				w->rc = qopt_want_range(w->ctx, n->outputs[i]);
	}
	return w->rc != QOPT_OK;
}

/* What `qopt calibrate` measures for autocast: want_graph over the main
 * graph and every body it can measure. */
qopt_status autocast_calibration_targets(qopt_ctx *ctx, qir_model *m)
{
	struct want w = { ctx, QOPT_OK };

	(void)qir_graph_walk(m->graph, want_graph, &w);
	return w.rc;
}

int autocast_ranges_load(struct autocast_cfg *cfg, const char *path)
{
	qir_error err = { 0 };
	char hash[32];

	if (!path || !*path) {
		qopt_info(cfg->ctx, "activation ranges not checked: no "
			  "calibration (give --calibration-data DIR, or "
			  "calibration = FILE from `qopt calibrate --passes "
			  "autocast`)");
		return 0;
	}
	if (qopt_calib_read(path, &cfg->cal, &err)) {
		qopt_error(cfg->ctx, "calibration file %s", err.msg);
		return -1;
	}
	if (!qir_model_hash_is(cfg->m, qopt_calib_model_hash(cfg->cal))) {
		snprintf(hash, sizeof(hash), "%016llx",
			 (unsigned long long)qir_model_hash(cfg->m));
		qopt_error(cfg->ctx, "calibration file '%s' is for model hash "
			   "%s, this model's is %s: it was made for another "
			   "model, or for this one before it changed (calibrate "
			   "the model autocast receives)", path,
			   qopt_calib_model_hash(cfg->cal), hash);
		return -1;
	}
	if (qopt_calib_bind(cfg->cal, cfg->m)) {
		qopt_error(cfg->ctx, "out of memory");
		return -1;
	}
	return 0;
}

/* The first T value of r beyond data_max, with its amax, or NULL. */
static const qir_value *beyond(struct autocast_cfg *cfg, struct autocast_node *r,
			       double *amax)
{
	const qir_node *n = r->n;
	int body = n->graph != cfg->m->graph;
	size_t i;

	for (i = 0; i < n->ninputs + n->noutputs; i++) {
		int in = i < n->ninputs;
		const qir_value *v = in ? n->inputs[i] : n->outputs[i - n->ninputs];
		double e_amax;

		if (!v || !ps_slot(in ? r->op->t_in : r->op->t_out,
				   in ? i : i - n->ninputs))
			continue;
		if (qopt_calib_find_value(cfg->cal, cfg->m, v, &e_amax)) {
			/* a body's tensor calibrate did not measure */
			r->unranged |= body && !qir_value_const((qir_value *)v);
			continue;
		}
		if (!(e_amax <= cfg->data_max)) {
			*amax = e_amax;
			return v;
		}
	}
	return NULL;
}

int autocast_ranges_fit(struct autocast_cfg *cfg, struct autocast_node *r,
		  const struct ps_skip_kind *kind)
{
	const qir_value *v;
	double amax;

	if (!cfg->cal || !(v = beyond(cfg, r, &amax)))
		return 1;
	ps_skip_set(&r->why, kind, "activation '%s' reaches |x| = %g over "
		    "the calibration samples, beyond data_max %g", v->name,
		    amax, cfg->data_max);
	return 0;
}
