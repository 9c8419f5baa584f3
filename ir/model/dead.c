/*
 * ir/model/dead.c - dead node and initializer removal.
 */
#include <stdlib.h>
#include "model/internal.h"

static int node_dead(const qir_node *n)
{
	size_t i;

	for (i = 0; i < n->noutputs; i++) {
		const qir_value *v = n->outputs[i];

		if (v && (v->nuses || v->is_output))
			return 0;
	}
	return 1;
}

static size_t sweep(qir_graph *g);

static size_t sweep_subgraphs(qir_node *n)
{
	size_t removed = 0, i, j;

	for (i = 0; i < n->nattrs; i++) {
		qir_attr *a = &n->attrs[i];

		if (a->type == QIR_ATTR_GRAPH && a->g)
			removed += sweep(a->g);
		for (j = 0; a->type == QIR_ATTR_GRAPHS && j < a->n; j++)
			if (a->graphs[j])
				removed += sweep(a->graphs[j]);
	}
	return removed;
}

/* One backward pass: walking from the end frees a whole dead chain at
 * once, since a consumer goes before its producer is looked at. */
static size_t sweep(qir_graph *g)
{
	qir_node *n, *prev;
	qir_value **dead;
	size_t removed = 0, i, nd = 0;

	for (n = g->last; n; n = prev) {
		prev = n->prev;
		if (node_dead(n)) {
			if (qir_node_erase(n, NULL) == 0)
				removed++;
		} else {
			removed += sweep_subgraphs(n);
		}
	}
	/* An initializer that is also a graph input is part of the
	 * interface (an overridable default): keep it. All the dead ones
	 * go in one walk (removing them one by one was quadratic). */
	dead = malloc((g->ninits + 1) * sizeof(*dead));
	for (i = 0; dead && i < g->ninits; i++) {
		qir_value *v = g->inits[i];

		if (!v->nuses && !v->is_output && !v->is_input)
			dead[nd++] = v;
	}
	if (nd && qir_graph_remove_initializers(g, dead, nd, NULL) == 0)
		removed += nd;
	free(dead);
	return removed;
}

size_t qir_graph_remove_dead(qir_graph *g)
{
	size_t total = 0, r;

	/* Repeat: a subgraph losing its last use of an outer value can
	 * make outer nodes dead after the outer pass went by. */
	while ((r = sweep(g)))
		total += r;
	return total;
}
