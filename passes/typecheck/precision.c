/*
 * passes/typecheck/precision.c - each node's precision: the one float
 * type of the slots its schema types T (passes/support/float_ops.c).
 * Two float types there is a model a strongly typed builder refuses;
 * so is a QuantizeLinear whose scale's type is not its input's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "typecheck.h"
#include "../support/fail.h"

static int is_float(int t)
{
	return t == QIR_FLOAT || t == QIR_FLOAT16 || t == QIR_BFLOAT16 ||
	       t == QIR_DOUBLE;
}

static const char *type_name(int t)
{
	switch (t) {
	case QIR_FLOAT: return "FLOAT";
	case QIR_FLOAT16: return "FLOAT16";
	case QIR_BFLOAT16: return "BFLOAT16";
	case QIR_DOUBLE: return "DOUBLE";
	default: return "?";
	}
}

static int by_node(const void *a, const void *b)
{
	const struct typecheck_node *x = a, *y = b;

	return x->n < y->n ? -1 : x->n > y->n;
}

struct typecheck_node *typecheck_node_of(struct typecheck_cfg *cfg, const qir_node *n)
{
	struct typecheck_node key = { .n = (qir_node *)n };

	return bsearch(&key, cfg->nodes, cfg->nnodes, sizeof(key), by_node);
}

/* Folds the type t of slot value v into *prec; a second float type
 * makes it TYPECHECK_MIXED and is said once. */
static void fold(struct typecheck_cfg *cfg, struct typecheck_node *r, const qir_value *v,
		 int t, const char **first)
{
	if (!is_float(t) || r->prec == TYPECHECK_MIXED)
		return;
	if (r->prec == TYPECHECK_NONE) {
		r->prec = t;
		*first = v->name;
		return;
	}
	if (r->prec == t)
		return;
	qopt_warn(cfg->ctx, "%s mixes %s ('%s') and %s ('%s'): a strongly "
		  "typed network takes one type there", QIR_NODE_LABEL(r->n),
		  type_name(r->prec), *first, type_name(t), v->name);
	cfg->findings++;
	qopt_stat_add(cfg->ctx, "nodes with mixed float inputs", 1);
	r->prec = TYPECHECK_MIXED;
}

static void classify(struct typecheck_cfg *cfg, struct typecheck_node *r)
{
	const struct ps_float_op *op = qir_domain_is_default(r->n->domain) ?
		ps_float_op_find(r->n->op_type) : NULL;
	const char *first = NULL;
	qir_node *n = r->n;
	size_t i;

	/* QuantizeLinear's own check (q_scale) says its mismatch better */
	if (!op || qir_node_is(n, "Shape") || qir_node_is(n, "Size"))
		return;
	if (qir_node_is(n, "QuantizeLinear") && n->ninputs > 1 && n->inputs[0]) {
		r->prec = qir_value_elem_type(n->inputs[0]);
		return;
	}
	for (i = 0; i < n->ninputs; i++) {
		qir_value *v = n->inputs[i];
		qir_tensor *t;

		if (!v || !ps_slot(op->t_in, i))
			continue;
		fold(cfg, r, v, qir_value_elem_type(v), &first);
		t = qir_value_const(v);
		if (t && is_float(t->dtype))
			r->params += qir_tensor_numel(t);
	}
	for (i = 0; i < n->noutputs; i++)
		if (n->outputs[i] && ps_slot(op->t_out, i))
			fold(cfg, r, n->outputs[i], n->outputs[i]->dtype, &first);
}

/* A DequantizeLinear's codes count as parameters of its precision's
 * quantized form: reported apart. */
static uint64_t dq_codes(const qir_node *n)
{
	qir_tensor *t;

	if (!qir_node_is(n, "DequantizeLinear") || !n->ninputs || !n->inputs[0])
		return 0;
	t = qir_value_const(n->inputs[0]);
	return t ? qir_tensor_numel(t) : 0;
}

static void summary(struct typecheck_cfg *cfg)
{
	static const int types[] = { QIR_FLOAT, QIR_FLOAT16, QIR_BFLOAT16,
				     QIR_DOUBLE };
	uint64_t nodes[4] = { 0 }, params[4] = { 0 }, codes = 0, qdq = 0;
	char line[512];
	size_t i, k, len = 0;

	for (i = 0; i < cfg->nnodes; i++) {
		struct typecheck_node *r = &cfg->nodes[i];

		for (k = 0; k < 4; k++)
			if (r->prec == types[k]) {
				nodes[k]++;
				params[k] += r->params;
			}
		codes += dq_codes(r->n);
		qdq += qir_node_is(r->n, "QuantizeLinear") ||
		       qir_node_is(r->n, "DequantizeLinear");
	}
	line[0] = 0;
	for (k = 0; k < 4; k++)
		if (nodes[k] && len < sizeof(line))
			len += (size_t)snprintf(line + len, sizeof(line) - len,
				"%s%s %llu node(s), %llu float parameter(s)",
				len ? "; " : "", type_name(types[k]),
				(unsigned long long)nodes[k],
				(unsigned long long)params[k]);
	qopt_info(cfg->ctx, "precision: %s%s; %llu Q/DQ node(s), %llu "
		  "quantized weight element(s)", line[0] ? line :
		  "no float computation", "", (unsigned long long)qdq,
		  (unsigned long long)codes);
}

/* Opset 19's QuantizeLinear takes its scale in its input's type. */
static void q_scale(struct typecheck_cfg *cfg, const qir_node *n)
{
	int x, s;

	if (!qir_node_is(n, "QuantizeLinear") || n->ninputs < 2 ||
	    !n->inputs[0] || !n->inputs[1])
		return;
	x = qir_value_elem_type(n->inputs[0]);
	s = qir_value_elem_type(n->inputs[1]);
	if (is_float(x) && is_float(s) && x != s) {
		qopt_warn(cfg->ctx, "%s quantizes %s '%s' with a %s scale '%s': "
			  "the scale must be the input's type",
			  QIR_NODE_LABEL(n), type_name(x), n->inputs[0]->name,
			  type_name(s), n->inputs[1]->name);
		cfg->findings++;
	}
}

int typecheck_precisions(struct typecheck_cfg *cfg)
{
	qir_node **v = NULL;
	size_t i, n = 0;

	if (qir_graph_nodes(cfg->m->graph, NULL, NULL, 0, &v, &n, NULL))
		goto oom;
	cfg->nodes = calloc(n ? n : 1, sizeof(*cfg->nodes));
	if (!cfg->nodes)
		goto oom;
	cfg->nnodes = n;
	for (i = 0; i < n; i++) {
		struct typecheck_node *r = &cfg->nodes[i];

		r->n = v[i];
		classify(cfg, r);
		q_scale(cfg, r->n);
		if (is_float(r->prec))
			qopt_debug(cfg->ctx, "%s: %s", QIR_NODE_LABEL(r->n),
				   type_name(r->prec));
	}
	free(v);
	summary(cfg);
	qsort(cfg->nodes, n, sizeof(*cfg->nodes), by_node);
	return 0;
oom:
	free(v);
	ps_fail(cfg->ctx, QOPT_ENOMEM, "out of memory");
	return -1;
}
