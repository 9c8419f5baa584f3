/*
 * ir/model/hash.c - FNV-1a over a model's structure and tensor bytes, so
 * --print-changed can tell whether a pass changed anything.
 */
#include <string.h>
#include "model/internal.h"

#define FNV_PRIME 0x100000001b3ULL

static void mix(uint64_t *h, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++) {
		*h ^= b[i];
		*h *= FNV_PRIME;
	}
}

/* Strings carry their terminator so "ab","c" differs from "a","bc". */
static void mix_str(uint64_t *h, const char *s)
{
	if (!s)
		s = "";
	mix(h, s, strlen(s) + 1);
}

static void mix_i64(uint64_t *h, int64_t x)
{
	mix(h, &x, sizeof(x));
}

static void mix_tensor(uint64_t *h, qir_tensor *t)
{
	const void *d;
	uint64_t i;

	if (!t) {
		mix_i64(h, -1);
		return;
	}
	mix_str(h, t->name);
	mix_i64(h, t->dtype);
	mix_i64(h, t->rank);
	for (i = 0; i < (uint64_t)t->rank; i++)
		mix_i64(h, t->dims[i]);
	for (i = 0; i < t->nstrings; i++)
		mix(h, t->strings[i], t->string_lens[i]);
	d = qir_tensor_data(t, NULL);
	if (d)
		mix(h, d, t->nbytes);
	else
		mix_i64(h, (int64_t)t->storage);	/* unreadable data */
}

static void mix_value(uint64_t *h, const qir_value *v)
{
	int i;

	mix_str(h, v ? v->name : "");
	if (!v)
		return;
	mix_i64(h, v->dtype);
	mix_i64(h, v->rank);
	for (i = 0; i < v->rank; i++) {
		mix_i64(h, v->dims[i].value);
		mix_str(h, v->dims[i].param);
	}
}

static void mix_graph(uint64_t *h, qir_graph *g);

static void mix_attr(uint64_t *h, qir_attr *a)
{
	size_t i;

	mix_str(h, a->name);
	mix_i64(h, a->type);
	mix_str(h, a->ref_attr_name);
	switch (a->type) {
	case QIR_ATTR_FLOAT: mix(h, &a->f, sizeof(a->f)); break;
	case QIR_ATTR_INT: mix_i64(h, a->i); break;
	case QIR_ATTR_STRING: mix(h, a->s ? a->s : "", a->s ? a->slen : 0); break;
	case QIR_ATTR_TENSOR: mix_tensor(h, a->t); break;
	case QIR_ATTR_GRAPH: if (a->g) mix_graph(h, a->g); break;
	case QIR_ATTR_FLOATS: mix(h, a->floats, a->n * sizeof(float)); break;
	case QIR_ATTR_INTS: mix(h, a->ints, a->n * sizeof(int64_t)); break;
	case QIR_ATTR_STRINGS:
		for (i = 0; i < a->n; i++)
			mix(h, a->strings[i], a->string_lens ? a->string_lens[i]
					      : strlen(a->strings[i]) + 1);
		break;
	case QIR_ATTR_TENSORS:
		for (i = 0; i < a->n; i++)
			mix_tensor(h, a->tensors[i]);
		break;
	case QIR_ATTR_GRAPHS:
		for (i = 0; i < a->n; i++)
			mix_graph(h, a->graphs[i]);
		break;
	default:
		break;
	}
}

static void mix_graph(uint64_t *h, qir_graph *g)
{
	qir_node *n;
	size_t i;

	mix_str(h, g->name);
	mix_i64(h, (int64_t)g->ninputs);
	for (i = 0; i < g->ninputs; i++)
		mix_value(h, g->inputs[i]);
	mix_i64(h, (int64_t)g->noutputs);
	for (i = 0; i < g->noutputs; i++)
		mix_value(h, g->outputs[i]);
	mix_i64(h, (int64_t)g->ninits);
	for (i = 0; i < g->ninits; i++)
		mix_tensor(h, g->inits[i]->init);
	mix_i64(h, (int64_t)g->nnodes);
	qir_graph_for_each_node(g, n) {
		mix_str(h, n->op_type);
		mix_str(h, n->domain);
		mix_str(h, n->name);
		mix_i64(h, (int64_t)n->ninputs);
		for (i = 0; i < n->ninputs; i++)
			mix_str(h, n->inputs[i] ? n->inputs[i]->name : "");
		mix_i64(h, (int64_t)n->noutputs);
		for (i = 0; i < n->noutputs; i++)
			mix_value(h, n->outputs[i]);
		mix_i64(h, (int64_t)n->nattrs);
		for (i = 0; i < n->nattrs; i++)
			mix_attr(h, &n->attrs[i]);
	}
}

uint64_t qir_model_hash(qir_model *m)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	mix_i64(&h, m->ir_version);
	for (i = 0; i < m->nopsets; i++) {
		mix_str(&h, m->opsets[i].domain);
		mix_i64(&h, m->opsets[i].version);
	}
	mix_str(&h, m->producer_name);
	mix_str(&h, m->producer_version);
	mix_str(&h, m->domain);
	mix_i64(&h, m->model_version);
	for (i = 0; i < m->nmetadata; i++) {
		mix_str(&h, m->metadata[i].key);
		mix_str(&h, m->metadata[i].value);
	}
	mix_graph(&h, m->graph);
	return h;
}
