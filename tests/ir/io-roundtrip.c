/*
 * tests/ir/io-roundtrip.c - load/save keeps what the IR models and what
 * it does not: structure, types, tensor bytes (typed fields converted
 * to raw), subgraphs with outer-scope captures, empty optionals,
 * unsorted files, doc strings, metadata, functions, unknown fields.
 */
#include "../lib/tap.h"
#include "../lib/io-util.h"
#include <qopt/upgrade.h>

static const char *dir;

static qir_model *reload(qir_model *m, const char *name, qir_error *err)
{
	qir_model *r = NULL;

	memset(err, 0, sizeof(*err));
	if (qir_model_save(m, io_path(dir, name), NULL, err))
		return NULL;
	if (qir_model_load(io_path(dir, name), NULL, &r, err))
		return NULL;
	return r;
}

static qir_node *find_node(qir_graph *g, const char *op)
{
	qir_node *n;

	qir_graph_for_each_node(g, n)
		if (!strcmp(n->op_type, op))
			return n;
	return NULL;
}

/* A model built with the public API survives save + load. */
static void api_model(void)
{
	int64_t xd[2] = { -1, 4 }, wd[2] = { 4, 2 };
	float w[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	int64_t ints[3] = { 1, -2, 3 };
	qir_error err = { 0 };
	qir_model *m = qir_model_new(9, 19, &err), *r;
	qir_graph *g = m->graph;
	qir_tensor *t = qir_tensor_new("w", QIR_FLOAT, 2, wd, &err);
	qir_value *x = qir_value_new(g, "x"), *wv, *y;
	qir_node *n;
	const float *d;

	qir_value_set_type(x, QIR_FLOAT, 2, xd, &err);
	x->dims[0].param = strdup("batch");
	qir_graph_add_input(g, x);
	memcpy(qir_tensor_mutable_data(t, &err), w, sizeof(w));
	wv = qir_graph_add_initializer(g, t);
	n = qir_node_new(g, "MatMul", NULL, "mm");
	qir_node_add_input(n, x);
	qir_node_add_input(n, wv);
	y = qir_node_add_output(n, NULL, "y");
	qir_node_set_attr_ints(n, "perm", ints, 3);
	qir_node_set_attr_string(n, "mode", "fast");
	qir_node_set_attr_float(n, "alpha", 0.5f);
	qir_graph_add_output(g, y);
	qir_model_set_metadata(m, "author", "qopt tests");

	r = reload(m, "api.onnx", &err);
	tap_ok(r != NULL, "API-built model saves and loads (%s)", err.msg);
	if (!r)
		goto out;
	g = r->graph;
	n = find_node(g, "MatMul");
	tap_ok(g->ninputs == 1 && g->noutputs == 1 && g->ninits == 1 && n &&
	       n->ninputs == 2 && n->inputs[0] == g->inputs[0] &&
	       n->inputs[1] == g->inits[0] && n->outputs[0] == g->outputs[0],
	       "structure and SSA links kept");
	x = g->inputs[0];
	tap_ok(x->dtype == QIR_FLOAT && x->rank == 2 && x->dims[0].value == -1 &&
	       x->dims[0].param && !strcmp(x->dims[0].param, "batch") &&
	       x->dims[1].value == 4, "input type with symbolic dim kept");
	d = qir_tensor_data(g->inits[0]->init, &err);
	tap_ok(d && !memcmp(d, w, sizeof(w)) &&
	       g->inits[0]->init->storage == QIR_STORE_BORROWED,
	       "initializer bytes kept (borrowed from the parsed message)");
	tap_ok(n && qir_node_attr(n, "perm") &&
	       qir_node_attr(n, "perm")->n == 3 &&
	       qir_node_attr(n, "perm")->ints[1] == -2 &&
	       !strcmp(qir_node_attr_string(n, "mode", ""), "fast") &&
	       qir_node_attr_float(n, "alpha", 0) == 0.5f &&
	       !strcmp(n->name, "mm"), "attributes and node name kept");
	tap_ok(r->nmetadata == 1 && !strcmp(r->metadata[0].value, "qopt tests")
	       && qir_model_opset(r, "") == 19 && r->ir_version == 9,
	       "metadata, opset and IR version kept");
out:
	qir_model_free(r);
	qir_model_free(m);
}

static void packed(struct pb *t, int field, const void *d, size_t n)
{
	pb_tag(t, field, 2);
	pb_varint(t, n);
	pb_raw(t, d, n);
}

static struct pb typed_tensor(const char *name, int dtype, int64_t n,
			      int field, struct pb *payload)
{
	struct pb t = { 0 };

	pb_tensor_head(&t, name, dtype, &n, 1);
	packed(&t, field, payload->d, payload->n);
	free(payload->d);
	return t;
}

/* Typed fields become raw little-endian bytes. */
static void typed_fields(void)
{
	struct pb g = { 0 }, p = { 0 }, t, m;
	float f[2] = { 1.5f, -2 };
	double dd[1] = { 0.25 };
	qir_model *r;
	qir_error err;
	const uint8_t *b;

	pb_raw(&p, f, sizeof(f));
	t = typed_tensor("f", QIR_FLOAT, 2, 4, &p);
	pb_msg(&g, 5, &t);
	memset(&p, 0, sizeof(p));	/* FLOAT16 0x3c00, 0xc000 */
	pb_varint(&p, 0x3c00);
	pb_varint(&p, 0xc000);
	t = typed_tensor("h", QIR_FLOAT16, 2, 5, &p);
	pb_msg(&g, 5, &t);
	memset(&p, 0, sizeof(p));	/* INT4 x3: packed bytes 0x21, 0x0f */
	pb_varint(&p, 0x21);
	pb_varint(&p, 0x0f);
	t = typed_tensor("q", QIR_INT4, 3, 5, &p);
	pb_msg(&g, 5, &t);
	memset(&p, 0, sizeof(p));	/* INT64 -2 */
	pb_varint(&p, (uint64_t)-2);
	t = typed_tensor("l", QIR_INT64, 1, 7, &p);
	pb_msg(&g, 5, &t);
	memset(&p, 0, sizeof(p));
	pb_raw(&p, dd, sizeof(dd));
	t = typed_tensor("d", QIR_DOUBLE, 1, 10, &p);
	pb_msg(&g, 5, &t);
	memset(&p, 0, sizeof(p));	/* UINT32 0x80000001 */
	pb_varint(&p, 0x80000001u);
	t = typed_tensor("u", QIR_UINT32, 1, 11, &p);
	pb_msg(&g, 5, &t);
	memset(&p, 0, sizeof(p));	/* COMPLEX64: 2 floats per element */
	pb_raw(&p, f, sizeof(f));
	t = typed_tensor("c", QIR_COMPLEX64, 1, 4, &p);
	pb_msg(&g, 5, &t);
	{
		struct pb s = { 0 };
		int64_t two = 2;

		pb_tensor_head(&s, "s", QIR_STRING, &two, 1);
		pb_str(&s, 6, "ab");
		pb_str(&s, 6, "");
		pb_msg(&g, 5, &s);
	}
	pb_str(&g, 2, "typed");
	m = pb_model(&g);
	tap_ok(io_load_bytes(dir, "typed.onnx", &m, &r, &err) == 0,
	       "typed-field tensors load (%s)", err.msg);
	free(m.d);
	if (!r)
		return;
	for (int pass = 0; pass < 2 && r; pass++) {
		qir_value **in = r->graph->inits;
		const char *when = pass ? "after save+load" : "on load";

		b = qir_tensor_data(in[0]->init, &err);
		tap_ok(b && !memcmp(b, f, 8), "float_data -> raw %s", when);
		b = qir_tensor_data(in[1]->init, &err);
		tap_ok(b && in[1]->init->nbytes == 4 && b[0] == 0 &&
		       b[1] == 0x3c && b[2] == 0 && b[3] == 0xc0,
		       "FLOAT16 int32_data -> 2 bytes each %s", when);
		b = qir_tensor_data(in[2]->init, &err);
		tap_ok(b && in[2]->init->nbytes == 2 && b[0] == 0x21 &&
		       b[1] == 0x0f, "INT4 int32_data holds packed bytes %s",
		       when);
		b = qir_tensor_data(in[3]->init, &err);
		tap_ok(b && b[0] == 0xfe && b[7] == 0xff, "int64_data %s", when);
		b = qir_tensor_data(in[4]->init, &err);
		tap_ok(b && !memcmp(b, dd, 8), "double_data %s", when);
		b = qir_tensor_data(in[5]->init, &err);
		tap_ok(b && in[5]->init->nbytes == 4 && b[0] == 1 &&
		       b[3] == 0x80, "UINT32 uint64_data -> 4 bytes %s", when);
		b = qir_tensor_data(in[6]->init, &err);
		tap_ok(b && in[6]->init->nbytes == 8 && !memcmp(b, f, 8),
		       "COMPLEX64 float_data counts 2 per element %s", when);
		tap_ok(in[7]->init->nstrings == 2 &&
		       !strcmp(in[7]->init->strings[0], "ab") &&
		       in[7]->init->string_lens[1] == 0,
		       "string_data %s", when);
		if (!pass) {
			qir_model *r2 = reload(r, "typed2.onnx", &err);

			qir_model_free(r);
			r = r2;
			tap_ok(io_contains(io_path(dir, "typed2.onnx"),
					   "\x4a\x02\x21\x0f", 4),
			       "saved as raw_data");
		}
	}
	qir_model_free(r);
}

static const char marker[] = "qopt-unknown-marker";

/* What the IR does not model is written back untouched. */
static struct pb rich_model(void)
{
	struct pb m = { 0 }, g = { 0 }, extra = { 0 }, fn = { 0 }, op = { 0 },
		  sub_then = { 0 }, sub_else = { 0 }, attr = { 0 }, t = { 0 };
	int64_t one = 1;
	float f = 2;
	const char *in_add[] = { "c", "x", NULL }, *out_add[] = { "y", NULL };
	const char *in_if[] = { "cond", NULL }, *out_if[] = { "z", NULL };
	const char *in_c[] = { NULL }, *out_c[] = { "c", NULL };
	const char *in_id[] = { "y", NULL }, *out_t[] = { "t", NULL };
	const char *in_drop[] = { "y", "", NULL },
		   *out_drop[] = { "", "mask", NULL };

	/* If: then-branch captures outer y. */
	pb_node(&sub_then, "Identity", "then_id", in_id, out_t, NULL);
	pb_str(&sub_then, 2, "then");
	pb_value(&sub_then, 12, "t", QIR_FLOAT, &one, 1);
	pb_node(&sub_else, "Identity", "else_id", in_id, out_t + 1, NULL);
	{
		const char *o[] = { "e", NULL };

		sub_else.n = 0;
		free(sub_else.d);
		memset(&sub_else, 0, sizeof(sub_else));
		pb_node(&sub_else, "Identity", "else_id", in_id, o, NULL);
		pb_str(&sub_else, 2, "else");
		pb_value(&sub_else, 12, "e", QIR_FLOAT, &one, 1);
	}
	pb_str(&attr, 1, "then_branch");
	pb_int(&attr, 20, 5);
	pb_msg(&attr, 6, &sub_then);
	pb_msg(&extra, 5, &attr);
	pb_str(&attr, 1, "else_branch");
	pb_int(&attr, 20, 5);
	pb_msg(&attr, 6, &sub_else);
	pb_msg(&extra, 5, &attr);
	pb_node(&g, "If", "if", in_if, out_if, &extra);

	/* Unsorted: Add uses c, produced by the Constant listed later. The
	 * Add node carries a doc string, metadata and an unknown field. */
	pb_str(&extra, 6, "add doc");
	pb_kv(&extra, 9, "node-key", "node-value");
	pb_str(&extra, 99, marker);
	pb_node(&g, "Add", "add", in_add, out_add, &extra);
	pb_tensor_head(&t, "", QIR_FLOAT, &one, 1);
	pb_bytes(&t, 9, &f, 4);
	pb_str(&attr, 1, "value");
	pb_int(&attr, 20, 4);
	pb_msg(&attr, 5, &t);
	pb_msg(&extra, 5, &attr);
	pb_node(&g, "Constant", "const", in_c, out_c, &extra);
	pb_node(&g, "Dropout", "drop", in_drop, out_drop, NULL);

	pb_str(&g, 2, "rich");
	pb_str(&g, 10, "graph doc");
	pb_kv(&g, 16, "graph-key", "graph-value");
	pb_value(&g, 11, "x", QIR_FLOAT, &one, 1);
	pb_value(&g, 11, "cond", QIR_BOOL, NULL, 0);
	pb_value(&g, 12, "z", QIR_FLOAT, &one, 1);
	pb_value(&g, 12, "mask", QIR_BOOL, &one, 1);
	pb_value(&g, 13, "y", QIR_FLOAT, &one, 1);

	pb_int(&m, 1, 9);
	pb_str(&op, 1, "");
	pb_int(&op, 2, 19);
	pb_msg(&m, 8, &op);
	pb_str(&op, 1, "custom");
	pb_int(&op, 2, 1);
	pb_msg(&m, 8, &op);
	pb_str(&m, 2, "tests");
	pb_str(&m, 6, "model doc");
	pb_kv(&m, 14, "model-key", "model-value");
	pb_msg(&m, 7, &g);
	pb_str(&fn, 1, "MyFunction");
	pb_str(&fn, 10, "custom");
	pb_str(&fn, 4, "a");
	pb_str(&fn, 5, "b");
	pb_msg(&m, 25, &fn);
	return m;
}

static void unmodeled(void)
{
	struct pb m = rich_model();
	static const char *keep[] = { "model doc", "graph doc", "add doc",
		"node-key", "node-value", "graph-key", "model-value",
		"MyFunction", marker };
	qir_model *r, *r2;
	qir_error err;
	qir_node *add, *iff, *drop, *inner;
	char out[4096];

	tap_ok(io_load_bytes(dir, "rich.onnx", &m, &r, &err) == 0,
	       "unsorted model with subgraphs loads (%s)", err.msg);
	free(m.d);
	if (!r)
		return;
	snprintf(out, sizeof(out), "%s", io_path(dir, "rich-out.onnx"));
	add = find_node(r->graph, "Add");
	iff = find_node(r->graph, "If");
	drop = find_node(r->graph, "Dropout");
	tap_ok(add && add->inputs[0] && add->inputs[0]->producer &&
	       !strcmp(add->inputs[0]->producer->op_type, "Constant"),
	       "forward reference resolves to the later producer");
	tap_ok(drop && drop->ninputs == 2 && drop->inputs[1] == NULL &&
	       drop->noutputs == 2 && drop->outputs[0] == NULL &&
	       drop->outputs[1] && !strcmp(drop->outputs[1]->name, "mask"),
	       "empty optional input and output are NULL");
	inner = iff && iff->nattrs == 2 && iff->attrs[0].g ?
		iff->attrs[0].g->first : NULL;
	tap_ok(inner && iff->attrs[0].g->parent == r->graph &&
	       iff->attrs[0].g->parent_node == iff &&
	       inner->inputs[0] == add->outputs[0],
	       "subgraph capture resolves to the outer value");
	tap_ok(add->outputs[0]->dtype == QIR_FLOAT &&
	       add->outputs[0]->rank == 1, "value_info types the value");

	memset(&err, 0, sizeof(err));
	tap_ok(qir_model_save(r, out, NULL, &err) == 0, "saves (%s)", err.msg);
	for (size_t i = 0; i < sizeof(keep) / sizeof(*keep); i++)
		tap_ok(io_contains(out, keep[i], strlen(keep[i])),
		       "'%s' written back", keep[i]);
	r2 = NULL;
	memset(&err, 0, sizeof(err));
	qir_model_load(out, NULL, &r2, &err);
	drop = r2 ? find_node(r2->graph, "Dropout") : NULL;
	iff = r2 ? find_node(r2->graph, "If") : NULL;
	tap_ok(drop && drop->inputs[1] == NULL && drop->outputs[0] == NULL &&
	       iff && iff->attrs[1].g && iff->attrs[1].g->first &&
	       iff->attrs[1].g->first->inputs[0] ==
	       find_node(r2->graph, "Add")->outputs[0] &&
	       r2->nopsets == 2,
	       "reloaded copy keeps optionals, captures and opsets (%s)",
	       err.msg);
	qir_model_free(r2);
	qir_model_free(r);
}

/* Nothing is left behind when a save fails. */
static void failed_save(void)
{
	char sub[4096];
	qir_error err = { 0 };
	qir_model *m = qir_model_new(9, 19, &err);
	int64_t big = ((int64_t)1 << 29) + 1;	/* 2 GiB + 4 bytes */
	qir_tensor *t = qir_tensor_new("huge", QIR_FLOAT, 1, &big, &err);
	qir_save_opts o = { .all_inline = 1 };
	qir_value *v;

	snprintf(sub, sizeof(sub), "%s", io_path(dir, "fail"));
	mkdir(sub, 0777);
	if (!t) {
		tap_skip("no 2 GiB of address space", "all_inline over 2 GiB");
		qir_model_free(m);
		return;
	}
	v = qir_graph_add_initializer(m->graph, t);
	qir_graph_add_output(m->graph, v);
	tap_ok(qir_model_save(m, io_path(sub, "big.onnx"), &o, &err) == -1 &&
	       err.code == QIR_EINVALID &&
	       strstr(err.msg, "over the 2 GiB protobuf limit"),
	       "all_inline over 2 GiB fails: \"%s\"", err.msg);
	tap_ok(io_count(sub) == 0, "no output or temporary file left");
	qir_model_free(m);
	m = qir_model_new(9, 19, &err);
	memset(&err, 0, sizeof(err));
	tap_ok(qir_model_save(m, io_path(dir, "missing/x.onnx"), NULL, &err)
	       == -1 && err.code == QIR_EIO && strstr(err.msg, "x.onnx'"),
	       "save into a missing folder fails: \"%s\"", err.msg);
	qir_model_free(m);
}

/* An IR version newer than qopt knows (99) was written back as it
 * was, and ONNX Runtime refused the output: it is written as the
 * newest IR version known, that of the newest opset known; a known
 * one is kept. */
static void ir_version_newest(void)
{
	int64_t newest = qir_opset_min_ir_version(qir_upgrade_max_opset());
	qir_error err = { 0 };
	qir_model *m = qir_model_new(99, 17, &err), *r;

	r = m ? reload(m, "ir99.onnx", &err) : NULL;
	tap_ok(r && r->ir_version == newest,
	       "IR version 99 is written as the newest known, %lld (got %lld: %s)",
	       (long long)newest, r ? (long long)r->ir_version : -1LL, err.msg);
	tap_ok(m && m->ir_version == 99, "the model in memory keeps its 99");
	qir_model_free(r);
	qir_model_free(m);
	m = qir_model_new(newest, 17, &err);
	r = m ? reload(m, "irnew.onnx", &err) : NULL;
	tap_ok(r && r->ir_version == newest, "the newest known, %lld, is kept",
	       (long long)newest);
	qir_model_free(r);
	qir_model_free(m);
	m = qir_model_new(7, 12, &err);
	r = m ? reload(m, "ir7.onnx", &err) : NULL;
	tap_ok(r && r->ir_version == 7, "an older one, 7, is kept");
	qir_model_free(r);
	qir_model_free(m);
}

int main(void)
{
	dir = io_mkdir("io-roundtrip");
	api_model();
	typed_fields();
	unmodeled();
	failed_save();
	ir_version_newest();
	return tap_done();
}
