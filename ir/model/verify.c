/*
 * ir/model/verify.c - structural checks of a whole model.
 *
 * Definition order is checked with a per-value mark: walking the graph
 * in node order, a value gets marked when it becomes defined (graph
 * input, initializer, node output). A subgraph is checked when its
 * parent node is reached, so it sees exactly the outer values defined
 * before that node; the scope test keeps values of sibling or nested
 * graphs out of sight.
 */
#include <string.h>
#include "model/internal.h"

struct vctx {
	qir_model *m;
	uint64_t gen;
	qir_error *err;
	size_t input_slots, uses;
	ir_strmap seen;	/* value name -> value, whole model */
	char lbl[512];
};

static const char *label(struct vctx *c, const qir_node *n)
{
	return ir_node_label(n, c->lbl, sizeof(c->lbl));
}

static int in_scope(const qir_graph *vg, const qir_graph *g)
{
	for (; g; g = g->parent)
		if (g == vg)
			return 1;
	return 0;
}

static int defined(struct vctx *c, const qir_value *v, const qir_graph *g)
{
	return QIR_VPRIV(v)->mark == c->gen && in_scope(v->graph, g);
}

static int define(struct vctx *c, qir_value *v, qir_graph *g,
		  const char *what)
{
	qir_value *other = ir_strmap_get(&c->seen, v->name);

	if (QIR_VPRIV(v)->mark == c->gen || (other && other != v))
		return qir_fail(c->err, QIR_EVERIFY,
				"graph '%s': value '%s' is defined more than once (again as %s)",
				g->name, v->name, what);
	if (v->graph != g)
		return qir_fail(c->err, QIR_EVERIFY,
				"graph '%s': value '%s' (%s) belongs to graph '%s'",
				g->name, v->name, what, v->graph->name);
	if (ir_strmap_put(&c->seen, v->name, v) < 0)
		return qir_fail(c->err, QIR_ENOMEM, "out of memory verifying");
	QIR_VPRIV(v)->mark = c->gen;
	return 0;
}

static int has_use(const qir_value *v, const qir_node *n, size_t i)
{
	size_t k;

	for (k = 0; k < v->nuses; k++)
		if (v->uses[k].node == n && v->uses[k].index == (int)i)
			return 1;
	return 0;
}

static int check_graph(struct vctx *c, qir_graph *g);

static int check_inputs(struct vctx *c, qir_graph *g, qir_node *n)
{
	size_t i;

	for (i = 0; i < n->ninputs; i++) {
		qir_value *v = n->inputs[i];

		if (!v)
			continue;
		c->input_slots++;
		if (!defined(c, v, g))
			return qir_fail(c->err, QIR_EVERIFY,
					"graph '%s': node %s input %zu '%s' is not defined before use",
					g->name, label(c, n), i, v->name);
		if (!has_use(v, n, i))
			return qir_fail(c->err, QIR_EVERIFY,
					"graph '%s': value '%s' lacks the use by node %s input %zu",
					g->name, v->name, label(c, n), i);
	}
	return 0;
}

static int check_attrs(struct vctx *c, qir_graph *g, qir_node *n)
{
	size_t i, j;

	for (i = 0; i < n->nattrs; i++) {
		qir_attr *a = &n->attrs[i];
		qir_graph *subs[1];
		qir_graph **list = subs;
		size_t cnt = 0;

		if (a->type == QIR_ATTR_GRAPH && a->g) {
			subs[0] = a->g;
			cnt = 1;
		} else if (a->type == QIR_ATTR_GRAPHS) {
			list = a->graphs;
			cnt = a->n;
		}
		for (j = 0; j < cnt; j++) {
			if (list[j]->parent != g || list[j]->parent_node != n)
				return qir_fail(c->err, QIR_EVERIFY,
						"graph '%s': subgraph '%s' of node %s has wrong parent links",
						g->name, list[j]->name, label(c, n));
			if (check_graph(c, list[j]) < 0)
				return -1;
		}
	}
	return 0;
}

static int check_node(struct vctx *c, qir_graph *g, qir_node *n)
{
	size_t i;

	if (n->graph != g)
		return qir_fail(c->err, QIR_EVERIFY,
				"graph '%s': node %s points to graph '%s'",
				g->name, label(c, n), n->graph ? n->graph->name : "?");
	if (!qir_model_opset(c->m, n->domain))
		return qir_fail(c->err, QIR_EVERIFY,
				"node %s uses domain '%s' with no opset import",
				label(c, n), n->domain[0] ? n->domain : "ai.onnx");
	if (check_inputs(c, g, n) < 0 || check_attrs(c, g, n) < 0)
		return -1;
	for (i = 0; i < n->noutputs; i++) {
		qir_value *v = n->outputs[i];

		if (!v)
			continue;
		if (v->producer != n || v->producer_index != (int)i)
			return qir_fail(c->err, QIR_EVERIFY,
					"graph '%s': output %zu '%s' of node %s has a wrong producer link",
					g->name, i, v->name, label(c, n));
		if (v->init)
			return qir_fail(c->err, QIR_EVERIFY,
					"graph '%s': value '%s' is both an initializer and an output of node %s",
					g->name, v->name, label(c, n));
		if (define(c, v, g, "a node output") < 0)
			return -1;
	}
	return 0;
}

static int check_uses(struct vctx *c, qir_graph *g)
{
	struct ir_graph_priv *gp = QIR_GPRIV(g);
	size_t i, k;

	for (i = 0; i < gp->nall; i++) {
		qir_value *v = gp->all[i];

		for (k = 0; k < v->nuses; k++) {
			qir_use u = v->uses[k];

			if (!u.node || u.index < 0 ||
			    (size_t)u.index >= u.node->ninputs ||
			    u.node->inputs[u.index] != v)
				return qir_fail(c->err, QIR_EVERIFY,
						"graph '%s': value '%s' lists a stale use",
						g->name, v->name);
		}
		c->uses += v->nuses;
	}
	return 0;
}

static int check_graph(struct vctx *c, qir_graph *g)
{
	size_t i, count = 0;
	qir_node *n, *prev = NULL;

	for (i = 0; i < g->ninputs; i++)
		if (QIR_VPRIV(g->inputs[i])->mark != c->gen &&
		    define(c, g->inputs[i], g, "a graph input") < 0)
			return -1;
	for (i = 0; i < g->ninits; i++) {
		qir_value *v = g->inits[i];

		if (!v->init)
			return qir_fail(c->err, QIR_EVERIFY,
					"graph '%s': initializer '%s' has no tensor",
					g->name, v->name);
		/* An initializer may also be listed as an input. */
		if (!(v->is_input && QIR_VPRIV(v)->mark == c->gen) &&
		    define(c, v, g, "an initializer") < 0)
			return -1;
	}
	qir_graph_for_each_node(g, n) {
		if (n->prev != prev)
			return qir_fail(c->err, QIR_EVERIFY,
					"graph '%s': node list is corrupt at %s",
					g->name, label(c, n));
		prev = n;
		count++;
		if (check_node(c, g, n) < 0)
			return -1;
	}
	if (count != g->nnodes || g->last != prev)
		return qir_fail(c->err, QIR_EVERIFY,
				"graph '%s': node count %zu does not match the list (%zu)",
				g->name, g->nnodes, count);
	for (i = 0; i < g->noutputs; i++) {
		qir_value *v = g->outputs[i];

		if (!defined(c, v, g))
			return qir_fail(c->err, QIR_EVERIFY,
					"graph '%s': output '%s' is not produced",
					g->name, v->name);
	}
	return check_uses(c, g);
}

int qir_verify(qir_model *m, qir_error *err)
{
	struct vctx c = { .m = m, .err = err };
	int rc;

	c.gen = ++QIR_MPRIV(m)->mark_gen;
	rc = check_graph(&c, m->graph);
	/* Every non-empty input slot holds one use and every use was
	 * checked to point back at its slot, so equal counts mean the
	 * lists hold nothing extra. */
	if (rc == 0 && c.uses != c.input_slots)
		rc = qir_fail(err, QIR_EVERIFY,
			      "use lists hold %zu entries for %zu input slots",
			      c.uses, c.input_slots);
	ir_strmap_free(&c.seen);
	return rc;
}
