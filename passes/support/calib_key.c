/*
 * passes/support/calib_key.c - which entry of the calibration file a
 * tensor's range is, for the passes' queries (fp8, fp8-mha, nvfp4). The
 * writer's scheme (core/cli/calib-key.c, docs/calibration.md): a tensor
 * keeps its name, unless it lives in a sub-graph and another graph of
 * the model has a value of that name (sibling If branches may reuse
 * names); then its key is its scope, each enclosing node as
 * NODE/ATTRIBUTE/ (NODE its name, or its first output's), then the name.
 * The names are taken when the file is bound to the model, before the
 * pass adds any: the writer saw the model as the pass received it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "calib_file.h"

/* The entries are sorted by name (calib_file.c sorts them on load):
 * lookups by name and by key live here, below the reader, so the reader
 * and the keys call one way. */
static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ps_calib_entry *)a)->name,
		      ((const struct ps_calib_entry *)b)->name);
}

const struct ps_calib_entry *
ps_calib_find(const struct ps_calib *c, const char *name)
{
	struct ps_calib_entry key = { (char *)name, 0 };

	return c->n ? bsearch(&key, c->e, c->n, sizeof(key), entry_cmp) : NULL;
}

struct named {
	char *name;		/* owned: the pass may rename values */
	const qir_graph *g;
};

struct ps_calib_names {
	struct named *v;
	size_t n, cap;
};

static int add(struct ps_calib_names *ns, const qir_value *v, const qir_graph *g)
{
	struct named *grown;
	char *copy;

	if (!v || !v->name || !*v->name)
		return 0;
	if (ns->n == ns->cap) {
		ns->cap = ns->cap ? 2 * ns->cap : 64;
		grown = realloc(ns->v, ns->cap * sizeof(*grown));
		if (!grown)
			return -1;
		ns->v = grown;
	}
	if (!(copy = strdup(v->name)))
		return -1;
	ns->v[ns->n++] = (struct named){ copy, g };
	return 0;
}

/* Every value name of g and of its sub-graphs, with its graph. */
static int walk(const qir_graph *g, struct ps_calib_names *ns)
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
static int shared(const struct ps_calib_names *ns, const char *name,
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

/* v's scoped key, malloc'd. */
static char *key(const qir_value *v)
{
	size_t len = scope(v->graph, NULL);
	char *k = malloc(len + strlen(v->name) + 1);

	if (!k)
		return NULL;
	scope(v->graph, k);
	strcpy(k + len, v->name);
	return k;
}

int ps_calib_bind(struct ps_calib *c, const qir_model *m)
{
	struct ps_calib_names *ns = calloc(1, sizeof(*ns));

	if (!ns)
		return -1;
	c->names = ns;
	if (walk(m->graph, ns))
		return -1;	/* freed with c */
	if (ns->n)
		qsort(ns->v, ns->n, sizeof(*ns->v), by_name);
	return 0;
}

const struct ps_calib_entry *
ps_calib_find_value(const struct ps_calib *c, const qir_value *v)
{
	const struct ps_calib_entry *e;
	char *k;

	if (!c->names || !v->graph->parent_node ||
	    !shared(c->names, v->name, v->graph))
		return ps_calib_find(c, v->name);
	k = key(v);
	e = k ? ps_calib_find(c, k) : NULL;
	free(k);
	return e;
}

void ps_calib_names_free(struct ps_calib_names *ns)
{
	if (!ns)
		return;
	for (size_t i = 0; i < ns->n; i++)
		free(ns->v[i].name);
	free(ns->v);
	free(ns);
}
