/*
 * passes/autocast/decide.c - which nodes of the model compute in the
 * low type: the main graph's and those of If/Loop/Scan bodies at any
 * depth, by the same rules. A node goes low when it computes in FLOAT today, its
 * op is in the table (passes/support/float_ops.c) at the model's opset
 * (raised where that is the fix and upgrade allows it), the targets
 * select it, and no rule keeps it FLOAT: a weight beyond the low type's range, a reduction
 * deeper than max_reduction. Each node kept FLOAT is said with its
 * reason.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autocast.h"

static const struct ps_skip_kind skip_no_op = {
	"kept FLOAT (no low-precision form)", PS_SKIP_INFO
};
static const struct ps_skip_kind skip_opset = {
	"kept FLOAT (opset)", PS_SKIP_WARN
};
static const struct ps_skip_kind skip_untyped = {
	"kept FLOAT (untyped input)", PS_SKIP_INFO
};
static const struct ps_skip_kind skip_range = {
	"kept FLOAT (weight beyond range)", PS_SKIP_INFO
};
static const struct ps_skip_kind skip_unfused = {
	"kept FLOAT (norm not fused)", PS_SKIP_INFO
};
static const struct ps_skip_kind skip_data = {
	"kept FLOAT (activation beyond range)", PS_SKIP_INFO
};
static const struct ps_skip_kind skip_measured = {
	"kept FLOAT (measured error)", PS_SKIP_INFO
};
static const struct ps_skip_kind skip_reduction = {
	"kept FLOAT (deep reduction)", PS_SKIP_INFO
};

static int by_node(const void *a, const void *b)
{
	const struct autocast_node *x = a, *y = b;

	return x->n < y->n ? -1 : x->n > y->n;
}

struct autocast_node *autocast_node_of(struct autocast_cfg *cfg, const qir_node *n)
{
	struct autocast_node key = { .n = (qir_node *)n };

	return bsearch(&key, cfg->nodes, cfg->nnodes, sizeof(key), by_node);
}

/* The float type the node computes in today: FLOAT when a T slot holds
 * FLOAT and none holds another type; else QIR_UNDEFINED (left alone). */
static int float_node(const struct ps_float_op *op, const qir_node *n,
		      const char **untyped)
{
	int seen = 0;
	size_t i;

	*untyped = NULL;
	for (i = 0; i < n->ninputs; i++) {
		qir_value *v = n->inputs[i];
		int t;

		if (!v || !ps_slot(op->t_in, i))
			continue;
		t = qir_value_elem_type(v);
		if (t == QIR_FLOAT)
			seen = 1;
		else if (t == QIR_UNDEFINED)
			*untyped = v->name;
		else
			return 0;
	}
	for (i = 0; i < n->noutputs; i++) {
		qir_value *v = n->outputs[i];

		if (!v || !ps_slot(op->t_out, i))
			continue;
		if (v->dtype == QIR_FLOAT)
			seen = 1;
		else if (v->dtype != QIR_UNDEFINED)
			return 0;
	}
	return seen;
}

/* A FLOAT input that holds a value outside any op's own type
 * (a Cast's input, an op outside the table): is it FLOAT math? */
static int computes_float(const qir_node *n)
{
	size_t i;

	for (i = 0; i < n->noutputs; i++)
		if (n->outputs[i] && n->outputs[i]->dtype == QIR_FLOAT)
			return 1;
	return 0;
}

static int selected(struct autocast_cfg *cfg, struct autocast_node *r)
{
	qir_node *n = r->n;
	const char *names[2];
	int in, ex;

	names[0] = n->name;
	names[1] = n->noutputs && n->outputs[0] ? n->outputs[0]->name : NULL;
	in = ps_globs_match(&cfg->tg.include, names, 2);
	ex = ps_globs_match(&cfg->tg.exclude, names, 2);
	if (cfg->tg.nop_types && !ps_targets_op(&cfg->tg, n->op_type))
		ps_skip_set(&r->why, &ps_skip_op_type,
			    "op type %s not in op_types", n->op_type);
	else if (ex >= 0)
		ps_skip_set(&r->why, &ps_skip_excluded, "excluded by '%s'",
			    cfg->tg.exclude.pat[ex]);
	else if (in < 0)
		ps_skip_set(&r->why, &ps_skip_not_included,
			    "no include pattern matches");
	return r->why.kind == NULL;
}

/* Elements the reduction of n sums over, or -1 when the shape does
 * not say. */
static int64_t reduction_depth(struct autocast_cfg *cfg, const qir_node *n)
{
	qir_value *x = n->inputs[0];
	const qir_attr *axes = qir_node_attr(n, "axes");
	int64_t depth = 1, axis;
	int r, i;

	if (!x || x->rank < 0)
		return -1;
	r = x->rank;
	if (qir_node_is(n, "Softmax") || qir_node_is(n, "LogSoftmax")) {
		axis = qir_node_attr_int(n, "axis", cfg->opset >= 13 ? -1 : 1);
		axis = axis < 0 ? axis + r : axis;
		if (axis < 0 || axis >= r)
			return -1;
		/* before opset 13 the input is flattened from axis on */
		for (i = (int)axis; i < (cfg->opset >= 13 ? axis + 1 : r); i++) {
			if (x->dims[i].value < 0)
				return -1;
			depth *= x->dims[i].value;
		}
		return depth;
	}
	if (n->ninputs > 1 && n->inputs[1])
		return -1;	/* axes as an input (opset 18) */
	for (i = 0; i < r; i++) {
		int in_axes = !axes;

		for (size_t k = 0; axes && k < axes->n; k++)
			in_axes |= axes->ints[k] == i ||
				   axes->ints[k] + r == i;
		if (!in_axes)
			continue;
		if (x->dims[i].value < 0)
			return -1;
		depth *= x->dims[i].value;
	}
	return depth;
}

/* Weights beyond the low type's range keep the node FLOAT. */
static int weights_fit(struct autocast_cfg *cfg, struct autocast_node *r)
{
	qir_node *n = r->n;
	size_t i;

	for (i = 0; i < n->ninputs; i++) {
		qir_value *v = n->inputs[i];
		qir_error err = { 0 };
		uint64_t z, s;
		float amax;

		qir_tensor *t = v && ps_slot(r->op->t_in, i) ?
				qir_value_const(v) : NULL;

		/* initializers and Constant nodes alike */
		if (!t || t->dtype != QIR_FLOAT)
			continue;
		if (autocast_weight_scan(cfg, t, &amax, &z, &s, &err) < 0) {
			qopt_error(cfg->ctx, "weight '%s': %s", v->name,
				   err.msg);
			return -1;
		}
		if (cfg->clamp)
			continue;	/* clamped when converted, counted */
		if (!(amax <= cfg->init_max)) {
			ps_skip_set(&r->why, &skip_range,
				    "weight '%s' reaches |x| = %g, beyond "
				    "init_max %g", v->name, amax,
				    cfg->init_max);
			return 0;
		}
	}
	return 1;
}

static int since(const struct autocast_cfg *cfg, const struct ps_float_op *op)
{
	return cfg->low == QIR_FLOAT16 ? op->fp16_since : op->bf16_since;
}

/* If, Loop, Scan: a node holding a graph. */
static int has_body(const qir_node *n)
{
	for (size_t i = 0; i < n->nattrs; i++)
		if (n->attrs[i].type == QIR_ATTR_GRAPH ||
		    n->attrs[i].type == QIR_ATTR_GRAPHS)
			return 1;
	return 0;
}

/* The first rules, before the opset: op and types. */
static void classify(struct autocast_cfg *cfg, struct autocast_node *r)
{
	qir_node *n = r->n;
	const char *untyped;

	r->op = qir_domain_is_default(n->domain) ? ps_float_op_find(n->op_type) :
		NULL;
	if (!r->op && has_body(n)) {
		/* It computes nothing itself: its body's nodes are decided
		 * one by one (they are in the snapshot), and what the body
		 * takes or gives keeps its type, so the node's own inputs
		 * and outputs stay as they are. */
		r->body = 1;
		return;
	}
	if (!r->op) {
		/* Casts and Constants are data, not computation: the
		 * rewrite retypes them where their readers are low. */
		r->candidate = !qir_node_is(n, "Cast") &&
			       !qir_node_is(n, "Constant") &&
			       !qir_node_is(n, "ConstantOfShape") &&
			       computes_float(n);
		if (r->candidate)
			ps_skip_set(&r->why, &skip_no_op,
				    "%s%s%s has no %s form in autocast's op "
				    "table", n->domain, n->domain[0] ? "::" : "",
				    n->op_type, cfg->low_name);
		return;
	}
	r->candidate = float_node(r->op, n, &untyped);
	for (size_t k = 0; r->candidate && k < cfg->nkeep; k++)
		if (cfg->keep[k] == n)
			ps_skip_set(&r->why, &skip_unfused,
				    "part of a decomposed LayerNorm or RMSNorm "
				    "that could not be fused: the unit stays "
				    "FLOAT whole");
	if (r->candidate) {
		struct autocast_kept *k = autocast_keep_find(cfg, n);

		if (k)
			k->used = 1;
		if (k && !r->why.kind)
			ps_skip_set(&r->why, &skip_measured, "%s", k->why);
	}
	if (r->candidate && untyped && !r->why.kind)
		ps_skip_set(&r->why, &skip_untyped,
			    "input '%s' has no known type", untyped);
}

/* Raises the opset to what the selected ops need, or keeps the ones
 * that need more FLOAT. */
static void need_opset(struct autocast_cfg *cfg)
{
	int need = 0;
	qopt_status rc = QOPT_EPOLICY;
	size_t i;

	for (i = 0; i < cfg->nnodes; i++) {
		struct autocast_node *r = &cfg->nodes[i];

		if (r->candidate && !r->why.kind && since(cfg, r->op) > need)
			need = since(cfg, r->op);
	}
	if (need <= cfg->opset)
		return;
	if (cfg->upgrade) {
		char why[64];

		snprintf(why, sizeof(why), "%s computation", cfg->low_name);
		rc = qopt_require_opset(cfg->ctx, need, why);
	}
	if (rc == QOPT_OK) {
		cfg->opset = qir_model_opset(cfg->m, "");
		return;
	}
	for (i = 0; i < cfg->nnodes; i++) {
		struct autocast_node *r = &cfg->nodes[i];

		if (r->candidate && !r->why.kind && since(cfg, r->op) > cfg->opset)
			ps_skip_set(&r->why, &skip_opset,
				    "%s %s needs opset %d, the model has %lld%s",
				    cfg->low_name, r->n->op_type,
				    since(cfg, r->op), (long long)cfg->opset,
				    cfg->upgrade ? " and it could not be raised" :
				    " (upgrade = no)");
	}
}

static int rules(struct autocast_cfg *cfg, struct autocast_node *r)
{
	int64_t depth;
	int fit;

	if (!r->candidate || r->why.kind || !selected(cfg, r))
		return 0;
	if (r->op->reduces && cfg->max_reduction > 0) {
		depth = reduction_depth(cfg, r->n);
		if (depth < 0 || depth > cfg->max_reduction) {
			if (depth < 0)
				ps_skip_set(&r->why, &skip_reduction,
					    "reduces over an axis of unknown "
					    "length (max_reduction %lld)",
					    (long long)cfg->max_reduction);
			else
				ps_skip_set(&r->why, &skip_reduction,
					    "reduces over %lld elements, more "
					    "than max_reduction %lld",
					    (long long)depth,
					    (long long)cfg->max_reduction);
			return 0;
		}
	}
	if (!autocast_ranges_fit(cfg, r, &skip_data))
		return 0;
	fit = weights_fit(cfg, r);
	if (fit < 0)
		return -1;
	r->low = fit;
	return 0;
}

/* A fresh record of every node of the model, bodies included (the
 * records are found by address: a node's graph says where it is). */
static int snapshot(struct autocast_cfg *cfg)
{
	qir_node **v = NULL;
	size_t i, n = 0;

	free(cfg->nodes);
	cfg->nodes = NULL;
	cfg->nnodes = 0;
	if (qir_graph_nodes(cfg->m->graph, NULL, NULL, 1, &v, &n, NULL))
		goto oom;
	cfg->nodes = calloc(n ? n : 1, sizeof(*cfg->nodes));
	if (!cfg->nodes)
		goto oom;
	cfg->nnodes = n;
	for (i = 0; i < n; i++) {
		cfg->nodes[i].n = v[i];
		classify(cfg, &cfg->nodes[i]);
	}
	free(v);
	return 0;
oom:
	free(v);
	qopt_error(cfg->ctx, "out of memory");
	return -1;
}

int autocast_decide(struct autocast_cfg *cfg)
{
	int64_t before = cfg->opset;
	size_t i;

	if (snapshot(cfg) < 0)
		return -1;
	need_opset(cfg);
	/* The upgrade may have rewritten nodes: look again. */
	if (cfg->opset != before) {
		if (snapshot(cfg) < 0)
			return -1;
		need_opset(cfg);
	}
	for (i = 0; i < cfg->nnodes; i++)
		if (rules(cfg, &cfg->nodes[i]) < 0)
			return -1;
	qsort(cfg->nodes, cfg->nnodes, sizeof(*cfg->nodes), by_node);
	return 0;
}
