/*
 * ir/infer/control.c - If and Loop: their outputs take the types of
 * the body graphs' outputs (inferred first by the driver). If's two
 * branches agree on the element type; dims they disagree on are
 * unknown. Loop's scan outputs gain a leading dim of unknown size.
 */
#include <string.h>
#include "infer/infer.h"

static qir_graph *body(const qir_node *n, const char *name)
{
	qir_attr *a = qir_node_attr(n, name);

	return a && a->type == QIR_ATTR_GRAPH ? a->g : NULL;
}

static void of_value(const qir_value *v, iri_shape *s)
{
	iri_unknown(s);
	if (!v || v->rank > IRI_MAXRANK)
		return;
	s->dtype = v->dtype;
	s->rank = v->rank;
	for (int k = 0; k < v->rank; k++) {
		s->d[k] = v->dims[k].value;
		s->p[k] = v->dims[k].value < 0 ? v->dims[k].param : NULL;
	}
}

static void merge(iri_shape *a, const iri_shape *b)
{
	if (a->dtype != b->dtype)
		a->dtype = a->dtype ? (b->dtype ? QIR_UNDEFINED : a->dtype)
				    : b->dtype;
	if (a->rank != b->rank) {
		a->rank = -1;
		return;
	}
	for (int k = 0; k < a->rank; k++)
		if (a->d[k] != b->d[k] || a->d[k] < 0) {
			int same = a->p[k] && b->p[k] && !strcmp(a->p[k], b->p[k]);

			a->d[k] = -1;
			a->p[k] = same ? a->p[k] : NULL;
		}
}

int iri_if(struct iri_ctx *c, const qir_node *n, iri_shape *out, size_t nout)
{
	qir_graph *t = body(n, "then_branch"), *e = body(n, "else_branch");
	iri_shape s;

	(void)c;
	if (!t || !e || t->noutputs != nout || e->noutputs != nout)
		return 0;
	for (size_t i = 0; i < nout; i++) {
		of_value(t->outputs[i], &out[i]);
		of_value(e->outputs[i], &s);
		merge(&out[i], &s);
	}
	return 0;
}

/* Body outputs: cond, N loop-carried values, K scan outputs; the Loop's
 * outputs: the N final values, then the K stacked scans. */
int iri_loop(struct iri_ctx *c, const qir_node *n, iri_shape *out,
	     size_t nout)
{
	qir_graph *b = body(n, "body");
	size_t ncarried = n->ninputs > 2 ? n->ninputs - 2 : 0;

	(void)c;
	if (!b || b->noutputs != 1 + nout || ncarried > nout)
		return 0;
	for (size_t i = 0; i < nout; i++) {
		of_value(b->outputs[1 + i], &out[i]);
		if (i < ncarried || out[i].rank < 0)
			continue;
		if (out[i].rank >= IRI_MAXRANK) {
			out[i].rank = -1;
			continue;
		}
		memmove(out[i].d + 1, out[i].d, out[i].rank * sizeof(*out[i].d));
		memmove(out[i].p + 1, out[i].p, out[i].rank * sizeof(*out[i].p));
		out[i].d[0] = -1;
		out[i].p[0] = NULL;
		out[i].rank++;
	}
	return 0;
}
