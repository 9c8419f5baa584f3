/*
 * tests/ir/io-zerocopy.c - large inline raw_data is borrowed from the
 * loaded file, not copied: initializers, Constant attributes and
 * subgraphs alike; small payloads are still copied; saving writes the
 * real bytes (never the reader's tokens), over the input too; the odd
 * cases (a payload that looks like a token, raw_data given twice, bad
 * sizes, truncated files) behave as they did before.
 */
#include "../lib/tap.h"
#include "../lib/io-util.h"
#include "onnx/onnx_io.h"

static const char *dir;

/* Distinct, recognisable payloads: no two share a 16-byte run. */
static uint8_t *payload(size_t n, unsigned seed)
{
	uint8_t *d = malloc(n ? n : 1);
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		d[i] = (uint8_t)x;
	}
	return d;
}

static void raw_tensor(struct pb *t, const char *name, int dtype,
		       const int64_t *dims, int rank, const uint8_t *d,
		       size_t n)
{
	pb_tensor_head(t, name, dtype, dims, rank);
	pb_bytes(t, 9, d, n);
}

/* AttributeProto holding tensor t (freed) with the given type. */
static void tensor_attr(struct pb *node_extra, const char *name, int type,
			struct pb *t)
{
	struct pb a = { 0 };

	pb_str(&a, 1, name);
	pb_msg(&a, 5, t);
	pb_int(&a, 20, type);
	pb_msg(node_extra, 5, &a);
}

enum { N_W, N_SMALL, N_LO, N_HI, N_CONST, N_SUBW, N_SUBC, N_ODD, N_PAY };
static const size_t pay_len[N_PAY] = { 16384, 16, 4095, 4096, 8192, 8192,
				       8192, 6000 };
static uint8_t *pay[N_PAY];

/* Initializers W (with a doc string and an unknown field after its
 * raw_data), small, edge_lo (one byte under the limit), edge_hi; a
 * Constant; an If whose then branch has an initializer and a
 * Constant; an attribute of a type the IR does not model that holds
 * a large tensor anyway (the writer copies it verbatim). */
static struct pb big_model(void)
{
	static const char *const no[] = { NULL };
	static const char *const c_out[] = { "C", NULL };
	static const char *const if_in[] = { "cond", NULL };
	static const char *const if_out[] = { "Y", NULL };
	static const char *const t_out[] = { "T", NULL };
	static const char *const id_in[] = { "C", NULL };
	static const char *const id_out[] = { "Z", NULL };
	int64_t wd[2] = { 64, 64 }, sd[1] = { 4 }, lo[1] = { 4095 },
		hi[1] = { 4096 }, cd[2] = { 32, 64 }, od[1] = { 1500 },
		one[1] = { 1 };
	struct pb g = { 0 }, t = { 0 }, ex = { 0 }, sub = { 0 };

	for (int i = 0; i < N_PAY; i++)
		if (!pay[i])
			pay[i] = payload(pay_len[i], (unsigned)i + 1);
	raw_tensor(&t, "W", QIR_FLOAT, wd, 2, pay[N_W], pay_len[N_W]);
	pb_str(&t, 12, "W doc");
	pb_int(&t, 99, 4242);
	pb_msg(&g, 5, &t);
	raw_tensor(&t, "small", QIR_FLOAT, sd, 1, pay[N_SMALL],
		   pay_len[N_SMALL]);
	pb_msg(&g, 5, &t);
	raw_tensor(&t, "edge_lo", QIR_UINT8, lo, 1, pay[N_LO], pay_len[N_LO]);
	pb_msg(&g, 5, &t);
	raw_tensor(&t, "edge_hi", QIR_UINT8, hi, 1, pay[N_HI], pay_len[N_HI]);
	pb_msg(&g, 5, &t);

	raw_tensor(&t, "", QIR_FLOAT, cd, 2, pay[N_CONST], pay_len[N_CONST]);
	tensor_attr(&ex, "value", QIR_ATTR_TENSOR, &t);
	pb_node(&g, "Constant", "const", no, c_out, &ex);

	raw_tensor(&t, "SubW", QIR_FLOAT, cd, 2, pay[N_SUBW], pay_len[N_SUBW]);
	pb_msg(&sub, 5, &t);
	raw_tensor(&t, "", QIR_FLOAT, cd, 2, pay[N_SUBC], pay_len[N_SUBC]);
	tensor_attr(&ex, "value", QIR_ATTR_TENSOR, &t);
	pb_node(&sub, "Constant", "inner", no, t_out, &ex);
	pb_str(&sub, 2, "then");
	pb_value(&sub, 12, "T", QIR_FLOAT, cd, 2);
	{
		struct pb a = { 0 }, e = { 0 };

		pb_str(&e, 2, "else");
		pb_value(&e, 12, "C", QIR_FLOAT, cd, 2);
		pb_str(&a, 1, "then_branch");
		pb_msg(&a, 6, &sub);
		pb_int(&a, 20, QIR_ATTR_GRAPH);
		pb_msg(&ex, 5, &a);
		pb_str(&a, 1, "else_branch");
		pb_msg(&a, 6, &e);
		pb_int(&a, 20, QIR_ATTR_GRAPH);
		pb_msg(&ex, 5, &a);
	}
	pb_node(&g, "If", "iff", if_in, if_out, &ex);

	raw_tensor(&t, "", QIR_UINT32, od, 1, pay[N_ODD], pay_len[N_ODD]);
	tensor_attr(&ex, "odd", QIR_ATTR_SPARSE_TENSOR, &t);
	pb_node(&g, "Identity", "ident", id_in, id_out, &ex);

	pb_str(&g, 2, "g");
	pb_value(&g, 11, "cond", QIR_BOOL, one, 1);
	pb_value(&g, 12, "Y", QIR_FLOAT, cd, 2);
	pb_value(&g, 12, "Z", QIR_FLOAT, cd, 2);
	return pb_model(&g);
}

static qir_node *node_named(qir_graph *g, const char *name)
{
	qir_node *n;

	qir_graph_for_each_node(g, n)
		if (!strcmp(n->name, name))
			return n;
	return NULL;
}

static qir_tensor *init(qir_graph *g, const char *name)
{
	qir_value *v = g ? qir_graph_find_value(g, name) : NULL;

	return v ? v->init : NULL;
}

static qir_tensor *const_of(qir_graph *g, const char *name)
{
	qir_node *n = g ? node_named(g, name) : NULL;

	return n && n->nattrs ? n->attrs[0].t : NULL;
}

/* The tensor's bytes lie in the model's borrowed source bytes. */
static int borrowed(qir_model *m, qir_tensor *t)
{
	const struct ir_model_priv *p = QIR_MPRIV(m);
	const uint8_t *d, *lo = p->pb_borrow;
	qir_error err = { 0 };

	if (!t || t->storage != QIR_STORE_BORROWED || !lo)
		return 0;
	d = qir_tensor_data(t, &err);
	return d >= lo && d + t->nbytes <= lo + p->pb_borrow_len;
}

static int same(qir_tensor *t, int which)
{
	qir_error err = { 0 };
	const void *d = t ? qir_tensor_data(t, &err) : NULL;

	return d && t->nbytes == pay_len[which] &&
	       !memcmp(d, pay[which], pay_len[which]);
}

static qir_graph *then_branch(qir_model *m)
{
	qir_node *n = node_named(m->graph, "iff");

	return n && n->nattrs == 2 ? n->attrs[0].g : NULL;
}

static void check_loaded(qir_model *m, const char *how)
{
	qir_graph *sub = then_branch(m);

	tap_ok(borrowed(m, init(m->graph, "W")) && same(init(m->graph, "W"), N_W),
	       "%s: initializer W borrowed from the file, same bytes", how);
	tap_ok(borrowed(m, const_of(m->graph, "const")) &&
	       same(const_of(m->graph, "const"), N_CONST),
	       "%s: Constant value borrowed from the file, same bytes", how);
	tap_ok(borrowed(m, init(sub, "SubW")) && same(init(sub, "SubW"), N_SUBW),
	       "%s: subgraph initializer borrowed from the file", how);
	tap_ok(borrowed(m, const_of(sub, "inner")) &&
	       same(const_of(sub, "inner"), N_SUBC),
	       "%s: subgraph Constant borrowed from the file", how);
	tap_ok(!borrowed(m, init(m->graph, "small")) &&
	       same(init(m->graph, "small"), N_SMALL) &&
	       init(m->graph, "small")->storage == QIR_STORE_BORROWED,
	       "%s: small raw_data is the message's copy, same bytes", how);
	tap_ok(!borrowed(m, init(m->graph, "edge_lo")) &&
	       same(init(m->graph, "edge_lo"), N_LO) &&
	       borrowed(m, init(m->graph, "edge_hi")) &&
	       same(init(m->graph, "edge_hi"), N_HI),
	       "%s: %u bytes are borrowed, one less is copied", how,
	       QIR_SKEL_MIN);
}

static void file_model(void)
{
	struct pb m = big_model();
	qir_model *r = NULL, *r2 = NULL;
	qir_error err;
	char in[4096], out[4096], where[256];
	int all = 1;

	snprintf(in, sizeof(in), "%s", io_path(dir, "big.onnx"));
	tap_ok(io_load_bytes(dir, "big.onnx", &m, &r, &err) == 0,
	       "model with large inline tensors loads (%s)", err.msg);
	free(m.d);
	if (!r)
		return;
	check_loaded(r, "file");
	TAP_IS_STR(qir_tensor_location(init(r->graph, "W"), where,
				       sizeof(where)), "inline",
		   "borrowed from the file is listed as inline");
	tap_ok(QIR_MPRIV(r)->file_addr == QIR_MPRIV(r)->pb_borrow,
	       "the file stays mapped for the model");

	snprintf(out, sizeof(out), "%s", io_path(dir, "big-out.onnx"));
	memset(&err, 0, sizeof(err));
	tap_ok(qir_model_save(r, out, NULL, &err) == 0, "saves (%s)", err.msg);
	for (int i = 0; i < N_PAY; i++)
		all &= io_contains(out, pay[i], pay_len[i]);
	tap_ok(all, "every payload written back, the unmodeled attribute's too");
	tap_ok(!io_contains(out, QIR_SKEL_MAGIC, QIR_SKEL_MAGIC_LEN),
	       "no token written");
	tap_ok(io_contains(out, "W doc", 5), "tensor doc string kept");
	memset(&err, 0, sizeof(err));
	tap_ok(qir_model_load(out, NULL, &r2, &err) == 0,
	       "saved copy loads (%s)", err.msg);
	if (r2)
		check_loaded(r2, "saved copy");
	qir_model_free(r2);
	r2 = NULL;

	/* The input is replaced by rename: its mapping stays valid. */
	memset(&err, 0, sizeof(err));
	tap_ok(qir_model_save(r, in, NULL, &err) == 0,
	       "saves over its own file (%s)", err.msg);
	tap_ok(same(init(r->graph, "W"), N_W) &&
	       same(const_of(then_branch(r), "inner"), N_SUBC),
	       "borrowed bytes still readable after saving over the file");
	memset(&err, 0, sizeof(err));
	tap_ok(qir_model_load(in, NULL, &r2, &err) == 0 && r2,
	       "overwritten file loads (%s)", err.msg);
	if (r2)
		check_loaded(r2, "overwritten file");
	qir_model_free(r2);

	/* A pass's change never reaches the file. */
	{
		qir_tensor *w = init(r->graph, "W");
		float *f = qir_tensor_mutable_data(w, &err);

		tap_ok(f && w->storage == QIR_STORE_OWNED && !borrowed(r, w),
		       "mutable_data copies a borrowed tensor out of the file");
		if (f)
			f[0] = 1234.5f;
		tap_ok(io_contains(in, pay[N_W], pay_len[N_W]),
		       "the file keeps its bytes");
	}
	qir_model_free(r);
}

static void buffer_model(void)
{
	struct pb m = big_model();
	qir_model *r = NULL;
	qir_error err = { 0 };

	tap_ok(qir_model_load_buffer(m.d, m.n, NULL, &r, &err) == 0,
	       "loads from a buffer (%s)", err.msg);
	if (r) {
		check_loaded(r, "buffer");
		tap_ok(QIR_MPRIV(r)->pb_borrow == m.d &&
		       !QIR_MPRIV(r)->file_addr,
		       "buffer: borrows the caller's buffer, maps nothing");
	}
	qir_model_free(r);
	free(m.d);
}

/* A small raw_data that happens to look like a token is its own data:
 * the reader copies everything rather than guess. */
static void lookalike(void)
{
	int64_t d24[1] = { 24 }, wd[2] = { 64, 64 };
	uint8_t fake[QIR_SKEL_TOKEN_LEN] = { 0 };
	struct pb g = { 0 }, t = { 0 }, m;
	qir_model *r = NULL;
	qir_error err;
	qir_tensor *f;
	qir_error e2 = { 0 };

	memcpy(fake, QIR_SKEL_MAGIC, QIR_SKEL_MAGIC_LEN);
	if (!pay[N_W])
		pay[N_W] = payload(pay_len[N_W], N_W + 1);
	raw_tensor(&t, "W", QIR_FLOAT, wd, 2, pay[N_W], pay_len[N_W]);
	pb_msg(&g, 5, &t);
	raw_tensor(&t, "fake", QIR_UINT8, d24, 1, fake, sizeof(fake));
	pb_msg(&g, 5, &t);
	pb_str(&g, 2, "g");
	m = pb_model(&g);
	tap_ok(io_load_bytes(dir, "fake.onnx", &m, &r, &err) == 0,
	       "token lookalike: loads (%s)", err.msg);
	free(m.d);
	if (!r)
		return;
	f = init(r->graph, "fake");
	tap_ok(f && f->nbytes == sizeof(fake) &&
	       !memcmp(qir_tensor_data(f, &e2), fake, sizeof(fake)),
	       "token lookalike: its bytes are its own");
	tap_ok(same(init(r->graph, "W"), N_W) &&
	       !borrowed(r, init(r->graph, "W")) && !QIR_MPRIV(r)->file_addr,
	       "token lookalike: the model is copied, the file unmapped");
	qir_model_free(r);
}

/* Protobuf: the last of a repeated singular field wins. */
static void twice(void)
{
	int64_t d[1] = { 5000 };
	uint8_t *a = payload(5000, 77), *b = payload(5000, 78);
	struct pb g = { 0 }, t = { 0 }, m;
	qir_model *r = NULL;
	qir_error err, e2 = { 0 };
	qir_tensor *x;

	pb_tensor_head(&t, "x", QIR_UINT8, d, 1);
	pb_bytes(&t, 9, a, 5000);
	pb_bytes(&t, 9, b, 5000);
	pb_msg(&g, 5, &t);
	pb_str(&g, 2, "g");
	m = pb_model(&g);
	tap_ok(io_load_bytes(dir, "twice.onnx", &m, &r, &err) == 0,
	       "raw_data twice: loads (%s)", err.msg);
	free(m.d);
	x = r ? init(r->graph, "x") : NULL;
	tap_ok(x && x->nbytes == 5000 && borrowed(r, x) &&
	       !memcmp(qir_tensor_data(x, &e2), b, 5000),
	       "raw_data twice: the second one, borrowed");
	qir_model_free(r);
	free(a);
	free(b);
}

static void expect_fail(struct pb *m, const char *want, int exact,
			const char *what)
{
	qir_model *r = NULL;
	qir_error err;
	int rc = io_load_bytes(dir, "bad.onnx", m, &r, &err);

	tap_ok(rc && !r && (exact ? !strcmp(err.msg, want) :
			    strstr(err.msg, want) != NULL),
	       "%s: \"%s\"", what, err.msg);
	qir_model_free(r);
}

/* A graph with one Constant whose value has 5000 bytes for 4000. */
static void bad_const_graph(struct pb *g, const uint8_t *b)
{
	static const char *const no[] = { NULL };
	static const char *const out[] = { "C", NULL };
	int64_t d[1] = { 1000 };
	struct pb t = { 0 }, ex = { 0 };

	raw_tensor(&t, "", QIR_FLOAT, d, 1, b, 5000);
	tensor_attr(&ex, "value", QIR_ATTR_TENSOR, &t);
	pb_node(g, "Constant", "const1", no, out, &ex);
	pb_str(g, 2, "g");
}

static void errors(void)
{
	int64_t d[1] = { 1000 };
	uint8_t *b = payload(5000, 9);
	struct pb g = { 0 }, t = { 0 }, m;

	pb_tensor_head(&t, "w", QIR_FLOAT, d, 1);
	pb_bytes(&t, 9, b, 5000);
	pb_msg(&g, 5, &t);
	pb_str(&g, 2, "g");
	m = pb_model(&g);
	expect_fail(&m, "tensor 'w': raw_data has 5000 bytes, FLOAT[1000] needs 4000",
		    1, "large raw_data of the wrong size");
	m.n -= 100;	/* cut inside raw_data */
	expect_fail(&m, "not a valid ONNX model (protobuf parse failed: field 7 at byte ",
		    0, "truncated inside a large raw_data");
	free(m.d);

	bad_const_graph(&g, b);
	m = pb_model(&g);
	expect_fail(&m, "node 'const1' (Constant): tensor '(unnamed)': raw_data has 5000 bytes, FLOAT[1000] needs 4000",
		    1, "large Constant of the wrong size");
	free(m.d);

	/* The node's length (a two-byte varint after its tag) claims one
	 * byte more than the graph holds. */
	bad_const_graph(&g, b);
	if (g.d[0] == 0x0a && (g.d[1] & 0x80) && (g.d[1] & 0x7f) != 0x7f)
		g.d[1]++;
	m = pb_model(&g);
	expect_fail(&m, "not a valid ONNX model (protobuf parse failed",
		    0, "node length past its graph");
	free(m.d);
	free(b);
}

int main(void)
{
	dir = io_mkdir("io-zerocopy");
	file_model();
	buffer_model();
	lookalike();
	twice();
	errors();
	for (int i = 0; i < N_PAY; i++)
		free(pay[i]);
	return tap_done();
}
