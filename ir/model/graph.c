/*
 * ir/model/graph.c - graphs: creation and teardown, inputs, outputs and
 * initializers, walking nested subgraphs.
 */
#include <stdlib.h>
#include <string.h>
#include "model/internal.h"

qir_graph *ir_graph_new(qir_model *m, qir_graph *parent, qir_node *pnode,
			  const char *name)
{
	qir_graph *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->priv = calloc(1, sizeof(struct ir_graph_priv));
	g->name = strdup(name ? name : "");
	if (!g->priv || !g->name) {
		free(g->priv);
		free(g->name);
		free(g);
		return NULL;
	}
	g->model = m;
	g->parent = parent;
	g->parent_node = pnode;
	return g;
}

void ir_graph_free_ex(qir_graph *g, int detach)
{
	struct ir_graph_priv *gp;
	qir_node *n, *next;
	size_t i;

	if (!g)
		return;
	gp = QIR_GPRIV(g);
	/* Nodes first: in detach mode they drop their uses of values that
	 * still exist (ours and outer ones). */
	for (n = g->first; n; n = next) {
		next = n->next;
		ir_node_free(n, detach);
	}
	for (i = 0; detach && i < g->noutputs; i++) {
		qir_value *v = g->outputs[i];

		if (v && v->graph != g && v->is_output > 0)
			v->is_output--;	/* an outer value we listed */
	}
	ir_graph_compact_all(gp);
	for (i = 0; i < gp->nall; i++) {
		qir_value *v = gp->all[i];

		if (detach) {
			struct ir_model_priv *mp = QIR_MPRIV(g->model);

			ir_name_unref(mp, v->name);
		}
		ir_value_free_mem(v);
	}
	free(gp->all);
	ir_strmap_free(&gp->values);
	free(gp);
	free(g->inputs);
	free(g->outputs);
	free(g->inits);
	free(g->name);
	free(g);
}

void ir_graph_free(qir_graph *g)
{
	ir_graph_free_ex(g, 1);
}

static int push_value(qir_value ***arr, size_t *n, qir_value *v)
{
	return ir_array_push(arr, n, sizeof(**arr), &v);
}

qir_value *qir_graph_add_initializer(qir_graph *g, qir_tensor *t)
{
	qir_value *v;
	char *tn;

	if (!t)
		return NULL;
	v = qir_value_new(g, t->name && t->name[0] ? t->name : "init");
	if (!v)
		goto fail;
	tn = strdup(v->name);
	if (!tn || push_value(&g->inits, &g->ninits, v) < 0) {
		free(tn);
		ir_value_free(v);
		goto fail;
	}
	free(t->name);
	t->name = tn;
	v->init = t;
	if (qir_value_set_type(v, t->dtype, t->rank, t->dims, NULL) < 0) {
		/* Only fails for out-of-memory; the type stays unknown. */
	}
	return v;
fail:
	qir_tensor_free(t);
	return NULL;
}

static int removable(qir_graph *g, const qir_value *v, qir_error *err)
{
	if (!v || !v->init || v->graph != g)
		return qir_fail(err, QIR_EUSAGE,
				"value '%s' is not an initializer of graph '%s'",
				v ? v->name : "(null)", g->name);
	if (v->nuses)
		return qir_fail(err, QIR_EUSAGE,
				"cannot remove initializer '%s': %zu use(s) left",
				v->name, v->nuses);
	if (v->is_output)
		return qir_fail(err, QIR_EUSAGE,
				"cannot remove initializer '%s': it is a graph output",
				v->name);
	return 0;
}

/* One walk over g->inits whatever the count: the marked ones go, the
 * rest keep their order. Each value is in g->inits once, so one listed
 * twice in vals is freed once. */
int qir_graph_remove_initializers(qir_graph *g, qir_value *const *vals,
				  size_t n, qir_error *err)
{
	size_t i, k;

	for (i = 0; i < n; i++)
		if (removable(g, vals[i], err) < 0)
			return -1;
	if (!n)
		return 0;
	for (i = 0; i < n; i++)
		QIR_VPRIV(vals[i])->doomed = 1;
	for (i = k = 0; i < g->ninits; i++) {
		qir_value *v = g->inits[i];

		if (!QIR_VPRIV(v)->doomed) {
			g->inits[k++] = v;
			continue;
		}
		QIR_VPRIV(v)->doomed = 0;
		qir_tensor_free(v->init);
		v->init = NULL;
		if (!v->is_input)
			ir_value_free(v);
	}
	g->ninits = k;
	return 0;
}

int qir_graph_remove_initializer(qir_graph *g, qir_value *v, qir_error *err)
{
	return qir_graph_remove_initializers(g, &v, 1, err);
}

int qir_graph_constant_to_initializer(qir_graph *g, qir_node *c,
				      qir_error *err)
{
	char lbl[512];
	qir_tensor *t, *own;
	qir_value *v;
	qir_attr *a;
	char *tn;

	ir_node_label(c, lbl, sizeof(lbl));
	if (c->graph != g)
		return qir_fail(err, QIR_EUSAGE, "node %s is not in graph '%s'",
				lbl, g->name);
	if (strcmp(c->op_type, "Constant") != 0 || c->noutputs != 1 ||
	    !c->outputs[0])
		return qir_fail(err, QIR_EUSAGE,
				"node %s is not a Constant with one output", lbl);
	v = c->outputs[0];
	t = qir_value_const(v);
	if (!t)
		return qir_fail(err, QIR_EUNSUPPORTED,
				"Constant %s holds no tensor value", lbl);
	/* First the one step that may fail: the type is the tensor's
	 * whatever happens next. */
	if (qir_value_set_type(v, t->dtype, t->rank, t->dims, err) < 0)
		return -1;
	/* Steal the tensor out of its attribute. */
	if ((a = qir_node_attr(c, "value")) && a->t == t) {
		a->t = NULL;
		own = t;
	} else {
		for (a = c->attrs; a < c->attrs + c->nattrs; a++)
			if (a->priv && QIR_APRIV(a)->const_cache == t)
				QIR_APRIV(a)->const_cache = NULL;
		own = t;
	}
	tn = strdup(v->name);
	if (!tn || push_value(&g->inits, &g->ninits, v) < 0) {
		free(tn);
		qir_tensor_free(own);	/* attribute no longer holds it */
		return qir_fail(err, QIR_ENOMEM, "out of memory converting %s",
				lbl);
	}
	free(own->name);
	own->name = tn;
	v->init = own;
	v->producer = NULL;
	v->producer_index = 0;
	QIR_VPRIV(v)->in_value_info = 0;
	c->outputs[0] = NULL;
	ir_node_unlink(c);
	ir_node_free(c, 1);
	return 0;
}

int qir_graph_add_input(qir_graph *g, qir_value *v)
{
	if (!v || push_value(&g->inputs, &g->ninputs, v) < 0)
		return -1;
	v->is_input = 1;
	return 0;
}

int qir_graph_add_output(qir_graph *g, qir_value *v)
{
	if (!v || push_value(&g->outputs, &g->noutputs, v) < 0)
		return -1;
	v->is_output++;
	return 0;
}

int qir_graph_set_output(qir_graph *g, size_t i, qir_value *v)
{
	qir_value *old;

	if (!v || i >= g->noutputs)
		return -1;
	old = g->outputs[i];
	if (old == v)
		return 0;
	if (old && old->is_output > 0)
		old->is_output--;
	g->outputs[i] = v;
	v->is_output++;
	return 0;
}

int qir_graph_walk(qir_graph *g, int (*fn)(qir_graph *, void *), void *arg)
{
	qir_node *n;
	size_t i, j;
	int r = fn(g, arg);

	if (r)
		return r;
	qir_graph_for_each_node(g, n)
		for (i = 0; i < n->nattrs; i++) {
			qir_attr *a = &n->attrs[i];

			if (a->type == QIR_ATTR_GRAPH && a->g &&
			    (r = qir_graph_walk(a->g, fn, arg)))
				return r;
			for (j = 0; a->type == QIR_ATTR_GRAPHS && j < a->n; j++)
				if (a->graphs[j] &&
				    (r = qir_graph_walk(a->graphs[j], fn, arg)))
					return r;
		}
	return 0;
}

struct node_snapshot {
	const char *domain, *op_type;
	qir_node **v;
	size_t n, cap;
};

static int default_domain(const char *d)
{
	return !d || !*d || !strcmp(d, "ai.onnx");
}

static int node_wanted(const struct node_snapshot *s, const qir_node *n)
{
	if (s->op_type && strcmp(n->op_type, s->op_type))
		return 0;
	if (!s->domain)
		return 1;
	if (default_domain(s->domain))
		return default_domain(n->domain);
	return !strcmp(n->domain, s->domain);
}

static int snapshot_graph(qir_graph *g, void *arg)
{
	struct node_snapshot *s = arg;
	qir_node *n;

	qir_graph_for_each_node(g, n) {
		if (!node_wanted(s, n))
			continue;
		if (s->n == s->cap) {
			size_t cap = s->cap ? 2 * s->cap : 32;
			qir_node **v = realloc(s->v, cap * sizeof(*v));

			if (!v)
				return -1;
			s->v = v;
			s->cap = cap;
		}
		s->v[s->n++] = n;
	}
	return 0;
}

int qir_graph_nodes(qir_graph *g, const char *domain, const char *op_type,
		    int recurse, qir_node ***out, size_t *count,
		    qir_error *err)
{
	struct node_snapshot s = { domain, op_type, NULL, 0, 0 };
	int rc = recurse ? qir_graph_walk(g, snapshot_graph, &s) :
			   snapshot_graph(g, &s);

	if (rc) {
		free(s.v);
		*out = NULL;
		*count = 0;
		return qir_fail(err, QIR_ENOMEM, "out of memory");
	}
	*out = s.v;
	*count = s.n;
	return 0;
}
