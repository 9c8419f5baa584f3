/*
 * tests/ir/io-layout.c - the laid-out .onnx (ir/onnx/onnx_layout.c)
 * gives the bytes the streaming writer gives (the test hook
 * ir_onnx_streamed picks that one), for every layout: inline from
 * memory, from a loaded inline file, from external data (--all-inline),
 * with a threshold, and deferred tensors evaluated into place; the
 * default keeps a model read with external data external (tiny
 * external tensors too) and an inline one inline; a save refused by
 * the file size limit leaves nothing behind.
 */
#include <signal.h>
#include <sys/resource.h>
#include "../lib/tap.h"
#include "../lib/io-util.h"
#include "onnx/onnx_io.h"

static const char *top;

/* A recipe: out0[i] = in[i] * 2 (FLOAT), out1 = the count of its
 * evaluations (UINT32, tiny, so it stays inline beside out0). */
static int evals;

static int rec_fill(void *state, qir_tensor *const *in, size_t nin,
		    void *const *dst, qir_error *err)
{
	const float *x = qir_tensor_data(in[0], err);
	float *y = dst[0];
	uint32_t one = 1;

	(void)state;
	(void)nin;
	if (!x)
		return -1;
	for (uint64_t i = 0; i < in[0]->nbytes / 4; i++)
		y[i] = x[i] * 2;
	memcpy(dst[1], &one, 4);
	__atomic_add_fetch(&evals, 1, __ATOMIC_SEQ_CST);
	return 0;
}

static const qir_recipe_ops rec_ops = { rec_fill, NULL };

static qir_tensor *filled(const char *name, int64_t n, float base,
			  qir_error *err)
{
	qir_tensor *t = qir_tensor_new(name, QIR_FLOAT, 1, &n, err);
	float *d = t ? qir_tensor_mutable_data(t, err) : NULL;

	for (int64_t k = 0; d && k < n; k++)
		d[k] = base + (float)k;
	return d ? t : NULL;
}

/* Big and small initializers, a big tensor attribute, and a recipe's
 * two outputs (one big, one of 4 bytes). */
static qir_model *make_model(int deferred, qir_error *err)
{
	static const int64_t sizes[4] = { 50000, 20000, 10, 300 };
	qir_model *m = qir_model_new(9, 19, err);
	qir_node *c;
	qir_value *v;

	for (int i = 0; i < 4; i++) {
		char name[8];

		snprintf(name, sizeof(name), "w%d", i);
		if (!qir_graph_add_initializer(m->graph,
				filled(name, sizes[i], (float)i * 1e5f, err)))
			return NULL;
	}
	c = qir_node_new(m->graph, "Constant", NULL, "c");
	if (!c || qir_node_set_attr_tensor(c, "value",
				filled("cv", 30000, 7, err)))
		return NULL;
	v = qir_node_add_output(c, NULL, "cst");
	if (!v || qir_graph_add_output(m->graph, v) < 0)
		return NULL;
	if (deferred) {
		static const int64_t n = 40000;
		const qir_tensor_spec specs[2] = {
			{ "d0", QIR_FLOAT, 1, &n }, { "d1", QIR_UINT32, 0, NULL },
		};
		qir_tensor *in = filled("x", n, 3, err), *out[2];

		if (!in || qir_tensor_new_deferred(m, &rec_ops, NULL, &in, 1,
						   specs, 2, out, err) ||
		    !qir_graph_add_initializer(m->graph, out[0]) ||
		    !qir_graph_add_initializer(m->graph, out[1]))
			return NULL;
	}
	return m;
}

static int same_file(const char *a, const char *b)
{
	size_t na = 0, nb = 0;
	uint8_t *x = io_read(a, &na), *y = io_read(b, &nb);
	int same = x && y && na == nb && !memcmp(x, y, na);

	if (!same)
		tap_diag("%s (%zu bytes) and %s (%zu bytes) differ", a, na, b,
			 nb);
	free(x);
	free(y);
	return same;
}

/* Saves m as tag.onnx into folder "old" (streaming writer) and "new"
 * (laid out); both .onnx and any data file must be the same bytes.
 * Returns 1 when a data file was written. */
static int save_both(qir_model *m, const char *tag, const qir_save_opts *o)
{
	char name[64], data[80];
	qir_error err = { 0 };
	int rc_old, rc_new, ext;

	snprintf(name, sizeof(name), "%s.onnx", tag);
	snprintf(data, sizeof(data), "%s.onnx.data", tag);
	/* The laid-out one first: the streaming writer evaluates deferred
	 * tensors into memory, the layout into the file. */
	ir_onnx_streamed = 0;
	rc_new = qir_model_save(m, io_path(io_path(top, "new"), name), o, &err);
	ir_onnx_streamed = 1;
	rc_old = qir_model_save(m, io_path(io_path(top, "old"), name), o, &err);
	ir_onnx_streamed = 0;
	tap_ok(rc_old == 0 && rc_new == 0, "%s: both writers save (%s)", tag,
	       err.msg);
	tap_ok(same_file(io_path(io_path(top, "old"), name),
			 io_path(io_path(top, "new"), name)),
	       "%s: the laid-out .onnx is the streamed one's bytes", tag);
	ext = io_exists(io_path(io_path(top, "new"), data));
	tap_ok(ext == io_exists(io_path(io_path(top, "old"), data)) &&
	       (!ext || same_file(io_path(io_path(top, "old"), data),
				  io_path(io_path(top, "new"), data))),
	       "%s: the data files agree", tag);
	return ext;
}

static qir_model *load(const char *tag)
{
	char name[64];
	qir_error err = { 0 };
	qir_model *m = NULL;

	snprintf(name, sizeof(name), "%s.onnx", tag);
	if (qir_model_load(io_path(io_path(top, "new"), name), NULL, &m, &err))
		tap_diag("load %s: %s", name, err.msg);
	return m;
}

/* Every initializer of a equals b's, by name order. */
static int same_data(qir_model *a, qir_model *b)
{
	qir_error err = { 0 };

	if (!a || !b || a->graph->ninits != b->graph->ninits)
		return 0;
	for (size_t i = 0; i < a->graph->ninits; i++) {
		qir_tensor *x = a->graph->inits[i]->init,
			   *y = b->graph->inits[i]->init;
		const void *p = qir_tensor_data(x, &err),
			   *q = qir_tensor_data(y, &err);

		if (x->nbytes != y->nbytes || (x->nbytes && (!p || !q ||
		    memcmp(p, q, x->nbytes))))
			return 0;
	}
	return 1;
}

static void layouts(void)
{
	qir_save_opts thr = QIR_SAVE_OPTS_INIT, inl = QIR_SAVE_OPTS_INIT;
	qir_save_opts tiny = QIR_SAVE_OPTS_INIT;
	qir_error err = { 0 };
	qir_model *m = make_model(0, &err), *x, *e, *ref;

	thr.external_threshold = 1024;
	inl.all_inline = 1;
	tiny.external_threshold = 1;
	tap_ok(m != NULL, "model built (%s)", err.msg);
	if (!m)
		return;
	tap_ok(!save_both(m, "mem", NULL),
	       "a model built in memory is written inline by default");
	tap_ok(save_both(m, "thr", &thr), "--external-threshold 1024: external");
	save_both(m, "tiny", &tiny);

	x = load("mem");
	tap_ok(x && !save_both(x, "inl-inl", NULL),
	       "an inline input stays inline by default");
	ref = load("inl-inl");
	tap_ok(same_data(m, ref), "inline round trip: same data");
	qir_model_free(ref);

	e = load("thr");
	tap_ok(e && save_both(e, "ext-def", NULL),
	       "an input with external data is written with external data by default");
	tap_ok(e && !save_both(e, "ext-inl", &inl),
	       "--all-inline from external data: inline");
	ref = load("ext-def");
	tap_ok(same_data(m, ref), "external round trip: same data");
	qir_model_free(ref);

	/* w2 (40 bytes) was external in tiny.onnx: it stays external. */
	ref = load("tiny");
	tap_ok(ref && save_both(ref, "tiny-def", NULL),
	       "tiny external tensors: data file kept");
	qir_model_free(ref);
	ref = load("tiny-def");
	tap_ok(ref && ref->graph->inits[2]->init->storage ==
	       QIR_STORE_EXTERNAL,
	       "a 40-byte tensor that was external stays external");
	qir_model_free(ref);

	qir_model_free(e);
	qir_model_free(x);
	qir_model_free(m);
}

static void deferred(void)
{
	qir_error err = { 0 };
	qir_model *m = make_model(1, &err), *r;
	qir_save_opts thr = QIR_SAVE_OPTS_INIT;

	thr.external_threshold = 1024;
	tap_ok(m != NULL, "model with a recipe built (%s)", err.msg);
	if (!m)
		return;
	evals = 0;
	ir_onnx_streamed = 0;
	tap_ok(qir_model_save(m, io_path(io_path(top, "new"), "d-first.onnx"),
			      NULL, &err) == 0, "deferred inline: saved (%s)",
	       err.msg);
	tap_ok(evals == 1 && qir_tensor_deferred(m->graph->inits[4]->init),
	       "the recipe ran once, into the file: its outputs stay deferred (%d)",
	       evals);
	save_both(m, "d-inline", NULL);
	r = load("d-inline");
	tap_ok(r && same_data(m, r), "deferred inline: the recipe's bytes");
	qir_model_free(r);
	qir_model_free(m);
	m = make_model(1, &err);
	save_both(m, "d-ext", &thr);
	qir_model_free(m);
}

/* A file size limit below the output's size: EFBIG from the layout
 * (its size is set first) or the fill; nothing is left behind. */
static void too_big(void)
{
	qir_save_opts thr = QIR_SAVE_OPTS_INIT;
	qir_error err = { 0 };
	qir_model *m = make_model(1, &err);
	struct rlimit old, lim;
	const char *d = io_path(top, "full");
	int rc1, rc2;

	thr.external_threshold = 1024;
	mkdir(d, 0777);
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = 100000;
	setrlimit(RLIMIT_FSIZE, &lim);
	rc1 = qir_model_save(m, io_path(d, "o.onnx"), NULL, &err);
	tap_ok(rc1 < 0 && strstr(err.msg, "o.onnx"),
	       "inline output over the size limit fails naming it (%s)",
	       err.msg);
	rc2 = qir_model_save(m, io_path(d, "e.onnx"), &thr, &err);
	tap_ok(rc2 < 0, "data file over the size limit fails (%s)", err.msg);
	setrlimit(RLIMIT_FSIZE, &old);
	tap_ok(io_count(d) == 0, "nothing left behind");
	qir_model_free(m);
}

int main(void)
{
	top = io_mkdir("io-layout");
	mkdir(io_path(top, "old"), 0777);
	mkdir(io_path(top, "new"), 0777);
	layouts();
	deferred();
	too_big();
	return tap_done();
}
