/*
 * ir/model/toposort.c - stable topological order of a graph's nodes.
 *
 * Kahn's algorithm that always emits the ready node which came first
 * in the old order, so a sorted graph keeps its order and an unsorted
 * one moves as little as possible. A node holding a subgraph depends
 * on whatever produces the outer values that subgraph captures.
 */
#include <stdlib.h>
#include "model/internal.h"

/* The node of g that contains u (u itself, or the node holding the
 * subgraph u sits in), or NULL. */
static qir_node *owner_in(qir_graph *g, qir_node *u)
{
	while (u && u->graph != g)
		u = u->graph->parent_node;
	return u;
}

struct heap {
	size_t *a, n;
};

static void heap_push(struct heap *h, size_t x)
{
	size_t i = h->n++;

	while (i && h->a[(i - 1) / 2] > x) {
		h->a[i] = h->a[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->a[i] = x;
}

static size_t heap_pop(struct heap *h)
{
	size_t top = h->a[0], x = h->a[--h->n], i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->a[c + 1] < h->a[c])
			c++;
		if (h->a[c] >= x)
			break;
		h->a[i] = h->a[c];
		i = c;
	}
	if (h->n)
		h->a[i] = x;
	return top;
}

/* Calls fn(successor) for every edge n -> successor within g. */
static int for_each_succ(qir_graph *g, qir_node *n, size_t *indeg, int add,
			 struct heap *h)
{
	size_t i, j;

	for (i = 0; i < n->noutputs; i++) {
		qir_value *v = n->outputs[i];

		for (j = 0; v && j < v->nuses; j++) {
			qir_node *s = owner_in(g, v->uses[j].node);
			size_t k;

			if (!s)
				continue;
			if (s == n)
				return -1;	/* uses its own output */
			k = QIR_NPRIV(s)->scratch;
			if (add) {
				indeg[k]++;
			} else if (--indeg[k] == 0) {
				heap_push(h, k);
			}
		}
	}
	return 0;
}

static int sort_one(qir_graph *g, qir_error *err)
{
	size_t nn = g->nnodes, i, done = 0;
	qir_node **nodes, *n;
	struct heap h = { 0 };
	size_t *indeg;
	char lbl[512];
	int rc = 0;

	if (nn == 0)
		return 0;
	nodes = malloc(nn * sizeof(*nodes));
	indeg = calloc(nn, sizeof(*indeg));
	h.a = malloc(nn * sizeof(*h.a));
	if (!nodes || !indeg || !h.a) {
		rc = qir_fail(err, QIR_ENOMEM, "out of memory sorting graph '%s'",
			      g->name);
		goto out;
	}
	i = 0;
	qir_graph_for_each_node(g, n) {
		QIR_NPRIV(n)->scratch = i;
		nodes[i++] = n;
	}
	for (i = 0; i < nn; i++) {
		if (for_each_succ(g, nodes[i], indeg, 1, NULL) < 0) {
			rc = qir_fail(err, QIR_EVERIFY,
				      "cycle in graph '%s': node %s consumes its own output",
				      g->name, ir_node_label(nodes[i], lbl,
							       sizeof(lbl)));
			goto out;
		}
	}
	for (i = 0; i < nn; i++)
		if (!indeg[i])
			heap_push(&h, i);
	g->first = g->last = NULL;
	g->nnodes = 0;
	while (h.n) {
		n = nodes[heap_pop(&h)];
		n->prev = g->last;
		n->next = NULL;
		if (g->last)
			g->last->next = n;
		else
			g->first = n;
		g->last = n;
		g->nnodes++;
		nodes[QIR_NPRIV(n)->scratch] = NULL;
		for_each_succ(g, n, indeg, 0, &h);
		done++;
	}
	if (done < nn) {
		/* Keep the cyclic rest after the sorted part so nothing is
		 * lost, and name the first node stuck in or behind a cycle. */
		qir_node *stuck = NULL;

		for (i = 0; i < nn; i++) {
			if (!nodes[i])
				continue;
			if (!stuck)
				stuck = nodes[i];
			n = nodes[i];
			n->prev = g->last;
			n->next = NULL;
			if (g->last)
				g->last->next = n;
			else
				g->first = n;
			g->last = n;
			g->nnodes++;
		}
		rc = qir_fail(err, QIR_EVERIFY,
			      "cycle in graph '%s' involving node %s", g->name,
			      ir_node_label(stuck, lbl, sizeof(lbl)));
	}
out:
	free(nodes);
	free(indeg);
	free(h.a);
	return rc;
}

static int sort_cb(qir_graph *g, void *arg)
{
	return sort_one(g, arg) < 0 ? -1 : 0;
}

int qir_graph_toposort(qir_graph *g, qir_error *err)
{
	return qir_graph_walk(g, sort_cb, err) ? -1 : 0;
}
