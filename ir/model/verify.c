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
#include <stdio.h>
#include <string.h>
#include "model/internal.h"

struct vctx {
	qir_model *m;
	uint64_t gen;
	qir_error *err;
	size_t input_slots, uses;
	char lbl[512];
};

/* Far beyond any ONNX release (IR 13, opset 25 in 2026): a version
 * this large is a corrupt field, not a future model. */
#define VERSION_MAX 1000

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

/*
 * ONNX scoping: a name is defined once per graph; sibling subgraphs
 * (the branches of an If) may reuse a name, but a subgraph may not
 * shadow a name its enclosing graphs have defined by then.
 */
static int define(struct vctx *c, qir_value *v, qir_graph *g,
		  const char *what)
{
	qir_value *outer;

	if (QIR_VPRIV(v)->mark == c->gen)
		return qir_fail(c->err, QIR_EVERIFY,
				"graph '%s': value '%s' is defined more than once (again as %s)",
				g->name, v->name, what);
	if (v->graph != g)
		return qir_fail(c->err, QIR_EVERIFY,
				"graph '%s': value '%s' (%s) belongs to graph '%s'",
				g->name, v->name, what, v->graph->name);
	outer = g->parent ? qir_graph_find_value(g->parent, v->name) : NULL;
	if (outer && QIR_VPRIV(outer)->mark == c->gen)
		return qir_fail(c->err, QIR_EVERIFY,
				"graph '%s': value '%s' (%s) shadows the value of that name in enclosing graph '%s'",
				g->name, v->name, what, outer->graph->name);
	QIR_VPRIV(v)->mark = c->gen;
	return 0;
}

/* Why v, read in g, is not defined at this point. */
static const char *undefined_why(struct vctx *c, const qir_value *v,
				 const qir_graph *g, char *buf, size_t n)
{
	if (!in_scope(v->graph, g)) {
		snprintf(buf, n, "belongs to graph '%s', which is not visible here",
			 v->graph->name);
	} else if (v->producer) {
		snprintf(buf, n, "is used before its producer, node %s, in node order",
			 label(c, v->producer));
	} else {
		snprintf(buf, n, "is never defined (no node, graph input or initializer produces it)");
	}
	return buf;
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
		if (!defined(c, v, g)) {
			char why[700], nl[512];

			ir_node_label(n, nl, sizeof(nl));
			return qir_fail(c->err, QIR_EVERIFY,
					"graph '%s': node %s input %zu '%s' %s",
					g->name, nl, i, v->name,
					undefined_why(c, v, g, why, sizeof(why)));
		}
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
		if (a->type < QIR_ATTR_FLOAT || a->type > QIR_ATTR_TYPE_PROTOS)
			return qir_fail(c->err, QIR_EVERIFY,
					"graph '%s': node %s attribute '%s' has unknown type %d",
					g->name, label(c, n), a->name, a->type);
		if (!a->name[0])
			return qir_fail(c->err, QIR_EVERIFY,
					"graph '%s': node %s has an attribute without a name",
					g->name, label(c, n));
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

/* Leading inputs an operator requires, for operators whose optional
 * inputs all come after the required ones (the ONNX schemas). Ops not
 * listed require input 0 when they have inputs at all, except Loop
 * (M is optional) and Scan-8 (sequence_lens is). */
static const struct {
	const char *op;
	size_t n;
} required_inputs[] = {
	{ "Add", 2 }, { "And", 2 }, { "BatchNormalization", 5 },
	{ "Conv", 2 }, { "ConvTranspose", 2 }, { "DequantizeLinear", 2 },
	{ "Div", 2 }, { "Equal", 2 }, { "Expand", 2 }, { "Gather", 2 },
	{ "GatherElements", 2 }, { "GatherND", 2 }, { "Gemm", 2 },
	{ "Greater", 2 }, { "Less", 2 }, { "MatMul", 2 }, { "Mul", 2 },
	{ "Or", 2 }, { "Pow", 2 }, { "QuantizeLinear", 2 },
	{ "ScatterElements", 3 }, { "ScatterND", 3 }, { "Sub", 2 },
	{ "Tile", 2 }, { "Where", 3 }, { "Xor", 2 },
};

static int check_required(struct vctx *c, qir_graph *g, qir_node *n)
{
	size_t i, need = n->ninputs ? 1 : 0;

	if (n->domain[0] && strcmp(n->domain, "ai.onnx") != 0)
		return 0;
	if (!strcmp(n->op_type, "Loop") || !strcmp(n->op_type, "Scan"))
		return 0;
	for (i = 0; i < sizeof(required_inputs) / sizeof(required_inputs[0]); i++)
		if (!strcmp(n->op_type, required_inputs[i].op))
			need = required_inputs[i].n;
	for (i = 0; i < need; i++)
		if (i >= n->ninputs || !n->inputs[i])
			return qir_fail(c->err, QIR_EVERIFY,
					"graph '%s': node %s: required input %zu is %s",
					g->name, label(c, n), i,
					i < n->ninputs ? "empty (no name)" : "missing");
	return 0;
}

/* Attributes that name an element type (an int64 in the file; read as
 * an int, 2^32 + 10 would pass for FLOAT16). 0 means "unset" where the
 * op allows it (QuantizeLinear's output_dtype). */
static int check_dtype_attrs(struct vctx *c, qir_graph *g, qir_node *n)
{
	static const char *const names[] = { "to", "dtype", "output_dtype" };
	size_t i;

	if (n->domain[0] && strcmp(n->domain, "ai.onnx") != 0)
		return 0;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const qir_attr *a = qir_node_attr(n, names[i]);

		if (!a || a->type != QIR_ATTR_INT || (a->i == 0 && i == 2))
			continue;
		if (!qir_node_attr_dtype(n, names[i]))
			return qir_fail(c->err, QIR_EVERIFY,
					"graph '%s': node %s attribute '%s' = %lld is not a data type",
					g->name, label(c, n), names[i],
					(long long)a->i);
	}
	return 0;
}

/* Element types the operator requires to agree (a FLOAT16 weight
 * under a FLOAT MatMul): runtimes refuse such a model. */
static int check_types(struct vctx *c, qir_graph *g, qir_node *n)
{
	size_t a, b;

	if (!ir_type_clash(n, &a, &b))
		return 0;
	return qir_fail(c->err, QIR_EVERIFY,
			"graph '%s': node %s: input %zu '%s' is %s but input %zu '%s' is %s (%s takes one type for both)",
			g->name, label(c, n), b, n->inputs[b]->name,
			qir_dtype_name(n->inputs[b]->dtype), a,
			n->inputs[a]->name, qir_dtype_name(n->inputs[a]->dtype),
			n->op_type);
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
	if (check_required(c, g, n) < 0 || check_dtype_attrs(c, g, n) < 0 ||
	    check_inputs(c, g, n) < 0 || check_types(c, g, n) < 0 ||
	    check_attrs(c, g, n) < 0)
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

	ir_graph_compact_all(gp);
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

	for (i = 0; i < g->ninputs; i++) {
		if (QIR_VPRIV(g->inputs[i])->mark == c->gen &&
		    g->inputs[i]->graph == g)
			return qir_fail(c->err, QIR_EVERIFY,
					"graph '%s': input '%s' is listed more than once",
					g->name, g->inputs[i]->name);
		if (define(c, g->inputs[i], g, "a graph input") < 0)
			return -1;
	}
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
		char why[700];
		size_t j;

		if (!defined(c, v, g))
			return qir_fail(c->err, QIR_EVERIFY,
					"graph '%s': output '%s' is not produced: it %s",
					g->name, v->name,
					undefined_why(c, v, g, why, sizeof(why)));
		for (j = 0; j < i; j++)
			if (g->outputs[j] == v)
				return qir_fail(c->err, QIR_EVERIFY,
						"graph '%s': output '%s' is listed more than once",
						g->name, v->name);
	}
	return check_uses(c, g);
}

static const char *norm_domain(const char *d)
{
	return strcmp(d, "ai.onnx") ? d : "";
}

static int check_versions(qir_model *m, qir_error *err)
{
	size_t i, j;

	if (m->ir_version < 0 || m->ir_version > VERSION_MAX)
		return qir_fail(err, QIR_EVERIFY,
				"IR version %lld is out of range (0 to %d)",
				(long long)m->ir_version, VERSION_MAX);
	for (i = 0; i < m->nopsets; i++) {
		const char *d = m->opsets[i].domain;

		if (m->opsets[i].version < 0 ||
		    m->opsets[i].version > VERSION_MAX)
			return qir_fail(err, QIR_EVERIFY,
					"opset import of domain '%s' has version %lld, out of range (0 to %d)",
					d[0] ? d : "ai.onnx",
					(long long)m->opsets[i].version,
					VERSION_MAX);
		for (j = 0; j < i; j++)
			if (!strcmp(norm_domain(m->opsets[j].domain),
				    norm_domain(d)))
				return qir_fail(err, QIR_EVERIFY,
						"domain '%s' is imported more than once",
						d[0] ? d : "ai.onnx");
	}
	return 0;
}

int qir_verify(qir_model *m, qir_error *err)
{
	struct vctx c = { .m = m, .err = err };
	int rc;

	if (check_versions(m, err) < 0)
		return -1;
	c.gen = ++QIR_MPRIV(m)->mark_gen;
	rc = check_graph(&c, m->graph);
	/* Every non-empty input slot holds one use and every use was
	 * checked to point back at its slot, so equal counts mean the
	 * lists hold nothing extra. */
	if (rc == 0 && c.uses != c.input_slots)
		rc = qir_fail(err, QIR_EVERIFY,
			      "use lists hold %zu entries for %zu input slots",
			      c.uses, c.input_slots);
	return rc;
}
