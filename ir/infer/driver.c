/*
 * ir/infer/driver.c - qir_model_infer: one walk over each graph in
 * node order (producers first, so each rule sees its inputs typed),
 * subgraphs before the node that holds them. A value whose type is
 * declared keeps it (a disagreement is a note); any other gets the
 * rule's result, marked inferred so the writer keeps to the file's
 * declarations.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "infer/infer.h"

static int declared(const qir_value *v)
{
	return !QIR_VPRIV(v)->inferred &&
	       (v->dtype != QIR_UNDEFINED || v->rank >= 0);
}

static void shape_str(int dtype, const iri_shape *s, char *buf, size_t n)
{
	size_t o = (size_t)snprintf(buf, n, "%s",
				    dtype ? qir_dtype_name(dtype) : "?");

	if (s->rank < 0 || o >= n)
		return;
	o += (size_t)snprintf(buf + o, n - o, "[");
	for (int k = 0; k < s->rank && o < n; k++)
		o += s->d[k] >= 0 ?
		     (size_t)snprintf(buf + o, n - o, "%s%lld", k ? "," : "",
				      (long long)s->d[k]) :
		     (size_t)snprintf(buf + o, n - o, "%s%s", k ? "," : "",
				      s->p[k] ? s->p[k] : "?");
	if (o < n)
		snprintf(buf + o, n - o, "]");
}

/* A declared type against the inferred one: same element type where
 * both say, same rank, same known dims. */
static void check_declared(struct iri_ctx *c, const qir_value *v,
			   const iri_shape *s)
{
	iri_shape d = { .rank = -1 };
	char a[256], b[256], msg[700];
	int bad = 0;

	if (v->dtype && s->dtype && v->dtype != s->dtype)
		bad = 1;
	if (v->rank >= 0 && s->rank >= 0 && !QIR_VPRIV(v)->shape_inferred) {
		if (v->rank != s->rank)
			bad = 1;
		for (int k = 0; !bad && k < s->rank; k++)
			if (v->dims[k].value >= 0 && s->d[k] >= 0 &&
			    v->dims[k].value != s->d[k])
				bad = 1;
	}
	if (!bad)
		return;
	c->conflicts++;
	if (!c->opts || !c->opts->note)
		return;
	if (v->rank >= 0 && v->rank <= IRI_MAXRANK) {
		d.rank = v->rank;
		for (int k = 0; k < v->rank; k++) {
			d.d[k] = v->dims[k].value;
			d.p[k] = v->dims[k].param;
		}
	}
	shape_str(v->dtype, &d, a, sizeof(a));
	shape_str(s->dtype, s, b, sizeof(b));
	snprintf(msg, sizeof(msg),
		 "value '%s' is declared %s but its producer gives %s; the declaration is kept",
		 v->name, a, b);
	c->opts->note(c->opts->arg, msg);
}

static void free_dims(qir_value *v);

static int same_dims(const qir_value *v, const iri_shape *s)
{
	if (v->rank != s->rank)
		return 0;
	for (int k = 0; k < s->rank; k++) {
		const char *p = v->dims[k].param;

		if (v->dims[k].value != s->d[k] || (!p) != (!s->p[k]) ||
		    (p && strcmp(p, s->p[k])))
			return 0;
	}
	return 1;
}

static void clear(qir_value *v)
{
	free_dims(v);
	v->rank = -1;
	v->dtype = QIR_UNDEFINED;
	QIR_VPRIV(v)->inferred = 0;
}

/* Caller owns: s's dims as the IR keeps them; NULL for rank 0 or less
 * (*ok says whether that is a failure). */
static qir_dim *dims_of(const iri_shape *s, int *ok)
{
	qir_dim *nd = NULL;

	*ok = 1;
	if (s->rank > 0 && !(nd = calloc(s->rank, sizeof(*nd)))) {
		*ok = 0;
		return NULL;
	}
	for (int k = 0; k < s->rank; k++) {
		nd[k].value = s->d[k] >= 0 ? s->d[k] : -1;
		if (s->d[k] < 0 && s->p[k] && !(nd[k].param = strdup(s->p[k]))) {
			while (k-- > 0)
				free(nd[k].param);
			free(nd);
			*ok = 0;
			return NULL;
		}
	}
	return nd;
}

static void free_dims(qir_value *v)
{
	for (int k = 0; v->dims && k < v->rank; k++)
		free(v->dims[k].param);
	free(v->dims);
	v->dims = NULL;
}

/* A declared element type with no declared shape: the shape comes from
 * inference (recomputed each run), the element type stays. */
static int fill_shape(struct iri_ctx *c, qir_value *v, const iri_shape *s)
{
	qir_dim *nd;
	int ok;

	if (QIR_VPRIV(v)->shape_inferred && same_dims(v, s))
		return 0;
	nd = dims_of(s, &ok);
	if (!ok)
		return qir_fail(c->err, QIR_ENOMEM, "out of memory typing '%s'",
				v->name);
	free_dims(v);
	v->rank = s->rank;
	v->dims = nd;
	QIR_VPRIV(v)->shape_inferred = s->rank >= 0;
	return 0;
}

static int store(struct iri_ctx *c, qir_value *v, const iri_shape *s)
{
	qir_dim *nd;
	int ok;

	if (!v)
		return 0;
	if (declared(v)) {
		check_declared(c, v, s);
		if ((v->rank < 0 || QIR_VPRIV(v)->shape_inferred) &&
		    (v->dtype == s->dtype || !s->dtype || !v->dtype))
			return fill_shape(c, v, s);
		return 0;
	}
	if (QIR_VPRIV(v)->inferred && v->dtype == s->dtype && same_dims(v, s))
		return 0;
	nd = dims_of(s, &ok);
	if (!ok)
		return qir_fail(c->err, QIR_ENOMEM, "out of memory typing '%s'",
				v->name);
	clear(v);
	if (s->dtype == QIR_UNDEFINED && s->rank < 0)
		return 0;
	v->dtype = s->dtype;
	v->rank = s->rank;
	v->dims = nd;
	QIR_VPRIV(v)->inferred = 1;
	return 0;
}

/* Loop's body inputs: iteration number (INT64 scalar), condition (BOOL
 * scalar), then the loop-carried values as the Loop receives them. */
static int loop_inputs(struct iri_ctx *c, qir_node *n, qir_graph *body)
{
	iri_shape s;

	for (size_t i = 0; i < body->ninputs; i++) {
		iri_unknown(&s);
		if (i < 2) {
			s.dtype = i ? QIR_BOOL : QIR_INT64;
			s.rank = 0;
		} else {
			iri_input(n, i, &s);
		}
		if (store(c, body->inputs[i], &s) < 0)
			return -1;
	}
	return 0;
}

static int subgraphs(struct iri_ctx *c, qir_node *n)
{
	for (size_t i = 0; i < n->nattrs; i++) {
		qir_attr *a = &n->attrs[i];

		if (a->type == QIR_ATTR_GRAPH && a->g && qir_node_is(n, "Loop") &&
		    !strcmp(a->name, "body") && loop_inputs(c, n, a->g) < 0)
			return -1;
		if (a->type == QIR_ATTR_GRAPH && a->g && iri_graph(c, a->g) < 0)
			return -1;
		for (size_t j = 0; a->type == QIR_ATTR_GRAPHS && j < a->n; j++)
			if (a->graphs[j] && iri_graph(c, a->graphs[j]) < 0)
				return -1;
	}
	return 0;
}

static int infer_node(struct iri_ctx *c, qir_node *n)
{
	iri_shape stack[4], *out = stack;
	iri_rule rule;
	int rc = 0;

	if (!n->noutputs || subgraphs(c, n) < 0)
		return n->noutputs ? -1 : 0;
	if (n->noutputs > 4 &&
	    !(out = malloc(n->noutputs * sizeof(*out))))
		return qir_fail(c->err, QIR_ENOMEM, "out of memory");
	for (size_t i = 0; i < n->noutputs; i++)
		iri_unknown(&out[i]);
	rule = iri_rule_for(n);
	if (rule)
		rc = rule(c, n, out, n->noutputs);
	if (rc < 0)
		rc = qir_fail(c->err, QIR_ENOMEM, "out of memory");
	for (size_t i = 0; rc == 0 && i < n->noutputs; i++)
		rc = store(c, n->outputs[i], &out[i]);
	if (out != stack)
		free(out);
	return rc;
}

int iri_graph(struct iri_ctx *c, qir_graph *g)
{
	qir_node *n;

	qir_graph_for_each_node(g, n)
		if (infer_node(c, n) < 0)
			return -1;
	return 0;
}

int qir_model_infer(qir_model *m, const qir_infer_opts *opts, qir_error *err)
{
	qir_infer_opts o;
	struct iri_ctx c = { .opts = &o, .err = err };
	struct iri_fold *f, *next;
	int rc;

	if (ir_opts_read(&o, sizeof(o), opts, IR_INFER_OPTS_4_0,
			 "qir_infer_opts", err) < 0)
		return -1;
	if (!m || !m->graph)
		return 0;
	rc = iri_graph(&c, m->graph);
	for (f = c.folded; f; f = next) {
		next = f->next;
		QIR_VPRIV(f->owner)->fold = NULL;
		free(f);
	}
	return rc;
}

int ir_infer_at_load(qir_model *m, qir_error *err)
{
	qir_infer_opts o = QIR_INFER_OPTS_INIT;

	o.note = ir_model_keep_note;
	o.arg = QIR_MPRIV(m);
	return qir_model_infer(m, &o, err);
}
