/*
 * core/cli/calib-key.c - the calibration file's key of each measured
 * tensor (calib-key.h). The reader's side (passes/support/calib_key.c)
 * is the same scheme in the pass; tests/cli/calib-subgraph.sh checks
 * that the two agree on sibling branches sharing names.
 */
#include <stdlib.h>
#include <string.h>
#include "cli/calib-key.h"

struct named {
	const char *name;
	const qir_graph *g;
};

struct names {
	struct named *v;
	size_t n, cap;
};

static int add(struct names *ns, const qir_value *v, const qir_graph *g)
{
	struct named *grown;

	if (!v || !v->name || !*v->name)
		return 0;
	if (ns->n == ns->cap) {
		ns->cap = ns->cap ? 2 * ns->cap : 64;
		grown = realloc(ns->v, ns->cap * sizeof(*grown));
		if (!grown)
			return -1;
		ns->v = grown;
	}
	ns->v[ns->n++] = (struct named){ v->name, g };
	return 0;
}

/* Every value name of g and of its sub-graphs, with its graph. */
static int walk(const qir_graph *g, struct names *ns)
{
	const qir_node *n;
	size_t i, k;

	for (i = 0; i < g->ninputs; i++)
		if (add(ns, g->inputs[i], g))
			return -1;
	for (i = 0; i < g->ninits; i++)
		if (add(ns, g->inits[i], g))
			return -1;
	qir_graph_for_each_node(g, n) {
		for (i = 0; i < n->noutputs; i++)
			if (add(ns, n->outputs[i], g))
				return -1;
		for (i = 0; i < n->nattrs; i++) {
			const qir_attr *a = &n->attrs[i];

			if (a->type == QIR_ATTR_GRAPH && a->g && walk(a->g, ns))
				return -1;
			for (k = 0; a->type == QIR_ATTR_GRAPHS && a->graphs &&
			     k < a->n; k++)
				if (walk(a->graphs[k], ns))
					return -1;
		}
	}
	return 0;
}

static int by_name(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->g == y->g ? 0 : (uintptr_t)x->g < (uintptr_t)y->g ? -1 : 1;
}

/* 1 when name is a value of a graph other than g (ns sorted). */
static int shared(const struct names *ns, const char *name,
		  const qir_graph *g)
{
	size_t lo = 0, hi = ns->n, mid;

	while (lo < hi) {	/* the first entry of name */
		mid = lo + (hi - lo) / 2;
		if (strcmp(ns->v[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < ns->n && !strcmp(ns->v[lo].name, name); lo++)
		if (ns->v[lo].g != g)
			return 1;
	return 0;
}

static const char *label(const qir_node *n)
{
	if (n->name && *n->name)
		return n->name;
	return n->noutputs && n->outputs[0] && n->outputs[0]->name ?
	       n->outputs[0]->name : "";
}

static const char *holder(const qir_node *p, const qir_graph *g)
{
	size_t i, k;

	for (i = 0; i < p->nattrs; i++) {
		if (p->attrs[i].type == QIR_ATTR_GRAPH && p->attrs[i].g == g)
			return p->attrs[i].name;
		for (k = 0; p->attrs[i].type == QIR_ATTR_GRAPHS &&
		     p->attrs[i].graphs && k < p->attrs[i].n; k++)
			if (p->attrs[i].graphs[k] == g)
				return p->attrs[i].name;
	}
	return "";
}

/* g's scope, outermost first, into out (NULL: only its length). */
static size_t scope(const qir_graph *g, char *out)
{
	size_t len;
	const char *l, *h;

	if (!g->parent_node || !g->parent)
		return 0;
	len = scope(g->parent, out);
	l = label(g->parent_node);
	h = holder(g->parent_node, g);
	if (out) {
		memcpy(out + len, l, strlen(l));
		out[len + strlen(l)] = '/';
		memcpy(out + len + strlen(l) + 1, h, strlen(h));
		out[len + strlen(l) + 1 + strlen(h)] = '/';
	}
	return len + strlen(l) + strlen(h) + 2;
}

static char *key(const struct names *ns, const qir_value *v)
{
	size_t len = 0;
	char *k;

	if (v->graph->parent_node && shared(ns, v->name, v->graph))
		len = scope(v->graph, NULL);
	k = malloc(len + strlen(v->name) + 1);
	if (!k)
		return NULL;
	if (len)
		scope(v->graph, k);
	strcpy(k + len, v->name);
	return k;
}

int calib_keys(const qir_model *m, qir_value *const *sel, size_t n,
	       char **keys)
{
	struct names ns = { 0 };
	size_t k;
	int rc = walk(m->graph, &ns);

	if (!rc && ns.n)
		qsort(ns.v, ns.n, sizeof(*ns.v), by_name);
	for (k = 0; !rc && k < n; k++)
		if (!(keys[k] = key(&ns, sel[k]))) {
			calib_keys_free(keys, k);
			rc = -1;
		}
	free(ns.v);
	return rc;
}

void calib_keys_free(char **keys, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		free(keys[k]);
		keys[k] = NULL;	/* a failed calib_keys, freed again: no-op */
	}
}
