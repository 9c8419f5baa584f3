/*
 * ir/onnx/onnx_write.c - IR -> ONNX file.
 *
 * The ModelProto is rebuilt from the IR, taking what the IR does not
 * model from the messages the objects were loaded from (doc strings,
 * metadata_props of nodes and graphs, functions, training info, sparse
 * initializers, quantization annotations, overloads, non-tensor value
 * types and unknown fields, which protobuf-c repacks verbatim).
 *
 * Nothing is copied: tensor raw_data points at the tensor's bytes
 * (owned, borrowed from the loaded file's mapping or message, or
 * mapped external data), sub-messages are shared with the loaded
 * model, and everything this file creates comes from one arena freed
 * at the end. Packing streams to a temporary file beside the output,
 * renamed over it only once complete, so saving over the input (whose
 * bytes we may be reading from) is safe; pages of the input's mapping
 * are dropped once written, so saving reads a large model through
 * without holding it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "onnx/onnx_io.h"
#include "file/mapfault.h"

struct tensor_ref {
	Onnx__TensorProto *tp;
	qir_tensor *t;
};

struct save_ctx {
	struct ir_arena a;
	qir_error *err;
	const qir_model *m;
	struct tensor_ref *refs;	/* byte-carrying tensors */
	size_t nrefs, caprefs;
	/* The loaded model file's mapping (read-only, private): pages
	 * of it are dropped once written. */
	uintptr_t map_lo;
	size_t map_len;
	/* nrefs bytes: refs[i]'s deferred inline raw_data points at
	 * sentinel + i (defer_inline). */
	uint8_t *sentinel;
	/* The loaded model file, open when its path still names the file
	 * mapped at map_lo (model_file), else -1: bytes in the mapping
	 * are copied from it inside the kernel. */
	int map_fd;
	int failed;
	/* qir_save_opts.link_external: the links made, when asked. */
	struct ir_ext_links links;
	int link_external;
};

int ir_onnx_streamed;

static int in_map(const struct save_ctx *ctx, const void *p, uint64_t len)
{
	uintptr_t a = (uintptr_t)p;

	return ctx->map_len && a >= ctx->map_lo &&
	       a - ctx->map_lo <= ctx->map_len &&
	       len <= ctx->map_len - (a - ctx->map_lo);
}

static char empty_str[] = "";

static void *new_msg(struct save_ctx *ctx, size_t size,
		     const ProtobufCMessageDescriptor *desc)
{
	void *p = ir_arena_alloc(&ctx->a, size);

	if (p)
		protobuf_c_message_init(desc, p);
	return p;
}

/* A fresh message of the given type, owned by the save's arena. */
#define NEW(ctx, type, desc) ((type *)new_msg(ctx, sizeof(type), &(desc)))

static void *arr(struct save_ctx *ctx, size_t n, size_t size)
{
	return ir_arena_alloc(&ctx->a, (n ? n : 1) * size);
}

/* Keeps what the IR does not model: protobuf-c repacks these. */
static void keep_unknown(ProtobufCMessage *dst, const ProtobufCMessage *src)
{
	if (!src)
		return;
	dst->n_unknown_fields = src->n_unknown_fields;
	dst->unknown_fields = src->unknown_fields;
}

static Onnx__StringStringEntryProto **kv_list(struct save_ctx *ctx,
					      const qir_kv *kv, size_t n)
{
	Onnx__StringStringEntryProto **l = arr(ctx, n, sizeof(*l));

	for (size_t i = 0; l && i < n; i++) {
		l[i] = NEW(ctx, Onnx__StringStringEntryProto,
			onnx__string_string_entry_proto__descriptor);
		if (!l[i])
			return NULL;
		l[i]->key = kv[i].key;
		l[i]->value = kv[i].value;
	}
	return l;
}

/* ---- tensors ---------------------------------------------------- */

static int remember(struct save_ctx *ctx, Onnx__TensorProto *tp,
		    qir_tensor *t)
{
	if (ctx->nrefs == ctx->caprefs) {
		size_t cap = ctx->caprefs ? ctx->caprefs * 2 : 64;
		struct tensor_ref *r = realloc(ctx->refs, cap * sizeof(*r));

		if (!r)
			return -1;
		ctx->refs = r;
		ctx->caprefs = cap;
	}
	ctx->refs[ctx->nrefs].tp = tp;
	ctx->refs[ctx->nrefs++].t = t;
	return 0;
}

static int tensor_strings(struct save_ctx *ctx, Onnx__TensorProto *tp,
			  const qir_tensor *t)
{
	tp->string_data = arr(ctx, t->nstrings, sizeof(*tp->string_data));
	if (!tp->string_data)
		return -1;
	tp->n_string_data = t->nstrings;
	for (uint64_t i = 0; i < t->nstrings; i++) {
		tp->string_data[i].len = t->string_lens[i];
		tp->string_data[i].data = (uint8_t *)t->strings[i];
	}
	return 0;
}

/* name: the value's name for initializers (it is authoritative). */
static Onnx__TensorProto *tensor_pb(struct save_ctx *ctx, qir_tensor *t,
				    const char *name)
{
	const Onnx__TensorProto *orig = QIR_TPRIV(t)->pb;
	Onnx__TensorProto *tp = NEW(ctx, Onnx__TensorProto,
		onnx__tensor_proto__descriptor);
	const void *data;

	if (!tp)
		return NULL;
	if (orig) {
		keep_unknown(&tp->base, &orig->base);
		tp->doc_string = orig->doc_string;
		tp->segment = orig->segment;
		tp->n_metadata_props = orig->n_metadata_props;
		tp->metadata_props = orig->metadata_props;
	}
	tp->name = (char *)(name ? name : t->name);
	if (tp->name && !tp->name[0] && !(orig && orig->name))
		tp->name = NULL;
	tp->n_dims = (size_t)t->rank;
	tp->dims = t->dims;
	tp->has_data_type = 1;
	tp->data_type = t->dtype;
	if (t->dtype == QIR_STRING)
		return tensor_strings(ctx, tp, t) ? NULL : tp;
	/* A deferred tensor is evaluated once its place is known: into
	 * the data file, or (inline) before packing (resolve_inline). */
	data = qir_tensor_deferred(t) ? NULL : qir_tensor_data(t, ctx->err);
	if (!data && t->nbytes && !qir_tensor_deferred(t)) {
		ctx->failed = 1;
		return NULL;
	}
	/* Empty tensors: absent and empty raw_data read the same. */
	tp->has_raw_data = t->nbytes || (orig && orig->has_raw_data);
	tp->raw_data.len = t->nbytes;
	tp->raw_data.data = (uint8_t *)data;
	if (remember(ctx, tp, t))
		return NULL;
	return tp;
}

/* ---- values ----------------------------------------------------- */

static int dim_same(const Onnx__TensorShapeProto__Dimension *d,
		    const qir_dim *q)
{
	switch (d->value_case) {
	case ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE:
		return !q->param && d->dim_value >= 0 &&
		       q->value == d->dim_value;
	case ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM:
		return q->param && d->dim_param && q->value < 0 &&
		       !strcmp(q->param, d->dim_param);
	default:
		return !q->param && q->value < 0;
	}
}

/* Whether the loaded TypeProto still says what the IR says, so it can
 * be written back as is (denotations and all). */
static int type_same(const Onnx__TypeProto *tp, const qir_value *v)
{
	const Onnx__TypeProto__Tensor *tt;

	if (tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
		return v->dtype == QIR_UNDEFINED && v->rank < 0;
	tt = tp->tensor_type;
	if ((tt->has_elem_type ? tt->elem_type : 0) != v->dtype)
		return 0;
	if (!tt->shape)
		return v->rank < 0;
	if (v->rank < 0 || tt->shape->n_dim != (size_t)v->rank)
		return 0;
	for (int i = 0; i < v->rank; i++)
		if (!dim_same(tt->shape->dim[i], &v->dims[i]))
			return 0;
	return 1;
}

static Onnx__TypeProto *type_pb(struct save_ctx *ctx, const qir_value *v)
{
	Onnx__TypeProto *tp = NEW(ctx, Onnx__TypeProto,
		onnx__type_proto__descriptor);
	Onnx__TypeProto__Tensor *tt = NEW(ctx, Onnx__TypeProto__Tensor,
		onnx__type_proto__tensor__descriptor);
	Onnx__TensorShapeProto *sp;

	if (!tp || !tt)
		return NULL;
	tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	tp->tensor_type = tt;
	tt->has_elem_type = 1;
	tt->elem_type = v->dtype;
	if (v->rank < 0)
		return tp;
	sp = NEW(ctx, Onnx__TensorShapeProto,
		onnx__tensor_shape_proto__descriptor);
	if (!sp || !(sp->dim = arr(ctx, v->rank, sizeof(*sp->dim))))
		return NULL;
	tt->shape = sp;
	sp->n_dim = (size_t)v->rank;
	for (int i = 0; i < v->rank; i++) {
		Onnx__TensorShapeProto__Dimension *d;

		d = NEW(ctx, Onnx__TensorShapeProto__Dimension,
			onnx__tensor_shape_proto__dimension__descriptor);
		if (!d)
			return NULL;
		if (v->dims[i].param) {
			d->value_case =
				ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
			d->dim_param = v->dims[i].param;
		} else if (v->dims[i].value >= 0) {
			d->value_case =
				ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
			d->dim_value = v->dims[i].value;
		}
		sp->dim[i] = d;
	}
	return tp;
}

static Onnx__ValueInfoProto *value_pb(struct save_ctx *ctx,
				      const qir_value *vin)
{
	const Onnx__ValueInfoProto *orig = QIR_VPRIV(vin)->pb;
	/* A declared element type whose dims only inference gave is
	 * written as declared: without them. */
	qir_value shown = *vin;
	const qir_value *v = &shown;

	if (QIR_VPRIV(vin)->shape_inferred) {
		shown.rank = -1;
		shown.dims = NULL;
	}
	Onnx__ValueInfoProto *vi = NEW(ctx, Onnx__ValueInfoProto,
		onnx__value_info_proto__descriptor);

	if (!vi)
		return NULL;
	vi->name = v->name;
	if (orig) {
		keep_unknown(&vi->base, &orig->base);
		vi->doc_string = orig->doc_string;
		vi->n_metadata_props = orig->n_metadata_props;
		vi->metadata_props = orig->metadata_props;
	}
	if (QIR_VPRIV(v)->inferred)	/* as declared: inferred types stay in the IR */
		vi->type = orig ? orig->type : NULL;
	else if (orig && orig->type && type_same(orig->type, v))
		vi->type = orig->type;
	else if (v->dtype != QIR_UNDEFINED || v->rank >= 0)
		vi->type = type_pb(ctx, v);
	else if (orig)
		vi->type = orig->type;	/* sequence, map, ... */
	return vi;
}

static Onnx__ValueInfoProto **value_list(struct save_ctx *ctx,
					 qir_value **vs, size_t n)
{
	Onnx__ValueInfoProto **l = arr(ctx, n, sizeof(*l));

	for (size_t i = 0; l && i < n; i++)
		if (!(l[i] = value_pb(ctx, vs[i])))
			return NULL;
	return l;
}

/* ---- attributes and nodes -------------------------------------- */

static Onnx__GraphProto *graph_pb(struct save_ctx *ctx, qir_graph *g);

static int attr_lists(struct save_ctx *ctx, Onnx__AttributeProto *ap,
		      const qir_attr *a)
{
	switch (a->type) {
	case QIR_ATTR_FLOATS:
		ap->n_floats = a->n;
		ap->floats = a->floats;
		return 0;
	case QIR_ATTR_INTS:
		ap->n_ints = a->n;
		ap->ints = a->ints;
		return 0;
	case QIR_ATTR_STRINGS:
		ap->strings = arr(ctx, a->n, sizeof(*ap->strings));
		if (!ap->strings)
			return -1;
		ap->n_strings = a->n;
		for (size_t i = 0; i < a->n; i++) {
			ap->strings[i].len = a->string_lens[i];
			ap->strings[i].data = (uint8_t *)a->strings[i];
		}
		return 0;
	case QIR_ATTR_TENSORS:
		ap->tensors = arr(ctx, a->n, sizeof(*ap->tensors));
		if (!ap->tensors)
			return -1;
		ap->n_tensors = a->n;
		for (size_t i = 0; i < a->n; i++)
			if (!(ap->tensors[i] = tensor_pb(ctx, a->tensors[i],
							 NULL)))
				return -1;
		return 0;
	case QIR_ATTR_GRAPHS:
		ap->graphs = arr(ctx, a->n, sizeof(*ap->graphs));
		if (!ap->graphs)
			return -1;
		ap->n_graphs = a->n;
		for (size_t i = 0; i < a->n; i++)
			if (!(ap->graphs[i] = graph_pb(ctx, a->graphs[i])))
				return -1;
		return 0;
	}
	return 0;
}

static Onnx__AttributeProto *attr_pb(struct save_ctx *ctx, const qir_attr *a)
{
	const Onnx__AttributeProto *orig = a->priv ? QIR_APRIV(a)->pb : NULL;
	Onnx__AttributeProto *ap = NEW(ctx, Onnx__AttributeProto,
		onnx__attribute_proto__descriptor);

	if (!ap)
		return NULL;
	if (orig && (a->type < QIR_ATTR_FLOAT || a->type > QIR_ATTR_GRAPHS)) {
		/* Not modeled (sparse tensors, type protos, types newer
		 * than us): verbatim. */
		*ap = *orig;
	} else if (orig) {
		keep_unknown(&ap->base, &orig->base);
		ap->doc_string = orig->doc_string;
	}
	ap->name = a->name;
	ap->ref_attr_name = a->ref_attr_name;
	ap->has_type = 1;
	ap->type = a->type;
	switch (a->type) {
	case QIR_ATTR_FLOAT:
		ap->has_f = 1;
		ap->f = a->f;
		break;
	case QIR_ATTR_INT:
		ap->has_i = 1;
		ap->i = a->i;
		break;
	case QIR_ATTR_STRING:
		ap->has_s = 1;
		ap->s.len = a->slen;
		ap->s.data = (uint8_t *)a->s;
		break;
	case QIR_ATTR_TENSOR:
		if (!(ap->t = tensor_pb(ctx, a->t, NULL)))
			return NULL;
		break;
	case QIR_ATTR_GRAPH:
		if (!(ap->g = graph_pb(ctx, a->g)))
			return NULL;
		break;
	default:
		if (attr_lists(ctx, ap, a))
			return NULL;
	}
	return ap;
}

static char **name_list(struct save_ctx *ctx, qir_value **vs, size_t n)
{
	char **l = arr(ctx, n, sizeof(*l));

	for (size_t i = 0; l && i < n; i++)
		l[i] = vs[i] ? vs[i]->name : empty_str;
	return l;
}

static Onnx__NodeProto *node_pb(struct save_ctx *ctx, const qir_node *n)
{
	const Onnx__NodeProto *orig = QIR_NPRIV(n)->pb;
	Onnx__NodeProto *np = NEW(ctx, Onnx__NodeProto,
		onnx__node_proto__descriptor);

	if (!np)
		return NULL;
	if (orig) {
		keep_unknown(&np->base, &orig->base);
		np->doc_string = orig->doc_string;
		np->overload = orig->overload;
		np->n_metadata_props = orig->n_metadata_props;
		np->metadata_props = orig->metadata_props;
	}
	np->op_type = n->op_type;
	/* Absent and "" read the same; keep what the file had. */
	np->name = n->name[0] || (orig && orig->name) ? n->name : NULL;
	np->domain = n->domain[0] || (orig && orig->domain) ? n->domain : NULL;
	np->input = name_list(ctx, n->inputs, n->ninputs);
	np->output = name_list(ctx, n->outputs, n->noutputs);
	np->attribute = arr(ctx, n->nattrs, sizeof(*np->attribute));
	if (!np->input || !np->output || !np->attribute)
		return NULL;
	np->n_input = n->ninputs;
	np->n_output = n->noutputs;
	np->n_attribute = n->nattrs;
	for (size_t i = 0; i < n->nattrs; i++)
		if (!(np->attribute[i] = attr_pb(ctx, &n->attrs[i])))
			return NULL;
	return np;
}

/* ---- graphs and the model --------------------------------------- */

static int graph_values(struct save_ctx *ctx, Onnx__GraphProto *gp,
			qir_graph *g)
{
	struct ir_graph_priv *p = QIR_GPRIV(g);
	size_t n = 0;

	ir_graph_compact_all(p);
	gp->initializer = arr(ctx, g->ninits, sizeof(*gp->initializer));
	gp->value_info = arr(ctx, p->nall, sizeof(*gp->value_info));
	if (!gp->initializer || !gp->value_info)
		return -1;
	for (size_t i = 0; i < g->ninits; i++) {
		qir_value *v = g->inits[i];

		if (!(gp->initializer[i] = tensor_pb(ctx, v->init, v->name)))
			return -1;
	}
	gp->n_initializer = g->ninits;
	for (size_t i = 0; i < p->nall; i++) {
		qir_value *v = p->all[i];

		if (!QIR_VPRIV(v)->in_value_info || v->is_input ||
		    v->is_output)
			continue;
		if (!(gp->value_info[n++] = value_pb(ctx, v)))
			return -1;
	}
	gp->n_value_info = n;
	gp->input = value_list(ctx, g->inputs, g->ninputs);
	gp->output = value_list(ctx, g->outputs, g->noutputs);
	if (!gp->input || !gp->output)
		return -1;
	gp->n_input = g->ninputs;
	gp->n_output = g->noutputs;
	return 0;
}

static Onnx__GraphProto *graph_pb(struct save_ctx *ctx, qir_graph *g)
{
	const Onnx__GraphProto *orig = QIR_GPRIV(g)->pb;
	Onnx__GraphProto *gp = NEW(ctx, Onnx__GraphProto,
		onnx__graph_proto__descriptor);
	qir_node *n;
	size_t i = 0;

	if (!gp)
		return NULL;
	if (orig) {
		keep_unknown(&gp->base, &orig->base);
		gp->doc_string = orig->doc_string;
		gp->n_quantization_annotation = orig->n_quantization_annotation;
		gp->quantization_annotation = orig->quantization_annotation;
		gp->n_sparse_initializer = orig->n_sparse_initializer;
		gp->sparse_initializer = orig->sparse_initializer;
		gp->n_metadata_props = orig->n_metadata_props;
		gp->metadata_props = orig->metadata_props;
	}
	gp->name = g->name;
	gp->node = arr(ctx, g->nnodes, sizeof(*gp->node));
	if (!gp->node)
		return NULL;
	qir_graph_for_each_node(g, n) {
		if (i == g->nnodes || !(gp->node[i++] = node_pb(ctx, n)))
			return NULL;
	}
	gp->n_node = i;
	return graph_values(ctx, gp, g) ? NULL : gp;
}

/* The loaded entry when unchanged (keeps an absent domain absent). */
static Onnx__OperatorSetIdProto *opset_pb(struct save_ctx *ctx,
					  const Onnx__ModelProto *orig,
					  const qir_opset *q, size_t i)
{
	Onnx__OperatorSetIdProto *o;

	if (orig && i < orig->n_opset_import) {
		o = orig->opset_import[i];
		if (!strcmp(o->domain ? o->domain : "", q->domain) &&
		    o->has_version && o->version == q->version)
			return o;
	}
	o = NEW(ctx, Onnx__OperatorSetIdProto,
		onnx__operator_set_id_proto__descriptor);
	if (o) {
		o->domain = q->domain;
		o->has_version = 1;
		o->version = q->version;
	}
	return o;
}

static Onnx__ModelProto *model_pb(struct save_ctx *ctx, qir_model *m)
{
	const Onnx__ModelProto *orig = QIR_MPRIV(m)->pb;
	Onnx__ModelProto *mp = NEW(ctx, Onnx__ModelProto,
		onnx__model_proto__descriptor);

	if (!mp)
		return NULL;
	if (orig) {
		keep_unknown(&mp->base, &orig->base);
		mp->doc_string = orig->doc_string;
		mp->n_training_info = orig->n_training_info;
		mp->training_info = orig->training_info;
		mp->n_functions = orig->n_functions;
		mp->functions = orig->functions;
	}
	mp->has_ir_version = 1;
	/* A later IR (a typo, a newer exporter) is written as the newest
	 * known: what qopt read and wrote is that IR's content. The
	 * command line says so on load (core/cli/setup.c). */
	mp->ir_version = m->ir_version > IR_VERSION_NEWEST ?
			 IR_VERSION_NEWEST : m->ir_version;
	mp->producer_name = m->producer_name && m->producer_name[0] ?
			    m->producer_name : NULL;
	mp->producer_version = m->producer_version && m->producer_version[0] ?
			       m->producer_version : NULL;
	mp->domain = m->domain && m->domain[0] ? m->domain : NULL;
	mp->has_model_version = m->model_version != 0;
	mp->model_version = m->model_version;
	mp->opset_import = arr(ctx, m->nopsets, sizeof(*mp->opset_import));
	if (!mp->opset_import)
		return NULL;
	for (size_t i = 0; i < m->nopsets; i++)
		if (!(mp->opset_import[i] = opset_pb(ctx, orig,
						     &m->opsets[i], i)))
			return NULL;
	mp->n_opset_import = m->nopsets;
	mp->metadata_props = kv_list(ctx, m->metadata, m->nmetadata);
	if (!mp->metadata_props)
		return NULL;
	mp->n_metadata_props = m->nmetadata;
	mp->graph = graph_pb(ctx, m->graph);
	return mp->graph ? mp : NULL;
}

/* ---- external data ---------------------------------------------- */

static char *u64_str(struct save_ctx *ctx, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return ir_arena_strdup(&ctx->a, buf);
}

static int make_external(struct save_ctx *ctx, Onnx__TensorProto *tp,
			 const char *location, uint64_t offset, uint64_t len)
{
	static char k_loc[] = "location", k_off[] = "offset",
		    k_len[] = "length";
	char *keys[3] = { k_loc, k_off, k_len };
	char *vals[3];
	Onnx__StringStringEntryProto **l = arr(ctx, 3, sizeof(*l));

	vals[0] = ir_arena_strdup(&ctx->a, location);
	vals[1] = u64_str(ctx, offset);
	vals[2] = u64_str(ctx, len);
	if (!l || !vals[0] || !vals[1] || !vals[2])
		return -1;
	for (int i = 0; i < 3; i++) {
		l[i] = NEW(ctx, Onnx__StringStringEntryProto,
			onnx__string_string_entry_proto__descriptor);
		if (!l[i])
			return -1;
		l[i]->key = keys[i];
		l[i]->value = vals[i];
	}
	tp->has_raw_data = 0;
	tp->raw_data.len = 0;
	tp->raw_data.data = NULL;
	tp->has_data_location = 1;
	tp->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
	tp->n_external_data = 3;
	tp->external_data = l;
	return 0;
}

/* Bytes in the loaded model file's mapping are also in that file. */
static void map_source(const struct save_ctx *ctx, struct ir_ext_piece *p)
{
	if (p->fd < 0 && !p->src && ctx->map_fd >= 0 && p->data &&
	    in_map(ctx, p->data, p->len)) {
		p->fd = ctx->map_fd;
		p->fd_off = (uintptr_t)p->data - ctx->map_lo;
	}
}

/* Where a tensor's len bytes at data come from, for ir_ext_fill (the
 * caller sets off). */
static void piece_source(const struct save_ctx *ctx, const qir_tensor *t,
			 const void *data, uint64_t len, struct ir_ext_piece *p)
{
	p->data = data;
	p->len = len;
	/* Mapped bytes are dropped as they are written. */
	p->from_map = t->storage == QIR_STORE_EXTERNAL ||
		      qir_tensor_spilled(t) || in_map(ctx, data, len);
	if (t->storage == QIR_STORE_EXTERNAL && QIR_TPRIV(t)->data == data) {
		p->src = QIR_TPRIV(t)->map;
		p->src_off = QIR_TPRIV(t)->ext_offset;
	}
	p->fd = ir_spill_source(ctx->m, t, data, &p->fd_off);
	map_source(ctx, p);
	if (qir_tensor_deferred(t))
		p->deferred = (qir_tensor *)t;
}

/* link_external: a tensor whose bytes are still its input data file's
 * refers to that file through a link (ir/onnx/ext_link.c). 1 when it
 * does, 0 when it is placed as usual, -1 out of memory. */
static int link_in_place(struct save_ctx *ctx, Onnx__TensorProto *tp,
			 const qir_tensor *t)
{
	const struct ir_tensor_priv *p = QIR_TPRIV(t);
	const char *loc;

	if (!ctx->link_external || t->storage != QIR_STORE_EXTERNAL ||
	    !p->map || !p->map->addr || !tp->raw_data.len ||
	    qir_tensor_deferred(t) ||
	    tp->raw_data.data != p->map->addr + p->ext_offset ||
	    !(loc = ir_ext_link(&ctx->links, p->map)))
		return 0;
	if (make_external(ctx, tp, loc, p->ext_offset, tp->raw_data.len))
		return qir_fail(ctx->err, QIR_ENOMEM, "out of memory");
	return 1;
}

/* The data file is laid out first (every tensor's offset follows from
 * the sizes before it), then filled in parallel (ir/onnx/data_fill.c). */
/* keep: tensors the input had in external data stay there whatever
 * their size (the automatic layout keeps the input's choice). */
static int externalize(struct save_ctx *ctx, struct ir_ext_writer *w,
		       const char *dir, uint64_t threshold, int keep,
		       int threads)
{
	struct ir_ext_piece *pc = NULL;
	size_t n = 0;
	int rc = -1;

	if (ctx->nrefs && !(pc = calloc(ctx->nrefs, sizeof(*pc))))
		return qir_fail(ctx->err, QIR_ENOMEM, "out of memory");
	/* Recipes reading deferred tensors: those are evaluated first,
	 * here (which may give a tensor of this save its bytes). */
	for (size_t i = 0; i < ctx->nrefs; i++)
		if (qir_tensor_deferred(ctx->refs[i].t) &&
		    ctx->refs[i].tp->raw_data.len >= threshold &&
		    ir_deferred_prepare(ctx->refs[i].t, ctx->err))
			goto out;
	for (size_t i = 0; i < ctx->nrefs; i++) {
		Onnx__TensorProto *tp = ctx->refs[i].tp;

		if (tp->raw_data.len && !tp->raw_data.data &&
		    !qir_tensor_deferred(ctx->refs[i].t) &&
		    !(tp->raw_data.data = (uint8_t *)qir_tensor_data(
			  ctx->refs[i].t, ctx->err)))
			goto out;
	}
	for (size_t i = 0; i < ctx->nrefs; i++) {
		Onnx__TensorProto *tp = ctx->refs[i].tp;
		const qir_tensor *t = ctx->refs[i].t;
		uint64_t len = tp->raw_data.len;
		struct ir_ext_piece *p = &pc[n];
		int linked = link_in_place(ctx, tp, t);

		if (linked < 0)
			goto out;
		if (linked || len == 0 || (len < threshold &&
				 !(keep && t->storage == QIR_STORE_EXTERNAL)))
			continue;
		piece_source(ctx, t, tp->raw_data.data, len, p);
		p->off = ir_ext_writer_place(w, len);
		if (make_external(ctx, tp, w->location, p->off, len)) {
			qir_fail(ctx->err, QIR_ENOMEM, "out of memory");
			goto out;
		}
		n++;
	}
	if (!n) {
		rc = 0;
		goto out;
	}
	if (ir_ext_writer_create(w, dir, ctx->err))
		goto out;
	if (ir_ext_fill(w->file.fd, pc, n, threads, w->file.final_path,
			ctx->err))
		goto out;
	rc = 0;
out:
	free(pc);
	return rc;
}

/* Deferred tensors left inline get their bytes now (the data file's
 * evaluations gave most of them theirs already, as siblings). */
static int resolve_inline(struct save_ctx *ctx)
{
	for (size_t i = 0; i < ctx->nrefs; i++) {
		Onnx__TensorProto *tp = ctx->refs[i].tp;

		if (!tp->raw_data.len || tp->raw_data.data ||
		    tp->data_location ==
		    ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
			continue;
		tp->raw_data.data = (uint8_t *)qir_tensor_data(ctx->refs[i].t,
								ctx->err);
		if (!tp->raw_data.data)
			return -1;
	}
	return 0;
}

/* For the laid-out .onnx (ir/onnx/onnx_layout.c): deferred tensors
 * left inline stay deferred, their recipes evaluated into their place
 * by the fill; each one's raw_data points at its own byte of a
 * sentinel array, by which the packer's append is told apart. Their
 * deferred inputs are evaluated first (ir_deferred_prepare), which may
 * give other tensors of this save their bytes. */
static int defer_inline(struct save_ctx *ctx)
{
	for (size_t i = 0; i < ctx->nrefs; i++) {
		Onnx__TensorProto *tp = ctx->refs[i].tp;

		if (tp->raw_data.len && !tp->raw_data.data &&
		    tp->data_location !=
		    ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL &&
		    qir_tensor_deferred(ctx->refs[i].t) &&
		    ir_deferred_prepare(ctx->refs[i].t, ctx->err))
			return -1;
	}
	ctx->sentinel = ir_arena_alloc(&ctx->a, ctx->nrefs ? ctx->nrefs : 1);
	if (!ctx->sentinel)
		return qir_fail(ctx->err, QIR_ENOMEM, "out of memory");
	for (size_t i = 0; i < ctx->nrefs; i++) {
		Onnx__TensorProto *tp = ctx->refs[i].tp;

		if (!tp->raw_data.len || tp->raw_data.data ||
		    tp->data_location ==
		    ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
			continue;
		if (qir_tensor_deferred(ctx->refs[i].t))
			tp->raw_data.data = ctx->sentinel + i;
		else if (!(tp->raw_data.data = (uint8_t *)qir_tensor_data(
				   ctx->refs[i].t, ctx->err)))
			return -1;
	}
	return 0;
}

/* The threshold the automatic layout uses: what --external-threshold
 * 1024 gives (plus, for a model read with external data, every tensor
 * that was external). */
#define IR_AUTO_THRESHOLD 1024u

/* Places tensors inline or in the data file, per opts; fails when the
 * protobuf would still exceed its 2 GiB limit. */
static int place_data(struct save_ctx *ctx, Onnx__ModelProto *mp,
		      const qir_save_opts *opts, struct ir_ext_writer *w,
		      const char *dir)
{
	uint64_t threshold = opts && !opts->all_inline ?
			     opts->external_threshold : 0;
	int keep = 0;
	size_t size;

	/* Automatic: the input's layout. A model read with external data
	 * is written with it (users of models over 2 GiB expect their
	 * weights to stay out of the .onnx, and the data file is filled
	 * in parallel); an inline one stays inline unless over 2 GiB. */
	if (!threshold && !(opts && opts->all_inline) &&
	    QIR_MPRIV(ctx->m)->maps) {
		threshold = IR_AUTO_THRESHOLD;
		keep = 1;
	} else if (!threshold && !(opts && opts->all_inline) &&
		   protobuf_c_message_get_packed_size(&mp->base) >
		   QIR_PB_LIMIT) {
		threshold = IR_AUTO_THRESHOLD;
	}
	if ((threshold && externalize(ctx, w, dir, threshold, keep,
				      opts ? opts->threads : 0)) ||
	    (ir_onnx_streamed ? resolve_inline(ctx) : defer_inline(ctx)))
		return -1;
	size = protobuf_c_message_get_packed_size(&mp->base);
	if (size > QIR_PB_LIMIT)
		return qir_fail(ctx->err, QIR_EINVALID,
				"model needs %zu bytes, over the 2 GiB protobuf limit%s",
				size, opts && opts->all_inline ?
				" (all_inline was asked for: use external data)" :
				"");
	return 0;
}

/* ---- streaming output ------------------------------------------- */

struct file_sink {
	ProtobufCBuffer base;
	const struct save_ctx *ctx;
	int fd;
	int failed;
	size_t used;
	uint8_t buf[1 << 20];
};

static void sink_flush(struct file_sink *s)
{
	if (!s->failed && s->used && fio_write_all(s->fd, s->buf, s->used))
		s->failed = errno ? errno : EIO;
	s->used = 0;
}

static void sink_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	struct file_sink *s = (struct file_sink *)b;

	if (s->failed || !len)
		return;
	if (len > sizeof(s->buf) - s->used) {
		sink_flush(s);
		if (len >= sizeof(s->buf)) {
			/* Tensor bytes: straight from their memory. */
			if (ir_write_streamed(s->fd, data, len,
						in_map(s->ctx, data, len)))
				s->failed = errno ? errno : EIO;
			return;
		}
	}
	memcpy(s->buf + s->used, data, len);
	s->used += len;
}

static int pack_to(const struct save_ctx *ctx, int fd,
		   const Onnx__ModelProto *mp, const char *path, qir_error *err)
{
	struct file_sink *s = malloc(sizeof(*s));
	int e;

	if (!s)
		return qir_fail(err, QIR_ENOMEM, "out of memory");
	s->base.append = sink_append;
	s->ctx = ctx;
	s->fd = fd;
	s->failed = 0;
	s->used = 0;
	protobuf_c_message_pack_to_buffer(&mp->base, &s->base);
	sink_flush(s);
	e = s->failed;
	free(s);
	if (e)
		return qir_fail(err, QIR_EIO, "cannot write '%s': %s", path,
				strerror(e));
	return 0;
}

/* ---- laid-out output ------------------------------------------ */

/* An inline tensor's bytes, by address (tensors sharing bytes share
 * the address). */
struct by_addr {
	uintptr_t addr;
	size_t ref;
};

struct lookup {
	const struct save_ctx *ctx;
	struct by_addr *tab;
	size_t n;
};

static int addr_cmp(const void *a, const void *b)
{
	const struct by_addr *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The tensor whose inline bytes are [data, +len), or -1. */
static long find_ref(const struct lookup *l, const uint8_t *data, size_t len)
{
	size_t lo = 0, hi = l->n;
	uintptr_t a = (uintptr_t)data;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->tab[mid].addr < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < l->n && l->tab[lo].addr == a; lo++)
		if (l->ctx->refs[l->tab[lo].ref].tp->raw_data.len == len)
			return (long)l->tab[lo].ref;
	return -1;
}

static int inline_piece(void *arg, const uint8_t *data, size_t len,
			struct ir_ext_piece *p)
{
	const struct lookup *l = arg;
	const struct save_ctx *ctx = l->ctx;
	uintptr_t i = (uintptr_t)data - (uintptr_t)ctx->sentinel;
	long r;

	if (ctx->sentinel && i < ctx->nrefs) {
		piece_source(ctx, ctx->refs[i].t, NULL, len, p);
		return 1;
	}
	if (len < QIR_LAYOUT_MIN)
		return 0;
	r = find_ref(l, data, len);
	if (r >= 0) {
		piece_source(ctx, ctx->refs[r].t, data, len, p);
		return 1;
	}
	/* Big bytes the IR does not model (a sparse initializer's): from
	 * memory. */
	p->data = data;
	p->len = len;
	p->from_map = in_map(ctx, data, len);
	map_source(ctx, p);
	return 1;
}

/* The .onnx laid out, then filled (ir/onnx/onnx_layout.c); through the
 * streaming writer under the test hook ir_onnx_streamed. */
static int write_model(const struct save_ctx *ctx, int fd,
		       const Onnx__ModelProto *mp, const char *path,
		       const qir_save_opts *opts)
{
	struct lookup l = { .ctx = ctx };
	int rc;

	if (ir_onnx_streamed)
		return pack_to(ctx, fd, mp, path, ctx->err);
	if (ctx->nrefs && !(l.tab = malloc(ctx->nrefs * sizeof(*l.tab))))
		return qir_fail(ctx->err, QIR_ENOMEM, "out of memory");
	for (size_t i = 0; i < ctx->nrefs; i++) {
		const Onnx__TensorProto *tp = ctx->refs[i].tp;
		uintptr_t a = (uintptr_t)tp->raw_data.data;

		if (tp->raw_data.len >= QIR_LAYOUT_MIN && tp->raw_data.data &&
		    !(ctx->sentinel && a - (uintptr_t)ctx->sentinel < ctx->nrefs))
			l.tab[l.n++] = (struct by_addr){ a, i };
	}
	if (l.n)
		qsort(l.tab, l.n, sizeof(*l.tab), addr_cmp);
	rc = ir_layout_write(fd, &mp->base,
			     protobuf_c_message_get_packed_size(&mp->base),
			     inline_piece, &l, opts ? opts->threads : 0, path,
			     ctx->err);
	free(l.tab);
	return rc;
}

/* ---- entry point ------------------------------------------------ */

/* The one home of the rule "<output's file name>.data". */
static char *default_data_name(const char *base)
{
	char *name = malloc(strlen(base) + sizeof(".data"));

	if (name)
		sprintf(name, "%s.data", base);
	return name;
}

char *qir_model_data_path(const char *output, const char *external_name)
{
	char *c1 = strdup(output), *c2 = strdup(output), *name = NULL;
	char *out = NULL;

	if (c1 && c2) {
		const char *dir = dirname(c1);

		name = external_name ? strdup(external_name) :
		       default_data_name(basename(c2));
		out = name ? malloc(strlen(dir) + strlen(name) + 2) : NULL;
		if (out)
			sprintf(out, "%s/%s", dir, name);
	}
	free(name);
	free(c1);
	free(c2);
	return out;
}

static char *data_name(const char *path, const qir_save_opts *opts,
		       qir_error *err)
{
	char *copy = strdup(path), *base, *name = NULL;

	if (!copy) {
		qir_fail(err, QIR_ENOMEM, "out of memory");
		return NULL;
	}
	base = basename(copy);
	if (opts && opts->external_name) {
		if (!ir_ext_location_ok(opts->external_name) ||
		    !strcmp(opts->external_name, base))
			qir_fail(err, QIR_EUSAGE,
				 "external data name '%s' must be a relative path inside the output's folder, without '..', and not the model file itself",
				 opts->external_name);
		else
			name = strdup(opts->external_name);
	} else {
		name = default_data_name(base);
	}
	if (!name && err && !err->code)
		qir_fail(err, QIR_ENOMEM, "out of memory");
	free(copy);
	return name;
}

/* The written model is read back before it is committed: if the
 * writer ever produced bytes no parser accepts (an unknown field it
 * could not represent, a size it got wrong), the save fails instead
 * of leaving an unreadable file behind an exit status of 0. One walk
 * over the mapped file's structure, no allocation: payloads are
 * skipped by their lengths, and external data is checked by the data
 * file's size and the offsets and lengths the model records
 * (check_data), never by reading its bytes again. */
static int reread(int fd, const char *path, qir_error *err)
{
	struct stat st;
	void *addr;
	int rc;

	if (fstat(fd, &st) < 0)
		return qir_fail(err, QIR_EIO, "cannot read back '%s': %s", path,
				strerror(errno));
	if (st.st_size == 0 || (uint64_t)st.st_size > QIR_PB_LIMIT)
		return 0;
	addr = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (addr == MAP_FAILED)
		return qir_fail(err, QIR_EIO, "cannot read back '%s': %s", path,
				strerror(errno));
	rc = ir_pb_scan(addr, (size_t)st.st_size, 1, err);
	munmap(addr, (size_t)st.st_size);
	if (rc && err) {
		char msg[sizeof(err->msg)];

		snprintf(msg, sizeof(msg), "%s", err->msg);
		qir_fail(err, QIR_EINVALID,
			 "the written model does not read back (%s); nothing written",
			 msg);
	}
	return rc;
}

/* An external_data value this writer made, read back as a parser
 * would; -1 when it is not a plain decimal. */
static int ext_u64(const Onnx__TensorProto *tp, const char *key,
		   uint64_t *v)
{
	for (size_t i = 0; i < tp->n_external_data; i++) {
		const char *s = tp->external_data[i]->value;
		char *end;

		if (strcmp(tp->external_data[i]->key, key))
			continue;
		if (!s || *s < '0' || *s > '9')
			return -1;
		errno = 0;
		*v = strtoull(s, &end, 10);
		return errno || *end ? -1 : 0;
	}
	return -1;
}

/* The data file's half of the read-back: its size is what the layout
 * said, and every tensor's offset and length, as written in the model,
 * lie inside it. Only the file's size is read, never its bytes: they
 * were produced from the tensors, and what could break a reader is
 * where the model says they are. */
static int check_data(const struct save_ctx *ctx,
		      const struct ir_ext_writer *w, qir_error *err)
{
	struct stat st;

	if (!w->opened)
		return 0;
	if (fstat(w->file.fd, &st) < 0)
		return qir_fail(err, QIR_EIO, "cannot read back '%s': %s",
				w->file.final_path, strerror(errno));
	if ((uint64_t)st.st_size != w->size)
		return qir_fail(err, QIR_EIO,
				"the written data file '%s' has %lld bytes, %" PRIu64
				" were laid out; nothing written",
				w->file.final_path, (long long)st.st_size,
				w->size);
	for (size_t i = 0; i < ctx->nrefs; i++) {
		const Onnx__TensorProto *tp = ctx->refs[i].tp;
		uint64_t off, len;

		if (!tp->has_data_location || tp->data_location !=
		    ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL ||
		    !tp->n_external_data ||
		    strcmp(tp->external_data[0]->value, w->location))
			continue;	/* inline, or a link (link_in_place) */
		if (ext_u64(tp, "offset", &off) || ext_u64(tp, "length", &len) ||
		    off % QIR_EXT_ALIGN || off > w->size ||
		    len > w->size - off || len != ctx->refs[i].t->nbytes)
			return qir_fail(err, QIR_EINVALID,
					"tensor '%s': its external data entry does not read back inside '%s'; nothing written",
					tp->name ? tp->name : "",
					w->file.final_path);
	}
	return 0;
}

static int same_inode(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* A file written may not be an external data file the model reads
 * from, or the source model is left pointing at other bytes: the one
 * exception is saving a model over itself, data file included, which
 * replaces both together. */
static int source_clash(qir_model *m, const char *path,
			const struct ir_ext_writer *w, const char *dir,
			qir_error *err)
{
	const char *hit = NULL;
	char *data = NULL;
	int rc = 0;

	if (w->opened) {
		size_t n = strlen(dir) + strlen(w->location) + 2;

		data = malloc(n);
		if (!data)
			return qir_fail(err, QIR_ENOMEM, "out of memory");
		snprintf(data, n, "%s/%s", dir, w->location);
	}
	if (ir_ext_is_source(m, path))
		hit = path;
	else if (data && ir_ext_is_source(m, data) &&
		 !(m->path && same_inode(path, m->path)))
		hit = data;
	if (hit)
		rc = qir_fail(err, QIR_EUSAGE,
			      "'%s' holds external data of the model being saved; write to another name",
			      hit);
	free(data);
	return rc;
}

static int write_files(struct save_ctx *ctx, qir_model *m, const char *path,
		       const qir_save_opts *opts, const char *dir,
		       struct ir_ext_writer *w, struct fio_atomic_file *f)
{
	Onnx__ModelProto *mp = model_pb(ctx, m);
	char msg[sizeof(ctx->err->msg)];
	sigset_t held;
	int lock, rc;

	if (!mp) {
		if (!ctx->failed)
			qir_fail(ctx->err, QIR_ENOMEM,
				 "out of memory building the model message");
		return -1;
	}
	if (place_data(ctx, mp, opts, w, dir) ||
	    source_clash(m, path, w, dir, ctx->err))
		return -1;
	rc = fio_atomic_open(f, path, msg, sizeof(msg));
	if (rc)
		return ir_fail_file(ctx->err, rc, msg);
	if (write_model(ctx, f->fd, mp, path, opts) ||
	    reread(f->fd, path, ctx->err) ||
	    check_data(ctx, w, ctx->err))
		return -1;
	rc = fio_atomic_sync(f, msg, sizeof(msg));
	/* An input that shrank while read gave zeros for its bytes
	 * (ir/file/mapfault.c): nothing made from it is committed. */
	if (!rc)
		rc = fio_map_check(msg, sizeof(msg));
	if (rc)
		return ir_fail_file(ctx->err, rc, msg);
	lock = fio_dir_lock(dir, msg, sizeof(msg));
	if (lock == -1)
		return ir_fail_file(ctx->err, FIO_EIO, msg);
	/* A stop between the two renames would leave a new data file
	 * beside an old model: the pair commits whole, then the signal. */
	fio_stops_hold(&held);
	rc = w->opened ? fio_atomic_commit(&w->file, msg, sizeof(msg)) : 0;
	if (!rc)
		rc = fio_atomic_commit(f, msg, sizeof(msg));
	fio_stops_release(&held);
	fio_dir_unlock(lock);
	return rc ? ir_fail_file(ctx->err, rc, msg) : 0;
}

/* The model file m was mapped from, opened again for copies inside
 * the kernel when its path still names that file; else -1 (the bytes
 * are then written from the mapping). */
static int model_file(const qir_model *m)
{
	const struct ir_model_priv *p = QIR_MPRIV(m);
	struct stat st;
	int fd;

	if (!p->file_addr || !p->file_ino || !m->path)
		return -1;
	fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_dev != p->file_dev ||
			st.st_ino != p->file_ino || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* 1 when path is now shorter than the was bytes mapped from it. */
static int shrank(const char *path, uint64_t was)
{
	struct stat st;

	return path && was && stat(path, &st) == 0 &&
	       (uint64_t)st.st_size < was;
}

/* A save that failed while an input was shorter than when it was
 * mapped failed because of that input: a fault in its pages was
 * caught (ir/file/mapfault.c), or a write from them got EFAULT. */
static void blame_input(const qir_model *m, qir_error *err)
{
	const ir_mapping *map = QIR_MPRIV(m)->maps;
	char msg[sizeof(err->msg)];
	const char *hit = NULL;

	if (fio_map_check(msg, sizeof(msg))) {
		qir_fail(err, QIR_EIO, "%s", msg);
		return;
	}
	if (QIR_MPRIV(m)->file_addr &&
	    shrank(m->path, QIR_MPRIV(m)->file_size))
		hit = m->path;
	for (; !hit && map; map = map->next)
		if (map->addr && shrank(map->path, map->size))
			hit = map->path;
	if (!hit)
		return;
	fio_map_changed(msg, sizeof(msg), hit);
	qir_fail(err, QIR_EIO, "%s", msg);
}

int qir_model_save(qir_model *m, const char *path,
		   const qir_save_opts *caller_opts, qir_error *err)
{
	struct save_ctx ctx = { .err = err, .m = m, .map_fd = -1 };
	struct fio_atomic_file f = { .fd = -1 };
	struct ir_ext_writer w;
	char *copy, *dir = NULL, *name;
	qir_save_opts so;
	const qir_save_opts *opts = &so;
	int rc;

	if (!m || !m->graph || !path || !*path)
		return qir_fail(err, QIR_EUSAGE,
				"qir_model_save: no model or path");
	if (ir_opts_read(&so, sizeof(so), caller_opts, IR_SAVE_OPTS_4_0,
			 "qir_save_opts", err) < 0)
		return -1;
	if (err)
		err->code = 0;
	name = data_name(path, opts, err);
	copy = strdup(path);
	if (copy)
		dir = strdup(dirname(copy));
	free(copy);
	if (!name || !dir) {
		free(name);
		free(dir);
		return name ? qir_fail(err, QIR_ENOMEM, "out of memory") : -1;
	}
	ctx.link_external = so.link_external;
	ctx.links.dir = dir;
	ctx.links.base = name;
	if (QIR_MPRIV(m)->file_addr) {
		ctx.map_lo = (uintptr_t)QIR_MPRIV(m)->file_addr;
		ctx.map_len = QIR_MPRIV(m)->file_size;
		ctx.map_fd = model_file(m);
	}
	ir_ext_writer_init(&w, name);
	rc = write_files(&ctx, m, path, opts, dir, &w, &f);
	if (rc)
		blame_input(m, err);
	ir_ext_links_done(&ctx.links, rc != 0);
	fio_atomic_abort(&f);
	fio_atomic_abort(&w.file);
	ir_arena_free(&ctx.a);
	if (ctx.map_fd >= 0)
		close(ctx.map_fd);
	free(ctx.refs);
	free(name);
	free(dir);
	return rc;
}
