/*
 * ir/model/hash.c - FNV-1a over a model's structure and tensor bytes, so
 * --print-changed can tell whether a pass changed anything, and a
 * calibration file names the model it was measured on.
 *
 * Tensor bytes enter as their 64-bit digest (ir/model/digest.c, word by
 * word at memory speed) where the hash before ABI 4.3 fed them to FNV
 * one byte at a time (seconds per GiB). Bytes that cannot change while
 * the tensor points at them (a read-only mapping of the model file or
 * of its external data) keep their digest in the tensor, so a process
 * reads a large model's weights once however many times it hashes
 * (calibration, then every pass that checks the calibration file).
 * Files that carry the old value still match (qir_model_hash_is).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "model/internal.h"

#define FNV_PRIME 0x100000001b3ULL

/* The hash being computed: legacy feeds tensor bytes to FNV itself. */
struct hasher {
	uint64_t h;
	int legacy;
};

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

/* Bytes whose digest can be kept: they cannot change while the tensor
 * points at them (a read-only mapping; a spill mapping is left out, as
 * a later spill may map other bytes at the same address). */
static int steady(const qir_tensor *t, const void *d)
{
	const struct ir_tensor_priv *p = QIR_TPRIV(t);

	if (t->storage == QIR_STORE_BORROWED)
		return 1;
	return t->storage == QIR_STORE_EXTERNAL && p->map && p->map->addr &&
	       d == p->map->addr + p->ext_offset;
}

static int trace = -1;	/* QOPT_TRACE_HASH: each digest read said */

static uint64_t bytes_digest(qir_tensor *t, const void *d)
{
	struct ir_tensor_priv *p = QIR_TPRIV(t);
	int keep = steady(t, d);

	if (keep && p->dg_addr == d && p->dg_len == t->nbytes)
		return p->dg;
	if (trace < 0)
		trace = getenv("QOPT_TRACE_HASH") != NULL;
	if (trace)
		fprintf(stderr, "qopt: hash: read %llu bytes of tensor '%s'\n",
			(unsigned long long)t->nbytes, t->name ? t->name : "");
	if (!keep)
		return ir_digest(d, t->nbytes);
	p->dg = ir_digest(d, t->nbytes);
	p->dg_addr = d;
	p->dg_len = t->nbytes;
	return p->dg;
}

static void mix_tensor(struct hasher *hs, qir_tensor *t)
{
	uint64_t *h = &hs->h;
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
	if (d && hs->legacy)
		mix(h, d, t->nbytes);
	else if (d)
		mix_i64(h, (int64_t)bytes_digest(t, d));
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

static void mix_graph(struct hasher *hs, qir_graph *g);

static void mix_attr(struct hasher *hs, qir_attr *a)
{
	uint64_t *h = &hs->h;
	size_t i;

	mix_str(h, a->name);
	mix_i64(h, a->type);
	mix_str(h, a->ref_attr_name);
	switch (a->type) {
	case QIR_ATTR_FLOAT: mix(h, &a->f, sizeof(a->f)); break;
	case QIR_ATTR_INT: mix_i64(h, a->i); break;
	case QIR_ATTR_STRING: mix(h, a->s ? a->s : "", a->s ? a->slen : 0); break;
	case QIR_ATTR_TENSOR: mix_tensor(hs, a->t); break;
	case QIR_ATTR_GRAPH: if (a->g) mix_graph(hs, a->g); break;
	case QIR_ATTR_FLOATS: mix(h, a->floats, a->n * sizeof(float)); break;
	case QIR_ATTR_INTS: mix(h, a->ints, a->n * sizeof(int64_t)); break;
	case QIR_ATTR_STRINGS:
		for (i = 0; i < a->n; i++)
			mix(h, a->strings[i], a->string_lens ? a->string_lens[i]
					      : strlen(a->strings[i]) + 1);
		break;
	case QIR_ATTR_TENSORS:
		for (i = 0; i < a->n; i++)
			mix_tensor(hs, a->tensors[i]);
		break;
	case QIR_ATTR_GRAPHS:
		for (i = 0; i < a->n; i++)
			mix_graph(hs, a->graphs[i]);
		break;
	default:
		break;
	}
}

static void mix_graph(struct hasher *hs, qir_graph *g)
{
	uint64_t *h = &hs->h;
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
		mix_tensor(hs, g->inits[i]->init);
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
			mix_attr(hs, &n->attrs[i]);
	}
}

static uint64_t model_hash(qir_model *m, int legacy)
{
	struct hasher hs = { 0xcbf29ce484222325ULL, legacy };
	uint64_t *h = &hs.h;
	size_t i;

	mix_i64(h, m->ir_version);
	for (i = 0; i < m->nopsets; i++) {
		mix_str(h, m->opsets[i].domain);
		mix_i64(h, m->opsets[i].version);
	}
	mix_str(h, m->producer_name);
	mix_str(h, m->producer_version);
	mix_str(h, m->domain);
	mix_i64(h, m->model_version);
	for (i = 0; i < m->nmetadata; i++) {
		mix_str(h, m->metadata[i].key);
		mix_str(h, m->metadata[i].value);
	}
	mix_graph(&hs, m->graph);
	return hs.h;
}

uint64_t qir_model_hash(qir_model *m)
{
	return model_hash(m, 0);
}

int qir_model_hash_is(qir_model *m, const char *hex)
{
	char mine[24];

	if (!m || !hex)
		return 0;
	snprintf(mine, sizeof(mine), "%016llx",
		 (unsigned long long)model_hash(m, 0));
	if (!strcasecmp(mine, hex))
		return 1;
	/* A file made before ABI 4.3: the byte-serial value, computed
	 * only for such a file (or a mismatch). */
	snprintf(mine, sizeof(mine), "%016llx",
		 (unsigned long long)model_hash(m, 1));
	return !strcasecmp(mine, hex);
}
