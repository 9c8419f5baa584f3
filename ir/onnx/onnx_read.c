/*
 * ir/onnx/onnx_read.c - ONNX file -> IR.
 *
 * The file is mmap'ed and unpacked by protobuf-c, which copies every
 * bytes field it reads; so large tensor payloads are first swapped for
 * tokens (ir/onnx/onnx_skeleton.c) and, once unpacked, their raw_data point
 * back into the mapping, which then lives as long as the model: each
 * weight is read from the file only when used, never copied on load.
 * Files with no large payload are unmapped at once. The unpacked
 * ModelProto stays alive in the model (priv pb) and every IR object
 * points at the message it came from: tensors borrow raw_data from it,
 * and the writer takes what the IR does not model (doc strings,
 * functions, training info, unknown fields, ...) from there.
 *
 * Graphs are read in two passes over their nodes: first every node and
 * the values it produces, then inputs, attributes and subgraphs. A
 * subgraph is read when every name of its enclosing graphs already
 * exists, so its captures resolve to the outer values even when the
 * file lists nodes out of order.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "onnx/onnx_io.h"
#include "file/mapfault.h"

static int read_graph(struct ir_load_ctx *ctx, qir_graph *g,
		      const Onnx__GraphProto *gp, qir_error *err);

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

static int nomem(qir_error *err)
{
	return qir_fail(err, QIR_ENOMEM, "out of memory while loading");
}

/* ---- values ---------------------------------------------------- */

/* ONNX dims are >= 0 or unknown (no value, or a dim_param). */
static int check_dims(qir_value *v, const Onnx__ValueInfoProto *vi,
		      qir_error *err)
{
	const Onnx__TypeProto *tp = vi->type;
	const Onnx__TensorShapeProto *sh;

	if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
	    !tp->tensor_type->shape)
		return 0;
	sh = tp->tensor_type->shape;
	for (size_t i = 0; i < sh->n_dim; i++)
		if (sh->dim[i]->value_case ==
		    ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
		    sh->dim[i]->dim_value < 0)
			return qir_fail(err, QIR_EINVALID,
					"value '%s': dim %zu is %" PRId64 " (dims are >= 0, or unknown)",
					v->name, i, sh->dim[i]->dim_value);
	return 0;
}

/* The IR type from a ValueInfoProto; non-tensor types (sequence, map,
 * optional, ...) stay unknown in the IR and live on in the message. */
static int apply_type(qir_value *v, const Onnx__ValueInfoProto *vi,
		      qir_error *err)
{
	const Onnx__TypeProto *tp = vi->type;
	const Onnx__TypeProto__Tensor *tt;
	int saved = QIR_VPRIV(v)->in_value_info;
	int64_t *dims = NULL;
	int rank = -1, dtype, rc;

	if (!QIR_VPRIV(v)->pb)
		QIR_VPRIV(v)->pb = vi;
	if (check_dims(v, vi, err))
		return -1;
	if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
		return 0;
	tt = tp->tensor_type;
	dtype = tt->has_elem_type ? tt->elem_type : QIR_UNDEFINED;
	if (!qir_dtype_name(dtype))
		dtype = QIR_UNDEFINED;
	if (tt->shape) {
		if (tt->shape->n_dim > INT32_MAX)
			return qir_fail(err, QIR_EINVALID,
					"value '%s': shape has too many dims",
					v->name);
		rank = (int)tt->shape->n_dim;
		dims = calloc(rank ? rank : 1, sizeof(*dims));
		if (!dims)
			return nomem(err);
		for (int i = 0; i < rank; i++) {
			const Onnx__TensorShapeProto__Dimension *d =
				tt->shape->dim[i];

			dims[i] = d->value_case ==
				  ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE ?
				  d->dim_value : -1;
		}
	}
	rc = qir_value_set_type(v, dtype, rank, dims, err);
	free(dims);
	QIR_VPRIV(v)->in_value_info = saved;
	if (rc)
		return -1;
	for (int i = 0; i < rank; i++) {
		const Onnx__TensorShapeProto__Dimension *d =
			tt->shape->dim[i];

		if (d->value_case !=
		    ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM ||
		    !d->dim_param)
			continue;
		v->dims[i].param = strdup(d->dim_param);
		if (!v->dims[i].param)
			return nomem(err);
	}
	return 0;
}

static qir_value *named_value(qir_graph *g, const char *name,
			      const char *what, qir_error *err)
{
	qir_value *v;

	if (!name || !name[0]) {
		qir_fail(err, QIR_EINVALID, "graph '%s': %s without a name",
			 g->name, what);
		return NULL;
	}
	v = ir_value_get_or_make(g, name);
	if (!v)
		nomem(err);
	return v;
}

/* A name as seen from g: its own or an enclosing graph's value, or a
 * placeholder here for a name defined nowhere (yet): the verifier
 * reports it, loading does not fail. */
static qir_value *lookup(qir_graph *g, const char *name, qir_error *err)
{
	qir_value *v = qir_graph_find_value(g, name);

	if (!v && !(v = ir_value_get_or_make(g, name)))
		nomem(err);
	return v;
}

static int read_inputs(qir_graph *g, const Onnx__GraphProto *gp,
		       qir_error *err)
{
	for (size_t i = 0; i < gp->n_input; i++) {
		qir_value *v = named_value(g, gp->input[i]->name,
					   "input", err);

		if (!v || apply_type(v, gp->input[i], err))
			return -1;
		if (qir_graph_add_input(g, v))
			return nomem(err);
	}
	return 0;
}

static int read_initializers(struct ir_load_ctx *ctx, qir_graph *g,
			     const Onnx__GraphProto *gp, qir_error *err)
{
	for (size_t i = 0; i < gp->n_initializer; i++) {
		const Onnx__TensorProto *tp = gp->initializer[i];
		qir_value *v = named_value(g, tp->name, "initializer", err);
		qir_tensor *t;

		if (!v)
			return -1;
		if (v->init)
			return qir_fail(err, QIR_EINVALID,
					"graph '%s': initializer '%s' appears twice",
					g->name, v->name);
		t = ir_tensor_from_pb(ctx, tp, err);
		if (!t)
			return -1;
		if (ir_array_push(&g->inits, &g->ninits, sizeof(v), &v)) {
			qir_tensor_free(t);
			return nomem(err);
		}
		v->init = t;
		/* An initializer that is not also an input has its type. */
		if (v->dtype == QIR_UNDEFINED && v->rank < 0 &&
		    qir_value_set_type(v, t->dtype, t->rank, t->dims, err))
			return -1;
	}
	return 0;
}

static int is_graph_input(const qir_graph *g, const qir_value *v)
{
	for (size_t i = 0; i < g->ninputs; i++)
		if (g->inputs[i] == v)
			return 1;
	return 0;
}

static int read_outputs(qir_graph *g, const Onnx__GraphProto *gp,
			qir_error *err)
{
	for (size_t i = 0; i < gp->n_output; i++) {
		const char *name = gp->output[i]->name;
		qir_value *v;

		if (!name || !name[0])
			return qir_fail(err, QIR_EINVALID,
					"graph '%s': output %zu without a name",
					g->name, i);
		v = lookup(g, name, err);
		if (!v)
			return -1;
		/* A graph input passed straight out keeps the input's
		 * declaration: the writer keeps both as the file has
		 * them, so the IR must not depend on which came last. */
		if (!is_graph_input(g, v) && apply_type(v, gp->output[i], err))
			return -1;
		if (qir_graph_add_output(g, v))
			return nomem(err);
	}
	return 0;
}

static int read_value_info(qir_graph *g, const Onnx__GraphProto *gp,
			   qir_error *err)
{
	for (size_t i = 0; i < gp->n_value_info; i++) {
		const Onnx__ValueInfoProto *vi = gp->value_info[i];
		qir_value *v;

		if (!vi->name || !vi->name[0])
			continue;	/* nothing to attach it to */
		v = lookup(g, vi->name, err);
		if (!v)
			return -1;
		if (v->graph != g)
			continue;	/* an outer value: its graph types it */
		/* The declaration of a graph input or output is its type,
		 * and an initializer's tensor is; value_info only adds
		 * types for intermediate values (the writer drops the
		 * entry for inputs and outputs). */
		if (v->is_input || v->is_output)
			continue;
		if (v->init) {
			if (check_dims(v, vi, err))
				return -1;
			QIR_VPRIV(v)->in_value_info = 1;
			continue;
		}
		if (apply_type(v, vi, err))
			return -1;
		QIR_VPRIV(v)->in_value_info = 1;
	}
	return 0;
}

/* ---- attributes ------------------------------------------------ */

/* IR version 1 files carry no attribute type: infer it. */
static int attr_type(const Onnx__AttributeProto *ap)
{
	if (ap->has_type)
		return ap->type;
	if (ap->has_f) return QIR_ATTR_FLOAT;
	if (ap->has_i) return QIR_ATTR_INT;
	if (ap->has_s) return QIR_ATTR_STRING;
	if (ap->t) return QIR_ATTR_TENSOR;
	if (ap->g) return QIR_ATTR_GRAPH;
	if (ap->sparse_tensor) return QIR_ATTR_SPARSE_TENSOR;
	if (ap->tp) return QIR_ATTR_TYPE_PROTO;
	if (ap->n_floats) return QIR_ATTR_FLOATS;
	if (ap->n_ints) return QIR_ATTR_INTS;
	if (ap->n_strings) return QIR_ATTR_STRINGS;
	if (ap->n_tensors) return QIR_ATTR_TENSORS;
	if (ap->n_graphs) return QIR_ATTR_GRAPHS;
	if (ap->n_sparse_tensors) return QIR_ATTR_SPARSE_TENSORS;
	if (ap->n_type_protos) return QIR_ATTR_TYPE_PROTOS;
	return QIR_ATTR_UNDEFINED;
}

static qir_graph *read_subgraph(struct ir_load_ctx *ctx, qir_node *n,
				const Onnx__GraphProto *gp, qir_error *err)
{
	qir_graph *sg = ir_graph_new(n->graph->model, n->graph, n,
				       gp->name ? gp->name : "");

	if (!sg) {
		nomem(err);
		return NULL;
	}
	if (read_graph(ctx, sg, gp, err)) {
		ir_graph_free(sg);
		return NULL;
	}
	return sg;
}

static char *copy_bytes(const ProtobufCBinaryData *b)
{
	char *s = malloc(b->len + 1);

	if (s) {
		if (b->len)
			memcpy(s, b->data, b->len);
		s[b->len] = 0;
	}
	return s;
}

static int read_attr_lists(struct ir_load_ctx *ctx, qir_node *n,
			   qir_attr *a, const Onnx__AttributeProto *ap,
			   qir_error *err)
{
	switch (a->type) {
	case QIR_ATTR_FLOATS:
		a->n = ap->n_floats;
		a->floats = malloc(sizeof(float) * (a->n ? a->n : 1));
		if (!a->floats)
			return nomem(err);
		if (a->n)
			memcpy(a->floats, ap->floats, sizeof(float) * a->n);
		return 0;
	case QIR_ATTR_INTS:
		a->n = ap->n_ints;
		a->ints = malloc(sizeof(int64_t) * (a->n ? a->n : 1));
		if (!a->ints)
			return nomem(err);
		if (a->n)
			memcpy(a->ints, ap->ints, sizeof(int64_t) * a->n);
		return 0;
	case QIR_ATTR_STRINGS:
		a->strings = calloc(ap->n_strings + 1, sizeof(char *));
		a->string_lens = calloc(ap->n_strings + 1, sizeof(size_t));
		if (!a->strings || !a->string_lens)
			return nomem(err);
		for (; a->n < ap->n_strings; a->n++) {
			a->strings[a->n] = copy_bytes(&ap->strings[a->n]);
			if (!a->strings[a->n])
				return nomem(err);
			a->string_lens[a->n] = ap->strings[a->n].len;
		}
		return 0;
	case QIR_ATTR_TENSORS:
		a->tensors = calloc(ap->n_tensors + 1, sizeof(qir_tensor *));
		if (!a->tensors)
			return nomem(err);
		for (; a->n < ap->n_tensors; a->n++) {
			a->tensors[a->n] = ir_tensor_from_pb(ctx,
							       ap->tensors[a->n], err);
			if (!a->tensors[a->n])
				return -1;
		}
		return 0;
	case QIR_ATTR_GRAPHS:
		a->graphs = calloc(ap->n_graphs + 1, sizeof(qir_graph *));
		if (!a->graphs)
			return nomem(err);
		for (; a->n < ap->n_graphs; a->n++) {
			a->graphs[a->n] = read_subgraph(ctx, n, ap->graphs[a->n],
							err);
			if (!a->graphs[a->n])
				return -1;
		}
		return 0;
	case QIR_ATTR_SPARSE_TENSORS:
		for (size_t i = 0; i < ap->n_sparse_tensors; i++)
			if (ir_sparse_check(ap->sparse_tensors[i], a->name, err))
				return -1;
		return 0;
	default:
		/* Sparse tensors, type protos, unknown types: kept in the
		 * message (priv pb) and written back from it. */
		return 0;
	}
}

static int read_attr(struct ir_load_ctx *ctx, qir_node *n, qir_attr *a,
		     const Onnx__AttributeProto *ap, qir_error *err)
{
	struct ir_attr_priv *p = calloc(1, sizeof(*p));

	a->priv = p;
	a->name = dup_or_empty(ap->name);
	if (!p || !a->name)
		return nomem(err);
	p->pb = ap;
	a->type = attr_type(ap);
	if (ap->ref_attr_name && !(a->ref_attr_name = strdup(ap->ref_attr_name)))
		return nomem(err);
	switch (a->type) {
	case QIR_ATTR_FLOAT:
		a->f = ap->f;
		return 0;
	case QIR_ATTR_INT:
		a->i = ap->i;
		return 0;
	case QIR_ATTR_STRING:
		a->s = copy_bytes(&ap->s);
		a->slen = ap->s.len;
		return a->s ? 0 : nomem(err);
	case QIR_ATTR_TENSOR:
		if (!ap->t)
			return qir_fail(err, QIR_EINVALID,
					"attribute '%s': type TENSOR without a tensor",
					a->name);
		a->t = ir_tensor_from_pb(ctx, ap->t, err);
		return a->t ? 0 : -1;
	case QIR_ATTR_SPARSE_TENSOR:
		/* Kept verbatim whatever it holds; checked when it holds a
		 * sparse tensor. */
		if (ap->sparse_tensor &&
		    ir_sparse_check(ap->sparse_tensor, a->name, err))
			return -1;
		return 0;
	case QIR_ATTR_GRAPH:
		if (!ap->g)
			return qir_fail(err, QIR_EINVALID,
					"attribute '%s': type GRAPH without a graph",
					a->name);
		a->g = read_subgraph(ctx, n, ap->g, err);
		return a->g ? 0 : -1;
	default:
		return read_attr_lists(ctx, n, a, ap, err);
	}
}

/* ---- nodes ------------------------------------------------------ */

static const char *node_label(const Onnx__NodeProto *np)
{
	return np->name && np->name[0] ? np->name :
	       np->op_type ? np->op_type : "?";
}

static int add_null_output(qir_node *n, qir_error *err)
{
	qir_value *none = NULL;

	if (ir_array_push(&n->outputs, &n->noutputs, sizeof(none), &none))
		return nomem(err);
	return 0;
}

/*
 * ONNX does not require node names to be unique and tools match nodes
 * by name, so a name read from the file is kept as written; only nodes
 * that passes create get de-duplicated names.
 */
static int keep_file_name(qir_model *m, qir_node *n, const char *name)
{
	struct ir_model_priv *mp = QIR_MPRIV(m);
	char *copy;

	if (!name || !strcmp(n->name, name))
		return 0;
	copy = strdup(name);
	if (!copy)
		return -1;
	if (ir_strmap_get(&mp->node_names, n->name) == n)
		ir_strmap_del(&mp->node_names, n->name);
	free(n->name);
	n->name = copy;
	return 0;
}

/* Pass 1: the node and the values it defines. */
static qir_node *read_node_outputs(qir_graph *g, const Onnx__NodeProto *np,
				   qir_error *err)
{
	qir_node *n;

	if (!np->op_type || !np->op_type[0]) {
		qir_fail(err, QIR_EINVALID, "node '%s': no op_type",
			 np->name ? np->name : "");
		return NULL;
	}
	n = qir_node_new(g, np->op_type, np->domain, np->name);
	if (!n) {
		nomem(err);
		return NULL;
	}
	QIR_NPRIV(n)->pb = np;
	if (keep_file_name(g->model, n, np->name) < 0) {
		nomem(err);
		return NULL;
	}
	for (size_t i = 0; i < np->n_output; i++) {
		const char *name = np->output[i];
		qir_value *v;

		if (!name[0]) {
			if (add_null_output(n, err))
				return NULL;
			continue;
		}
		v = ir_value_get_or_make(g, name);
		if (!v) {
			nomem(err);
			return NULL;
		}
		if (v->producer || v->init || v->is_input) {
			qir_fail(err, QIR_EINVALID,
				 "node '%s' (%s): output '%s' is already defined in graph '%s'",
				 node_label(np), np->op_type, name, g->name);
			return NULL;
		}
		if (!qir_node_add_output(n, v, NULL)) {
			nomem(err);
			return NULL;
		}
	}
	return n;
}

/* Pass 2: what the node reads, its attributes and subgraphs. */
static int read_node_rest(struct ir_load_ctx *ctx, qir_node *n,
			  const Onnx__NodeProto *np, qir_error *err)
{
	for (size_t i = 0; i < np->n_input; i++) {
		const char *name = np->input[i];
		qir_value *v = NULL;

		if (name[0] && !(v = lookup(n->graph, name, err)))
			return -1;
		if (qir_node_add_input(n, v))
			return nomem(err);
	}
	if (!np->n_attribute)
		return 0;
	n->attrs = calloc(np->n_attribute, sizeof(*n->attrs));
	if (!n->attrs)
		return nomem(err);
	for (size_t i = 0; i < np->n_attribute; i++) {
		n->nattrs = i + 1;
		if (read_attr(ctx, n, &n->attrs[i], np->attribute[i], err)) {
			/* Always named, whatever the message says: an
			 * error from a subgraph reads as a path, outer
			 * node first. */
			if (err) {
				char tmp[sizeof(err->msg) + 512];

				snprintf(tmp, sizeof(tmp), "node '%s' (%s): %s",
					 node_label(np), np->op_type, err->msg);
				memcpy(err->msg, tmp, sizeof(err->msg) - 1);
				err->msg[sizeof(err->msg) - 1] = 0;
			}
			return -1;
		}
	}
	return 0;
}

static int read_nodes(struct ir_load_ctx *ctx, qir_graph *g,
		      const Onnx__GraphProto *gp, qir_error *err)
{
	qir_node *n, *first = g->last;

	for (size_t i = 0; i < gp->n_node; i++)
		if (!read_node_outputs(g, gp->node[i], err))
			return -1;
	n = first ? first->next : g->first;
	for (size_t i = 0; i < gp->n_node; i++, n = n->next)
		if (read_node_rest(ctx, n, gp->node[i], err))
			return -1;
	return 0;
}

/* Sparse initializers stay in the message; their indices must be in
 * range all the same. */
static int check_sparse_inits(qir_graph *g, const Onnx__GraphProto *gp,
			      qir_error *err)
{
	char what[600];

	for (size_t i = 0; i < gp->n_sparse_initializer; i++) {
		const Onnx__SparseTensorProto *sp = gp->sparse_initializer[i];

		snprintf(what, sizeof(what), "'%s' (graph '%s')",
			 sp->values && sp->values->name ? sp->values->name : "",
			 g->name);
		if (ir_sparse_check(sp, what, err))
			return -1;
	}
	return 0;
}

static int read_graph(struct ir_load_ctx *ctx, qir_graph *g,
		      const Onnx__GraphProto *gp, qir_error *err)
{
	QIR_GPRIV(g)->pb = gp;
	if (check_sparse_inits(g, gp, err))
		return -1;
	if (read_inputs(g, gp, err) || read_initializers(ctx, g, gp, err) ||
	    read_nodes(ctx, g, gp, err) || read_outputs(g, gp, err) ||
	    read_value_info(g, gp, err))
		return -1;
	return 0;
}

/* ---- model ------------------------------------------------------ */

/* qir_model_new gives a default header and graph; the file's replace
 * them. */
static void clear_header(qir_model *m)
{
	for (size_t i = 0; i < m->nopsets; i++)
		free(m->opsets[i].domain);
	free(m->opsets);
	m->opsets = NULL;
	m->nopsets = 0;
	for (size_t i = 0; i < m->nmetadata; i++) {
		free(m->metadata[i].key);
		free(m->metadata[i].value);
	}
	free(m->metadata);
	m->metadata = NULL;
	m->nmetadata = 0;
	free(m->producer_name);
	free(m->producer_version);
	free(m->domain);
	m->producer_name = m->producer_version = m->domain = NULL;
	if (m->graph)
		ir_graph_free(m->graph);
	m->graph = NULL;
}

/* The IR keeps the names of the model's local functions (their bodies
 * stay in the parsed message, which the writer copies back). */
static int read_functions(qir_model *m, const Onnx__ModelProto *mp,
			  qir_error *err)
{
	size_t i;

	for (i = 0; i < mp->n_functions; i++)
		if (ir_model_add_function(m, mp->functions[i]->domain,
					  mp->functions[i]->name))
			return nomem(err);
	return 0;
}

static int read_header(qir_model *m, const Onnx__ModelProto *mp,
		       qir_error *err)
{
	clear_header(m);
	m->ir_version = mp->has_ir_version ? mp->ir_version : 0;
	m->model_version = mp->has_model_version ? mp->model_version : 0;
	m->producer_name = dup_or_empty(mp->producer_name);
	m->producer_version = dup_or_empty(mp->producer_version);
	m->domain = dup_or_empty(mp->domain);
	if (!m->producer_name || !m->producer_version || !m->domain)
		return nomem(err);
	m->opsets = calloc(mp->n_opset_import + 1, sizeof(*m->opsets));
	m->metadata = calloc(mp->n_metadata_props + 1, sizeof(*m->metadata));
	if (!m->opsets || !m->metadata)
		return nomem(err);
	for (; m->nopsets < mp->n_opset_import; m->nopsets++) {
		const Onnx__OperatorSetIdProto *o = mp->opset_import[m->nopsets];
		qir_opset *q = &m->opsets[m->nopsets];

		q->domain = dup_or_empty(o->domain);
		if (!q->domain)
			return nomem(err);
		q->version = o->has_version ? o->version : 0;
	}
	for (; m->nmetadata < mp->n_metadata_props; m->nmetadata++) {
		const Onnx__StringStringEntryProto *e =
			mp->metadata_props[m->nmetadata];
		qir_kv *kv = &m->metadata[m->nmetadata];

		kv->key = dup_or_empty(e->key);
		kv->value = dup_or_empty(e->value);
		if (!kv->key || !kv->value)
			return nomem(err);
	}
	return 0;
}

void ir_onnx_release(qir_model *m)
{
	struct ir_model_priv *p = QIR_MPRIV(m);

	ir_pb_model_free((Onnx__ModelProto *)p->pb, p->pb_borrow,
			   p->pb_borrow_len);
	p->pb = NULL;
	p->pb_borrow = NULL;
	if (p->file_addr) {
		fio_map_del(p->file_addr);
		munmap((void *)p->file_addr, p->file_size);
	}
	p->file_addr = NULL;
	ir_ext_free_maps(m);
	free(p->dir);
	p->dir = NULL;
}

/* Protobuf-c says only "failed": walk the top level to say where. */
static size_t varint(const uint8_t *p, size_t len, size_t off, uint64_t *v)
{
	*v = 0;
	for (int s = 0; s < 64 && off < len; s += 7) {
		*v |= (uint64_t)(p[off] & 0x7f) << s;
		if (!(p[off++] & 0x80))
			return off;
	}
	return 0;
}

static void explain(const uint8_t *p, size_t len, char *out, size_t n)
{
	size_t off = 0, next;
	uint64_t key, l;

	while (off < len) {
		size_t at = off;

		if (!(next = varint(p, len, off, &key)) || (key >> 3) == 0) {
			snprintf(out, n, ": bad field key at byte %zu", at);
			return;
		}
		off = next;
		switch (key & 7) {
		case 0:
			next = varint(p, len, off, &l);
			break;
		case 1:
			next = off + 8 <= len ? off + 8 : 0;
			break;
		case 5:
			next = off + 4 <= len ? off + 4 : 0;
			break;
		case 2:
			next = varint(p, len, off, &l);
			if (next && l > len - next) {
				snprintf(out, n,
					 ": field %" PRIu64 " at byte %zu needs %" PRIu64 " bytes, %zu remain (truncated file?)",
					 key >> 3, at, l, len - next);
				return;
			}
			if (next)
				next += l;
			break;
		default:
			snprintf(out, n, ": field %" PRIu64 " at byte %zu has wire type %u",
				 key >> 3, at, (unsigned)(key & 7));
			return;
		}
		if (!next) {
			snprintf(out, n, ": field %" PRIu64 " at byte %zu is cut off (truncated file?)",
				 key >> 3, at);
			return;
		}
		off = next;
	}
	snprintf(out, n, " inside a nested message");
}

/* The message in buf; large raw_data point into buf when *borrows
 * comes back set. */
static Onnx__ModelProto *unpack(const uint8_t *buf, size_t len, int *borrows,
				qir_error *err)
{
	Onnx__ModelProto *mp = NULL;
	struct ir_skeleton sk;
	char why[256];

	*borrows = 0;
	if (len == 0) {
		qir_fail(err, QIR_EPARSE, "not a valid ONNX model (empty file)");
		return NULL;
	}
	if (ir_pb_scan(buf, len, 0, err))
		return NULL;
	if (ir_skel_build(buf, len, &sk)) {
		mp = onnx__model_proto__unpack(NULL, sk.len, sk.buf);
		if (mp && ir_skel_resolve(mp, &sk, buf)) {
			ir_pb_model_free(mp, buf, len);
			mp = NULL;
		}
		*borrows = mp != NULL;
		ir_skel_free(&sk);
	}
	if (!mp)
		mp = onnx__model_proto__unpack(NULL, len, buf);
	if (!mp) {
		explain(buf, len, why, sizeof(why));
		qir_fail(err, QIR_EPARSE,
			 "not a valid ONNX model (protobuf parse failed%s)", why);
		return NULL;
	}
	if (!mp->graph) {
		ir_pb_model_free(mp, buf, len);
		qir_fail(err, QIR_EPARSE,
			 "not a valid ONNX model (no graph in %zu bytes)", len);
		return NULL;
	}
	return mp;
}

/* On success, (*out)'s message may borrow from buf (priv pb_borrow). */
static int load(const void *buf, size_t len, const char *dir,
		const qir_load_opts *o, qir_model **out, qir_error *err)
{
	struct ir_load_ctx ctx = { 0 };
	Onnx__ModelProto *mp;
	qir_model *m;
	struct ir_model_priv *p;
	int borrows;

	*out = NULL;
	mp = unpack(buf, len, &borrows, err);
	if (!mp)
		return -1;
	m = qir_model_new(mp->has_ir_version ? mp->ir_version : 0, 1, err);
	if (!m) {
		ir_pb_model_free(mp, buf, len);
		return -1;
	}
	p = QIR_MPRIV(m);
	p->pb = mp;
	if (borrows) {
		p->pb_borrow = buf;
		p->pb_borrow_len = len;
	}
	p->release = ir_onnx_release;
	if (dir && !(p->dir = strdup(dir)))
		goto nomem;
	ctx.model = m;
	ctx.dir = p->dir;
	ctx.no_external = o ? o->no_external : 0;
	ctx.links_ok = o ? o->links_ok : 0;
	if (read_header(m, mp, err) || read_functions(m, mp, err))
		goto fail;
	m->graph = ir_graph_new(m, NULL, NULL,
				  mp->graph->name ? mp->graph->name : "");
	if (!m->graph)
		goto nomem;
	if (read_graph(&ctx, m->graph, mp->graph, err))
		goto fail;
	/* Readers of the IR may rely on producers coming first. */
	if (qir_graph_toposort_count(m->graph, &p->load_moved, err))
		goto fail;
	if (ir_infer_at_load(m, err))
		goto fail;
	free(ctx.dir_real_buf);
	*out = m;
	return 0;
nomem:
	nomem(err);
fail:
	free(ctx.dir_real_buf);
	qir_model_free(m);
	return -1;
}

int qir_model_load_buffer(const void *buf, size_t len, const char *dir,
			  qir_model **out, qir_error *err)
{
	return load(buf, len, dir, NULL, out, err);
}

static char *dir_of(const char *path)
{
	char *copy = strdup(path), *d;

	if (!copy)
		return NULL;
	d = strdup(dirname(copy));
	free(copy);
	return d;
}

int qir_model_load(const char *path, const qir_load_opts *opts,
		   qir_model **out, qir_error *err)
{
	const char *kind;
	struct stat st;
	void *addr = NULL;
	char *dir;
	int fd, rc;
	qir_load_opts o;

	*out = NULL;
	if (ir_opts_read(&o, sizeof(o), opts, IR_LOAD_OPTS_4_0,
			 "qir_load_opts", err) < 0)
		return -1;
	fd = fio_open_regular(path, 0, &st, &kind);
	if (fd < 0 && kind)
		return qir_fail(err, QIR_EIO, "'%s' is %s, not an ONNX model file",
				path, kind);
	if (fd < 0)
		return qir_fail(err, QIR_EIO, "cannot open '%s': %s", path,
				strerror(errno));
	if (st.st_size > 0) {
		addr = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
			    fd, 0);
		if (addr == MAP_FAILED) {
			int e = errno;

			close(fd);
			return qir_fail(err, QIR_EIO, "cannot map '%s': %s",
					path, strerror(e));
		}
		/* Read while qopt runs: a truncation is an error. */
		fio_map_add(addr, (size_t)st.st_size, PROT_READ, path,
			    FIO_MAP_INPUT);
	}
	close(fd);
	dir = dir_of(path);
	if (!dir) {
		rc = nomem(err);
	} else {
		rc = load(addr, (size_t)st.st_size, dir, &o, out,
			  err);
	}
	free(dir);
	if (!rc && QIR_MPRIV(*out)->pb_borrow) {
		/* Tensors point into it: unmapped with the model. */
		QIR_MPRIV(*out)->file_addr = addr;
		QIR_MPRIV(*out)->file_size = (size_t)st.st_size;
		QIR_MPRIV(*out)->file_dev = st.st_dev;
		QIR_MPRIV(*out)->file_ino = st.st_ino;
	} else if (addr) {
		/* protobuf-c copied what it kept. */
		fio_map_del(addr);
		munmap(addr, (size_t)st.st_size);
	}
	if (!rc && !((*out)->path = strdup(path))) {
		qir_model_free(*out);
		*out = NULL;
		rc = nomem(err);
	}
	return rc;
}

size_t qir_model_load_reordered(const qir_model *m)
{
	return m && m->priv ? QIR_MPRIV(m)->load_moved : 0;
}

