/*
 * ir/model/node.c - nodes: creation, inputs/outputs with use-list upkeep,
 * placement in the graph's list, erasure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/internal.h"

const char *ir_node_label(const qir_node *n, char *buf, size_t size)
{
	if (n->name && n->name[0])
		snprintf(buf, size, "'%s' (%s)", n->name, n->op_type);
	else if (n->noutputs && n->outputs[0])
		snprintf(buf, size, "%s producing '%s'", n->op_type,
			 n->outputs[0]->name);
	else
		snprintf(buf, size, "unnamed %s", n->op_type);
	return buf;
}

static void link_before(qir_node *n, qir_node *before)
{
	qir_graph *g = n->graph;

	n->next = before;
	n->prev = before ? before->prev : g->last;
	if (n->prev)
		n->prev->next = n;
	else
		g->first = n;
	if (before)
		before->prev = n;
	else
		g->last = n;
	g->nnodes++;
}

void ir_node_unlink(qir_node *n)
{
	qir_graph *g = n->graph;

	if (n->prev)
		n->prev->next = n->next;
	else if (g->first == n)
		g->first = n->next;
	if (n->next)
		n->next->prev = n->prev;
	else if (g->last == n)
		g->last = n->prev;
	n->prev = n->next = NULL;
	g->nnodes--;
}

qir_node *qir_node_new(qir_graph *g, const char *op_type,
		       const char *domain, const char *name)
{
	struct ir_model_priv *mp = QIR_MPRIV(g->model);
	qir_node *n;

	if (!op_type)
		return NULL;
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->priv = calloc(1, sizeof(struct ir_node_priv));
	n->op_type = strdup(op_type);
	n->domain = strdup(domain ? domain : "");
	if (name && name[0])
		n->name = ir_unique_name(g->model, &mp->node_names, name);
	else
		n->name = strdup("");
	if (!n->priv || !n->op_type || !n->domain || !n->name)
		goto fail;
	if (n->name[0] && ir_strmap_put(&mp->node_names, n->name, n) < 0)
		goto fail;
	n->graph = g;
	link_before(n, NULL);
	return n;
fail:
	free(n->priv);
	free(n->op_type);
	free(n->domain);
	free(n->name);
	free(n);
	return NULL;
}

int qir_node_add_input(qir_node *n, qir_value *v)
{
	qir_value *none = NULL;

	if (ir_array_push(&n->inputs, &n->ninputs, sizeof(*n->inputs),
			    &none) < 0)
		return -1;
	if (v && ir_use_add(v, n, (int)(n->ninputs - 1)) < 0) {
		n->ninputs--;
		return -1;
	}
	n->inputs[n->ninputs - 1] = v;
	return 0;
}

int qir_node_set_input(qir_node *n, size_t i, qir_value *v)
{
	qir_value *old;

	/* Setting past the end pads with empty optional inputs. */
	while (n->ninputs <= i)
		if (qir_node_add_input(n, NULL) < 0)
			return -1;
	old = n->inputs[i];
	if (old == v)
		return 0;
	if (v && ir_use_add(v, n, (int)i) < 0)
		return -1;
	if (old)
		ir_use_del(old, n, (int)i);
	n->inputs[i] = v;
	return 0;
}

qir_value *qir_node_add_output(qir_node *n, qir_value *v, const char *hint)
{
	int fresh = !v;

	if (v && v->producer)
		return NULL;
	if (!v)
		v = qir_value_new(n->graph, hint);
	if (!v)
		return NULL;
	if (ir_array_push(&n->outputs, &n->noutputs, sizeof(*n->outputs),
			    &v) < 0) {
		if (fresh)
			ir_value_free(v);
		return NULL;
	}
	v->producer = n;
	v->producer_index = (int)(n->noutputs - 1);
	return v;
}

void qir_node_move_before(qir_node *n, qir_node *before)
{
	if (n == before || (before && before->graph != n->graph))
		return;
	ir_node_unlink(n);
	link_before(n, before);
}

void qir_node_move_after(qir_node *n, qir_node *after)
{
	if (n == after || (after && after->graph != n->graph))
		return;
	ir_node_unlink(n);
	link_before(n, after ? after->next : n->graph->first);
}

void ir_node_free(qir_node *n, int detach)
{
	struct ir_model_priv *mp = QIR_MPRIV(n->graph->model);
	size_t i;

	if (detach) {
		for (i = 0; i < n->ninputs; i++)
			if (n->inputs[i])
				ir_use_del(n->inputs[i], n, (int)i);
		if (n->name[0] && ir_strmap_get(&mp->node_names, n->name) == n)
			ir_strmap_del(&mp->node_names, n->name);
	}
	for (i = 0; i < n->nattrs; i++) {
		if (detach) {
			ir_attr_clear(&n->attrs[i]);
		} else {
			/* Teardown: subgraphs need no use upkeep. */
			qir_attr *a = &n->attrs[i];
			size_t j;

			if (a->g)
				ir_graph_free_ex(a->g, 0);
			for (j = 0; a->graphs && j < a->n; j++)
				ir_graph_free_ex(a->graphs[j], 0);
			a->g = NULL;
			free(a->graphs);
			a->graphs = NULL;
			ir_attr_clear(a);
		}
	}
	free(n->attrs);
	free(n->inputs);
	free(n->outputs);
	free(n->name);
	free(n->op_type);
	free(n->domain);
	free(n->priv);
	free(n);
}

int qir_node_erase(qir_node *n, qir_error *err)
{
	char lbl[512];
	size_t i;

	for (i = 0; i < n->noutputs; i++) {
		qir_value *v = n->outputs[i];

		if (!v)
			continue;
		if (v->nuses)
			return qir_fail(err, QIR_EUSAGE,
					"cannot erase node %s: output '%s' still has %zu use(s)",
					ir_node_label(n, lbl, sizeof(lbl)),
					v->name, v->nuses);
		if (v->is_output)
			return qir_fail(err, QIR_EUSAGE,
					"cannot erase node %s: output '%s' is a graph output",
					ir_node_label(n, lbl, sizeof(lbl)),
					v->name);
	}
	ir_node_unlink(n);
	for (i = 0; i < n->noutputs; i++)
		if (n->outputs[i])
			ir_value_free(n->outputs[i]);
	ir_node_free(n, 1);
	return 0;
}

qir_node **qir_node_consumers(qir_node *n, size_t *count)
{
	qir_node **out = NULL;
	size_t cnt = 0, i, j, k;

	for (i = 0; i < n->noutputs; i++) {
		qir_value *v = n->outputs[i];

		for (j = 0; v && j < v->nuses; j++) {
			qir_node *c = v->uses[j].node;

			for (k = 0; k < cnt && out[k] != c; k++)
				;
			if (k < cnt)
				continue;
			if (ir_array_push(&out, &cnt, sizeof(*out), &c) < 0) {
				free(out);
				*count = 0;
				return NULL;
			}
		}
	}
	*count = cnt;
	return out;
}

char *qir_node_label(const qir_node *n, char *buf, size_t size)
{
	char inner[512];

	snprintf(buf, size, "node %s", ir_node_label(n, inner, sizeof(inner)));
	return buf;
}

int qir_domain_is_default(const char *domain)
{
	return !domain || !*domain || !strcmp(domain, "ai.onnx");
}

int qir_node_is(const qir_node *n, const char *op_type)
{
	return n && op_type && !strcmp(n->op_type, op_type) &&
	       qir_domain_is_default(n->domain);
}
