/*
 * ir/model/attr.c - node attributes: lookup, typed getters and setters, and
 * the constant behind a Constant node.
 */
#include <stdlib.h>
#include <string.h>
#include "model/internal.h"

void ir_attr_clear(qir_attr *a)
{
	struct ir_attr_priv *p = a->priv;
	size_t i;

	free(a->name);
	free(a->s);
	qir_tensor_free(a->t);
	if (a->g)
		ir_graph_free(a->g);
	free(a->floats);
	free(a->ints);
	for (i = 0; a->strings && i < a->n; i++)
		free(a->strings[i]);
	free(a->strings);
	free(a->string_lens);
	for (i = 0; a->tensors && i < a->n; i++)
		qir_tensor_free(a->tensors[i]);
	free(a->tensors);
	for (i = 0; a->graphs && i < a->n; i++)
		if (a->graphs[i])
			ir_graph_free(a->graphs[i]);
	free(a->graphs);
	free(a->ref_attr_name);
	if (p)
		qir_tensor_free(p->const_cache);
	free(p);
	memset(a, 0, sizeof(*a));
}

qir_attr *qir_node_attr(const qir_node *n, const char *name)
{
	size_t i;

	for (i = 0; i < n->nattrs; i++)
		if (strcmp(n->attrs[i].name, name) == 0)
			return &n->attrs[i];
	return NULL;
}

int64_t qir_node_attr_int(const qir_node *n, const char *name, int64_t dflt)
{
	qir_attr *a = qir_node_attr(n, name);

	return a && a->type == QIR_ATTR_INT ? a->i : dflt;
}

float qir_node_attr_float(const qir_node *n, const char *name, float dflt)
{
	qir_attr *a = qir_node_attr(n, name);

	return a && a->type == QIR_ATTR_FLOAT ? a->f : dflt;
}

const char *qir_node_attr_string(const qir_node *n, const char *name,
				 const char *dflt)
{
	qir_attr *a = qir_node_attr(n, name);

	return a && a->type == QIR_ATTR_STRING && a->s ? a->s : dflt;
}

/* An empty attribute slot named name (replacing any old one), or NULL. */
static qir_attr *slot(qir_node *n, const char *name, int type)
{
	qir_attr *a = qir_node_attr(n, name);
	qir_attr fresh = { 0 };
	char *nm = strdup(name);

	if (!nm)
		return NULL;
	if (a) {
		ir_attr_clear(a);
	} else {
		if (ir_array_push(&n->attrs, &n->nattrs, sizeof(*n->attrs),
				    &fresh) < 0) {
			free(nm);
			return NULL;
		}
		a = &n->attrs[n->nattrs - 1];
	}
	a->name = nm;
	a->type = type;
	return a;
}

int qir_node_set_attr_int(qir_node *n, const char *name, int64_t v)
{
	qir_attr *a = slot(n, name, QIR_ATTR_INT);

	if (!a)
		return -1;
	a->i = v;
	return 0;
}

int qir_node_set_attr_float(qir_node *n, const char *name, float v)
{
	qir_attr *a = slot(n, name, QIR_ATTR_FLOAT);

	if (!a)
		return -1;
	a->f = v;
	return 0;
}

int qir_node_set_attr_string(qir_node *n, const char *name, const char *v)
{
	char *s = strdup(v ? v : "");
	qir_attr *a;

	if (!s)
		return -1;
	a = slot(n, name, QIR_ATTR_STRING);
	if (!a) {
		free(s);
		return -1;
	}
	a->s = s;
	a->slen = strlen(s);
	return 0;
}

int qir_node_set_attr_ints(qir_node *n, const char *name,
			   const int64_t *v, size_t count)
{
	int64_t *copy = malloc(count ? count * sizeof(*copy) : 1);
	qir_attr *a;

	if (!copy)
		return -1;
	if (count)
		memcpy(copy, v, count * sizeof(*copy));
	a = slot(n, name, QIR_ATTR_INTS);
	if (!a) {
		free(copy);
		return -1;
	}
	a->ints = copy;
	a->n = count;
	return 0;
}

int qir_node_set_attr_floats(qir_node *n, const char *name,
			     const float *v, size_t count)
{
	float *copy = malloc(count ? count * sizeof(*copy) : 1);
	qir_attr *a;

	if (!copy)
		return -1;
	if (count)
		memcpy(copy, v, count * sizeof(*copy));
	a = slot(n, name, QIR_ATTR_FLOATS);
	if (!a) {
		free(copy);
		return -1;
	}
	a->floats = copy;
	a->n = count;
	return 0;
}

int qir_node_set_attr_tensor(qir_node *n, const char *name, qir_tensor *t)
{
	qir_attr *a;

	if (!t)
		return -1;
	a = slot(n, name, QIR_ATTR_TENSOR);
	if (!a) {
		qir_tensor_free(t);
		return -1;
	}
	a->t = t;
	return 0;
}

static int copy_strings(qir_node *n, const qir_attr *a)
{
	char **v = calloc(a->n ? a->n : 1, sizeof(*v));
	size_t *lens = calloc(a->n ? a->n : 1, sizeof(*lens));
	qir_attr *d;
	size_t i;

	if (!v || !lens)
		goto fail;
	for (i = 0; i < a->n; i++) {
		lens[i] = a->string_lens ? a->string_lens[i] :
			  strlen(a->strings[i]);
		v[i] = malloc(lens[i] + 1);
		if (!v[i])
			goto fail;
		memcpy(v[i], a->strings[i], lens[i]);
		v[i][lens[i]] = '\0';
	}
	d = slot(n, a->name, QIR_ATTR_STRINGS);
	if (!d)
		goto fail;
	d->strings = v;
	d->string_lens = lens;
	d->n = a->n;
	return 0;
fail:
	for (i = 0; v && i < a->n; i++)
		free(v[i]);
	free(v);
	free(lens);
	return -1;
}

static int copy_string(qir_node *n, const qir_attr *a)
{
	char *s = malloc(a->slen + 1);
	qir_attr *d;

	if (!s)
		return -1;
	memcpy(s, a->s, a->slen);
	s[a->slen] = '\0';
	d = slot(n, a->name, QIR_ATTR_STRING);
	if (!d) {
		free(s);
		return -1;
	}
	d->s = s;
	d->slen = a->slen;
	return 0;
}

int qir_node_copy_attr(qir_node *n, const qir_attr *a, qir_error *err)
{
	qir_tensor *t;
	int rc;

	switch (a->type) {
	case QIR_ATTR_INT:
		rc = qir_node_set_attr_int(n, a->name, a->i);
		break;
	case QIR_ATTR_FLOAT:
		rc = qir_node_set_attr_float(n, a->name, a->f);
		break;
	case QIR_ATTR_STRING:
		rc = copy_string(n, a);
		break;
	case QIR_ATTR_INTS:
		rc = qir_node_set_attr_ints(n, a->name, a->ints, a->n);
		break;
	case QIR_ATTR_FLOATS:
		rc = qir_node_set_attr_floats(n, a->name, a->floats, a->n);
		break;
	case QIR_ATTR_STRINGS:
		rc = copy_strings(n, a);
		break;
	case QIR_ATTR_TENSOR:
		t = qir_tensor_clone(a->t, err);
		if (!t)
			return -1;
		rc = qir_node_set_attr_tensor(n, a->name, t);
		break;
	default:
		return qir_fail(err, QIR_EUNSUPPORTED,
				"node '%s': attribute '%s' of type %d cannot be "
				"copied", n->name, a->name, a->type);
	}
	if (rc < 0)
		return qir_fail(err, QIR_ENOMEM, "out of memory");
	return 0;
}

int qir_node_remove_attr(qir_node *n, const char *name)
{
	qir_attr *a = qir_node_attr(n, name);
	size_t i;

	if (!a)
		return -1;
	i = a - n->attrs;
	ir_attr_clear(a);
	memmove(n->attrs + i, n->attrs + i + 1,
		(n->nattrs - i - 1) * sizeof(*n->attrs));
	n->nattrs--;
	return 0;
}

qir_graph *qir_node_add_subgraph(qir_node *n, const char *attr_name,
				 const char *graph_name, qir_error *err)
{
	qir_graph *g = ir_graph_new(n->graph->model, n->graph, n,
				      graph_name ? graph_name : attr_name);
	qir_attr *a;

	if (!g) {
		qir_fail(err, QIR_ENOMEM, "node '%s': out of memory", n->name);
		return NULL;
	}
	a = slot(n, attr_name, QIR_ATTR_GRAPH);
	if (!a) {
		ir_graph_free(g);
		qir_fail(err, QIR_ENOMEM, "node '%s': out of memory", n->name);
		return NULL;
	}
	a->g = g;
	return g;
}

/* Tensor for value_float(s) / value_int(s), cached in the attribute. */
static qir_tensor *scalar_const(qir_attr *a, const char *name)
{
	struct ir_attr_priv *p = a->priv;
	int dtype = QIR_INT64, rank = 1;
	int64_t dim;
	qir_tensor *t;
	void *d;

	if (p && p->const_cache)
		return p->const_cache;
	switch (a->type) {
	case QIR_ATTR_FLOAT:
		dtype = QIR_FLOAT;
		/* fall through */
	case QIR_ATTR_INT:
		rank = 0;
		break;
	case QIR_ATTR_FLOATS:
		dtype = QIR_FLOAT;
		break;
	case QIR_ATTR_INTS:
		break;
	default:
		return NULL;
	}
	dim = rank ? (int64_t)a->n : 1;
	t = qir_tensor_new(name, dtype, rank, &dim, NULL);
	if (!t)
		return NULL;
	d = qir_tensor_mutable_data(t, NULL);
	if (a->type == QIR_ATTR_FLOAT)
		memcpy(d, &a->f, 4);
	else if (a->type == QIR_ATTR_INT)
		memcpy(d, &a->i, 8);
	else if (a->n)
		memcpy(d, a->type == QIR_ATTR_FLOATS ? (void *)a->floats
						     : (void *)a->ints,
		       t->nbytes);
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p) {
			qir_tensor_free(t);
			return NULL;
		}
		a->priv = p;
	}
	p->const_cache = t;
	return t;
}

qir_tensor *qir_value_const(qir_value *v)
{
	qir_node *n = v->producer;
	qir_attr *a;

	if (!n)
		return v->init && !v->is_input ? v->init : NULL;
	if (strcmp(n->op_type, "Constant") != 0 ||
	    (n->domain[0] && strcmp(n->domain, "ai.onnx") != 0) ||
	    v->producer_index != 0)
		return NULL;
	if ((a = qir_node_attr(n, "value")))
		return a->type == QIR_ATTR_TENSOR ? a->t : NULL;
	if ((a = qir_node_attr(n, "value_float")) && a->type == QIR_ATTR_FLOAT)
		return scalar_const(a, v->name);
	if ((a = qir_node_attr(n, "value_floats")) && a->type == QIR_ATTR_FLOATS)
		return scalar_const(a, v->name);
	if ((a = qir_node_attr(n, "value_int")) && a->type == QIR_ATTR_INT)
		return scalar_const(a, v->name);
	if ((a = qir_node_attr(n, "value_ints")) && a->type == QIR_ATTR_INTS)
		return scalar_const(a, v->name);
	return NULL;
}
