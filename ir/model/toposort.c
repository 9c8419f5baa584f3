/*
 * ir/model/toposort.c - stable topological order of a graph's nodes.
 *
 * Kahn's algorithm that always emits the ready node which came first
 * in the old order, so a sorted graph keeps its order and an unsorted
 * one moves as little as possible. A node holding a subgraph depends
 * on whatever produces the outer values that subgraph captures.
 *
 * "Nodes moved" is the number of nodes outside a longest run of nodes
 * that kept their relative order: a Cast that a converter appended at
 * the end and that the first node reads is one move, not a shift of
 * the whole graph.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* n's producer-side neighbour in g that is still unsorted, or NULL. */
static qir_node *stuck_pred(qir_graph *g, qir_node *n, qir_node **left)
{
	size_t i, j;

	for (i = 0; i < n->ninputs; i++) {
		qir_value *v = n->inputs[i];
		qir_node *p = v && v->producer ? owner_in(g, v->producer) : NULL;

		if (p && p != n && left[QIR_NPRIV(p)->scratch])
			return p;
	}
	/* Captures by nodes inside n's subgraphs. */
	for (i = 0; i < n->nattrs; i++) {
		qir_attr *a = &n->attrs[i];
		qir_graph *one[1] = { a->g };
		qir_graph **gs = a->type == QIR_ATTR_GRAPHS ? a->graphs : one;
		size_t cnt = a->type == QIR_ATTR_GRAPHS ? a->n :
			     (a->type == QIR_ATTR_GRAPH && a->g ? 1 : 0);

		for (j = 0; j < cnt; j++) {
			qir_node *s;

			qir_graph_for_each_node(gs[j], s) {
				qir_node *p = stuck_pred(g, s, left);

				if (p && p != n)
					return p;
			}
		}
	}
	return NULL;
}

/* Names the nodes of one cycle among the unsorted ones: walking back
 * from a stuck node through stuck producers must revisit a node. */
static int cycle_error(qir_graph *g, qir_node **left, size_t nn,
		       qir_error *err)
{
	size_t i, len = 0, steps = 0;
	qir_node *n = NULL, *start;
	char msg[sizeof(err->msg)], lbl[512];

	for (i = 0; i < nn && !n; i++)
		n = left[i];
	/* After nn steps back we are surely on the cycle. */
	for (steps = 0; n && steps < nn; steps++)
		n = stuck_pred(g, n, left);
	if (!n)
		return qir_fail(err, QIR_EVERIFY,
				"graph '%s': nodes form a cycle", g->name);
	start = n;
	msg[0] = 0;
	do {
		int w = snprintf(msg + len, sizeof(msg) - len, "%s%s",
				 len ? " <- " : "",
				 ir_node_label(n, lbl, sizeof(lbl)));

		if (w < 0 || (size_t)w >= sizeof(msg) - len)
			break;
		len += (size_t)w;
		n = stuck_pred(g, n, left);
	} while (n && n != start);
	return qir_fail(err, QIR_EVERIFY,
			"graph '%s': cycle: %s (each reads the output of the next)",
			g->name, msg);
}

/* Nodes not in a longest increasing run of old positions (patience
 * sorting). */
static size_t count_moved(qir_graph *g, size_t nn, size_t *tails)
{
	size_t len = 0;
	qir_node *n;

	qir_graph_for_each_node(g, n) {
		size_t x = QIR_NPRIV(n)->scratch, lo = 0, hi = len;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (tails[mid] < x)
				lo = mid + 1;
			else
				hi = mid;
		}
		tails[lo] = x;
		if (lo == len)
			len++;
	}
	return nn - len;
}

static int sort_one(qir_graph *g, size_t *moved, qir_error *err)
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
		 * lost, and name the nodes of one cycle. */
		rc = cycle_error(g, nodes, nn, err);
		for (i = 0; i < nn; i++) {
			if (!nodes[i])
				continue;
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
	} else if (moved) {
		/* indeg is free now: reuse it as the patience piles. */
		*moved += count_moved(g, nn, indeg);
	}
out:
	free(nodes);
	free(indeg);
	free(h.a);
	return rc;
}

struct sort_arg {
	size_t *moved;
	qir_error *err;
};

static int sort_cb(qir_graph *g, void *arg)
{
	struct sort_arg *a = arg;

	return sort_one(g, a->moved, a->err) < 0 ? -1 : 0;
}

int qir_graph_toposort_count(qir_graph *g, size_t *moved, qir_error *err)
{
	struct sort_arg a = { moved, err };

	if (moved)
		*moved = 0;
	return qir_graph_walk(g, sort_cb, &a) ? -1 : 0;
}

int qir_graph_toposort(qir_graph *g, qir_error *err)
{
	return qir_graph_toposort_count(g, NULL, err);
}
