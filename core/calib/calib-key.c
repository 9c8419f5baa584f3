/*
 * core/calib/calib-key.c - the key of a tensor in the calibration file,
 * one scheme for the writer (qopt_calib_keys) and the reader's queries
 * (qopt_calib_find_value; docs/calibration.md). ONNX lets sibling
 * sub-graphs (an If's two branches, two Loops' bodies) reuse a name, so
 * a name alone may not say which tensor an amax is for: a tensor keeps
 * its name, unless it lives in a sub-graph and another graph of the
 * model has a value of that name; then its key is its scope, outermost
 * first, each enclosing node as NODE/ATTRIBUTE/ (NODE its name, or its
 * first output's when it has none), then the name:
 * "loop/body/if/then_branch/x". The names are copied when taken (a pass
 * may rename values after it bound the file).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib-internal.h"

struct named {
	char *name;		/* owned: the pass may rename values */
	const qir_graph *g;
};

struct cal_names {
	struct named *v;
	size_t n, cap;
};

static int add(struct cal_names *ns, const qir_value *v, const qir_graph *g)
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
static int walk(const qir_graph *g, struct cal_names *ns)
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
static int shared(const struct cal_names *ns, const char *name,
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

/* v's key, malloc'd: its name, or its scoped key when another graph
 * has a value of that name. */
static char *key(const struct cal_names *ns, const qir_value *v)
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

static struct cal_names *names_of(const qir_model *m)
{
	struct cal_names *ns = calloc(1, sizeof(*ns));

	if (!ns)
		return NULL;
	if (walk(m->graph, ns)) {
		cal_names_free(ns);
		return NULL;
	}
	if (ns->n)
		qsort(ns->v, ns->n, sizeof(*ns->v), by_name);
	return ns;
}

qopt_status qopt_calib_bind(qopt_calib *c, const qir_model *m)
{
	struct cal_names *ns = names_of(m);

	if (!ns)
		return QOPT_ENOMEM;
	cal_names_free(c->names);
	c->names = ns;
	return QOPT_OK;
}

qopt_status qopt_calib_find_value(const qopt_calib *c, const qir_model *m,
				  const qir_value *v, double *amax)
{
	qopt_status st;
	char *k;

	if (!v || !v->name)
		return QOPT_ENOTFOUND;
	/* Unbound: bound now, to m as it is at the first query (the
	 * calibration is the caller's, allocated by libqopt: not const
	 * underneath). */
	if (!c->names && m && v->graph && v->graph->parent_node &&
	    qopt_calib_bind((qopt_calib *)c, m))
		return QOPT_ENOMEM;
	if (!c->names || !v->graph || !v->graph->parent_node ||
	    !shared(c->names, v->name, v->graph))
		return qopt_calib_find(c, v->name, amax);
	if (!(k = key(c->names, v)))
		return QOPT_ENOMEM;
	st = qopt_calib_find(c, k, amax);
	free(k);
	return st;
}

qopt_status qopt_calib_keys(const qir_model *m, qir_value *const *sel,
			    size_t n, char **keys)
{
	struct cal_names *ns = names_of(m);
	size_t k;

	for (k = 0; k < n; k++)
		keys[k] = NULL;
	if (!ns)
		return QOPT_ENOMEM;
	for (k = 0; k < n; k++)
		if (!(keys[k] = key(ns, sel[k]))) {
			qopt_calib_keys_free(keys, k);
			cal_names_free(ns);
			return QOPT_ENOMEM;
		}
	cal_names_free(ns);
	return QOPT_OK;
}

void qopt_calib_keys_free(char **keys, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		free(keys[k]);
		keys[k] = NULL;	/* a failed qopt_calib_keys, freed again: no-op */
	}
}

void cal_names_free(struct cal_names *ns)
{
	if (!ns)
		return;
	for (size_t i = 0; i < ns->n; i++)
		free(ns->v[i].name);
	free(ns->v);
	free(ns);
}
