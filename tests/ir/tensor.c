/* tests/ir/tensor.c - tensors, storage kinds, external data mapping. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <qopt/ir.h>
#include "model/internal.h"
#include "../lib/tap.h"

/* qir_tensor_location() writes here. */
static char where[4200];

static void test_basics(void)
{
	int64_t dims[2] = { 2, 3 }, big[2] = { INT64_MAX, 4 };
	qir_error err = { 0 };
	qir_tensor *t, *c;
	const float *f;
	float *w;
	char buf[64];
	double d;
	int64_t i;

	t = qir_tensor_new("t", QIR_FLOAT, 2, dims, &err);
	tap_ok(t && t->nbytes == 24 && qir_tensor_numel(t) == 6 &&
	       t->storage == QIR_STORE_OWNED, "new FLOAT[2,3]: 24 owned bytes");
	f = qir_tensor_data(t, &err);
	tap_ok(f && f[0] == 0 && f[5] == 0, "fresh data is zeroed");
	w = qir_tensor_mutable_data(t, &err);
	w[4] = 2.5f;
	tap_ok(qir_tensor_get_f64(t, 4, &d, &err) == 0 && d == 2.5, "get_f64");
	tap_ok(qir_tensor_get_f64(t, 6, &d, &err) == -1 && err.code == QIR_EUSAGE,
	       "get_f64 out of range fails");
	tap_ok(qir_tensor_get_i64(t, 4, &i, &err) == 0 && i == 2, "get_i64 of float");
	TAP_IS_STR(qir_tensor_type_str(t->dtype, t->rank, t->dims, buf, sizeof(buf)),
		   "FLOAT[2,3]", "type_str");
	TAP_IS_STR(qir_tensor_location(t, where, sizeof(where)), "owned", "location owned");
	c = qir_tensor_clone(t, &err);
	tap_ok(c && c->nbytes == 24 && ((float *)qir_tensor_mutable_data(c, &err))[4] == 2.5f
	       && qir_tensor_data(c, NULL) != qir_tensor_data(t, NULL),
	       "clone copies the bytes");
	qir_tensor_free(c);

	{
		void *bad = malloc(8);

		tap_ok(qir_tensor_reset(t, QIR_INT64, 1, dims, bad, 8, &err) == -1 &&
		       err.code == QIR_EUSAGE && t->dtype == QIR_FLOAT,
		       "reset with a wrong byte count fails, tensor unchanged");
		free(bad);	/* ownership passes only on success */
	}
	{
		int64_t *nd = malloc(16);

		nd[0] = 7;
		nd[1] = -9;
		tap_ok(qir_tensor_reset(t, QIR_INT64, 1, dims, nd, 16, &err) == 0 &&
		       t->rank == 1 && t->dims[0] == 2 && t->dtype == QIR_INT64 &&
		       qir_tensor_get_i64(t, 1, &i, &err) == 0 && i == -9,
		       "reset takes the new buffer");
	}
	qir_tensor_free(t);

	memset(&err, 0, sizeof(err));
	t = qir_tensor_new("huge", QIR_FLOAT, 2, big, &err);
	tap_ok(!t && err.code == QIR_EINVALID && strstr(err.msg, "huge"),
	       "overflowing shape refused, naming the tensor: %s", err.msg);
	dims[0] = -1;
	t = qir_tensor_new("neg", QIR_FLOAT, 1, dims, &err);
	tap_ok(!t && strstr(err.msg, "neg"), "negative dim refused");

	dims[0] = 3;
	t = qir_tensor_new("q", QIR_INT4, 1, dims, &err);
	tap_ok(t && t->nbytes == 2, "INT4[3] packs into 2 bytes");
	((uint8_t *)qir_tensor_mutable_data(t, &err))[0] = 0x9F;	/* -1, -7 */
	tap_ok(qir_tensor_get_i64(t, 0, &i, &err) == 0 && i == -1 &&
	       qir_tensor_get_i64(t, 1, &i, &err) == 0 && i == -7,
	       "INT4 elements unpack low nibble first, signed");
	qir_tensor_free(t);
}

static void test_borrowed(void)
{
	static const float src[2] = { 1.5f, -2 };
	int64_t dim = 2;
	qir_error err = { 0 };
	qir_tensor *t = ir_tensor_shell("b", QIR_FLOAT, 1, &dim, &err);
	float *w;

	tap_ok(t && t->storage == QIR_STORE_NONE && !qir_tensor_data(t, &err) &&
	       err.code == QIR_EINVALID, "shell has no data (error)");
	ir_tensor_set_borrowed(t, src);
	TAP_IS_STR(qir_tensor_location(t, where, sizeof(where)), "inline", "borrowed is inline");
	tap_ok(qir_tensor_data(t, &err) == src, "borrowed data is not copied");
	w = qir_tensor_mutable_data(t, &err);
	tap_ok(w && w != src && w[0] == 1.5f && t->storage == QIR_STORE_OWNED,
	       "mutable_data copies borrowed bytes into an owned buffer");
	w[0] = 9;
	tap_ok(src[0] == 1.5f, "source untouched");
	qir_tensor_free(t);
}

static void test_external(void)
{
	char path[] = "/tmp/qir-ext-XXXXXX";
	uint8_t bytes[64];
	int64_t dim = 4;
	qir_error err = { 0 };
	ir_mapping *map = calloc(1, sizeof(*map));
	qir_tensor *t, *u;
	const float *f;
	float vals[4] = { 1, 2, 3, 4 };
	int fd = mkstemp(path), i;

	for (i = 0; i < 64; i++)
		bytes[i] = 0xAA;
	memcpy(bytes + 32, vals, 16);
	tap_ok(fd >= 0 && write(fd, bytes, 64) == 64, "wrote external file");
	close(fd);
	map->path = strdup(path);
	t = ir_tensor_shell("ext", QIR_FLOAT, 1, &dim, &err);
	ir_tensor_set_external(t, map, "weights.bin", 32);
	tap_ok(map->addr == NULL, "not mapped before first use");
	TAP_IS_STR(qir_tensor_location(t, where, sizeof(where)), "external:weights.bin@32",
		   "location names file and offset");
	f = qir_tensor_data(t, &err);
	tap_ok(f && map->addr && map->size == 64 && f[0] == 1 && f[3] == 4,
	       "data mapped on first use at the offset");
	u = ir_tensor_shell("late", QIR_FLOAT, 1, &dim, &err);
	ir_tensor_set_external(u, map, "weights.bin", 56);
	memset(&err, 0, sizeof(err));
	tap_ok(!qir_tensor_data(u, &err) && err.code == QIR_EINVALID &&
	       strstr(err.msg, "late") && strstr(err.msg, "64"),
	       "read past the end of the file refused: %s", err.msg);
	qir_tensor_free(u);
	u = qir_tensor_clone(t, &err);
	tap_ok(u && u->storage == QIR_STORE_OWNED &&
	       ((const float *)qir_tensor_data(u, &err))[2] == 3,
	       "clone reads external data");
	qir_tensor_free(u);
	qir_tensor_free(t);
	ir_mapping_close(map);
	tap_ok(map->addr == NULL, "mapping closed");
	unlink(path);
	t = ir_tensor_shell("gone", QIR_FLOAT, 1, &dim, &err);
	ir_tensor_set_external(t, map, "weights.bin", 0);
	memset(&err, 0, sizeof(err));
	tap_ok(!qir_tensor_data(t, &err) && err.code == QIR_EIO &&
	       strstr(err.msg, path), "missing file: EIO naming it: %s", err.msg);
	qir_tensor_free(t);
	free(map->path);
	free(map);
}

/* A model with two spilled initializers (one saved to external data,
 * one inline) saves and loads back the same bytes; spilled bytes are
 * read, copied back by mutable_data and freed with their tensor. */
static void test_spill(void)
{
	char dir[] = "/tmp/qir-spill-XXXXXX", path[64];
	int64_t dims[1] = { 3000 }, small[1] = { 4 };
	qir_error err = { 0 };
	qir_model *m = qir_model_new(8, 17, &err), *r = NULL;
	qir_tensor *a, *b, *c;
	qir_value *va, *vb;
	const float *f;
	float *w;
	int ok = 1, i;

	tap_ok(mkdtemp(dir) != NULL && m, "spill: model and folder");
	setenv("QOPT_SPILL_DIR", dir, 1);	/* spill file in a folder we own */
	a = qir_tensor_new("big", QIR_FLOAT, 1, dims, &err);
	b = qir_tensor_new("small", QIR_FLOAT, 1, small, &err);
	w = qir_tensor_mutable_data(a, &err);
	for (i = 0; i < 3000; i++)
		w[i] = (float)i * 0.5f;
	((float *)qir_tensor_mutable_data(b, &err))[3] = 7;
	tap_ok(qir_tensor_spill(m, a, &err) == 0 &&
	       qir_tensor_spill(m, b, &err) == 0 && qir_tensor_spilled(a) &&
	       qir_tensor_spilled(b) && a->storage == QIR_STORE_OWNED,
	       "spill: two tensors spilled, still owned");
	TAP_IS_STR(qir_tensor_location(a, where, sizeof(where)), "owned (spilled)",
		   "spill: location says so");
	f = qir_tensor_data(a, &err);
	for (i = 0; i < 3000; i++)
		ok &= f && f[i] == (float)i * 0.5f;
	tap_ok(ok && ((const float *)qir_tensor_data(b, &err))[3] == 7,
	       "spill: bytes read back from the spill file");
	tap_ok(qir_tensor_spill(m, a, &err) == 0 && qir_tensor_spilled(a),
	       "spill: spilling again changes nothing");
	tap_ok(qir_tensor_advise(a, QIR_ADVISE_DONE, &err) == 0 &&
	       ((const float *)qir_tensor_data(a, &err))[2999] == 1499.5f &&
	       qir_tensor_advise(a, QIR_ADVISE_WILLNEED, &err) == 0,
	       "advise: dropped pages of a spilled tensor come back");
	memset(&err, 0, sizeof(err));
	tap_ok(qir_tensor_advise(a, 99, &err) == -1 && err.code == QIR_EUSAGE &&
	       strstr(err.msg, "big"), "advise: unknown advice refused: %s",
	       err.msg);
	va = qir_graph_add_initializer(m->graph, a);
	vb = qir_graph_add_initializer(m->graph, b);
	qir_graph_add_output(m->graph, va);
	qir_graph_add_output(m->graph, vb);
	snprintf(path, sizeof(path), "%s/m.onnx", dir);
	{
		qir_save_opts so = { .external_threshold = 1024 };

		tap_ok(qir_model_save(m, path, &so, &err) == 0 &&
		       qir_model_load(path, NULL, &r, &err) == 0,
		       "spill: model saved (external and inline) and loaded");
	}
	ok = r && r->graph->ninits == 2;
	for (i = 0; ok && i < 2; i++) {
		qir_tensor *t = r->graph->inits[i]->init;
		const float *g = qir_tensor_data(t, &err);

		ok = g && (t->nbytes == 16 ? g[3] == 7 : g[2999] == 1499.5f);
	}
	tap_ok(ok, "spill: saved bytes = spilled bytes");
	w = qir_tensor_mutable_data(a, &err);
	tap_ok(w && !qir_tensor_spilled(a) && w[10] == 5 &&
	       !strcmp(qir_tensor_location(a, where, sizeof(where)), "owned"),
	       "spill: mutable_data copies back into the heap");
	c = qir_tensor_new("x", QIR_FLOAT, 1, small, &err);
	tap_ok(qir_tensor_spill(NULL, c, &err) == -1 && err.code == QIR_EUSAGE,
	       "spill: no model refused");
	qir_tensor_free(c);
	qir_model_free(r);
	qir_model_free(m);
	snprintf(path, sizeof(path), "%s/m.onnx", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/m.onnx.data", dir);
	unlink(path);
	tap_ok(rmdir(dir) == 0, "spill: nothing left in the spill folder");
	unsetenv("QOPT_SPILL_DIR");
}

/* qir_tensor_new_spilled: bytes from a caller's buffer go straight to
 * the spill file; the buffer may be reused at once. */
static void test_new_spilled(void)
{
	char dir[] = "/tmp/qir-spill-XXXXXX", where[64];
	int64_t dims[2] = { 100, 30 }, none[1] = { 0 };
	qir_error err = { 0 };
	qir_model *m = qir_model_new(8, 17, &err);
	uint8_t buf[3000];
	const uint8_t *d;
	qir_tensor *t, *z;
	int i, ok = 1;

	tap_ok(mkdtemp(dir) != NULL && m, "new_spilled: model and folder");
	setenv("QOPT_SPILL_DIR", dir, 1);
	for (i = 0; i < 3000; i++)
		buf[i] = (uint8_t)(i * 7);
	t = qir_tensor_new_spilled(m, "codes", QIR_FLOAT8E4M3FN, 2, dims, buf,
				   &err);
	memset(buf, 0, sizeof(buf));	/* the caller's buffer is free again */
	d = t ? qir_tensor_data(t, &err) : NULL;
	for (i = 0; d && i < 3000; i++)
		ok &= d[i] == (uint8_t)(i * 7);
	tap_ok(t && d && ok && qir_tensor_spilled(t) &&
	       t->storage == QIR_STORE_OWNED && t->nbytes == 3000,
	       "new_spilled: bytes in the spill file, tensor owned");
	TAP_IS_STR(t ? qir_tensor_location(t, where, sizeof(where)) : "",
		   "owned (spilled)", "new_spilled: location says so");
	z = qir_tensor_new_spilled(m, "empty", QIR_FLOAT, 1, none, NULL, &err);
	tap_ok(z && z->nbytes == 0 && !qir_tensor_spilled(z),
	       "new_spilled: an empty tensor is an ordinary one");
	qir_tensor_free(z);
	memset(&err, 0, sizeof(err));
	tap_ok(!qir_tensor_new_spilled(m, "s", QIR_STRING, 1, dims, buf, &err) &&
	       err.code == QIR_EUSAGE && strstr(err.msg, "STRING"),
	       "new_spilled: STRING refused: %s", err.msg);
	memset(&err, 0, sizeof(err));
	tap_ok(!qir_tensor_new_spilled(NULL, "x", QIR_UINT8, 2, dims, buf,
				       &err) && err.code == QIR_EUSAGE,
	       "new_spilled: no model refused: %s", err.msg);
	qir_tensor_free(t);
	qir_model_free(m);
	/* a model whose spill folder does not exist: NULL, the folder
	 * named, nothing created */
	m = qir_model_new(8, 17, &err);
	setenv("QOPT_SPILL_DIR", "/nonexistent/qopt-spill", 1);
	memset(&err, 0, sizeof(err));
	tap_ok(m && !qir_tensor_new_spilled(m, "x", QIR_UINT8, 2, dims, buf,
					    &err) && err.code == QIR_EIO &&
	       strstr(err.msg, "/nonexistent/qopt-spill"),
	       "new_spilled: no spill folder: %s", err.msg);
	qir_model_free(m);
	unsetenv("QOPT_SPILL_DIR");
	tap_ok(rmdir(dir) == 0, "new_spilled: nothing left in the folder");
}

/* A spilled tensor saved as external data: copied inside the kernel
 * from the spill file when both are on one file system, through memory
 * when not (a tmpfs spill folder, a disk output): same bytes. */
static void spill_save_in(const char *spill_parent)
{
	char sdir[64], odir[] = "/tmp/qir-out-XXXXXX", path[96];
	int64_t dims[1] = { 100000 };
	qir_error err = { 0 };
	qir_model *m = qir_model_new(8, 17, &err), *r = NULL;
	qir_save_opts so = { .external_threshold = 1024 };
	uint8_t *buf = malloc(100000);
	const uint8_t *g = NULL;
	qir_tensor *t;
	int ok = 1;

	snprintf(sdir, sizeof(sdir), "%s/qir-spill-XXXXXX", spill_parent);
	if (!mkdtemp(sdir) || !mkdtemp(odir) || !m || !buf) {
		tap_skip("no folder there", "spilled bytes (spill folder under %s)", spill_parent);
		qir_model_free(m);
		free(buf);
		return;
	}
	setenv("QOPT_SPILL_DIR", sdir, 1);
	for (int i = 0; i < 100000; i++)
		buf[i] = (uint8_t)(i * 13 + 1);
	t = qir_tensor_new_spilled(m, "w", QIR_UINT8, 1, dims, buf, &err);
	if (t)
		qir_graph_add_output(m->graph, qir_graph_add_initializer(m->graph, t));
	snprintf(path, sizeof(path), "%s/m.onnx", odir);
	if (t && qir_model_save(m, path, &so, &err) == 0 &&
	    qir_model_load(path, NULL, &r, &err) == 0 && r->graph->ninits == 1)
		g = qir_tensor_data(r->graph->inits[0]->init, &err);
	ok = g && !memcmp(g, buf, 100000);
	tap_ok(ok, "spilled bytes (spill folder under %s) saved as external "
	       "data unchanged", spill_parent);
	qir_model_free(r);
	qir_model_free(m);
	free(buf);
	unlink(path);
	snprintf(path, sizeof(path), "%s/m.onnx.data", odir);
	unlink(path);
	rmdir(odir);
	rmdir(sdir);
	unsetenv("QOPT_SPILL_DIR");
}

/* ---- deferred tensors ---- */

struct rec_state {
	int fills, freed;	/* counted by the test (outlives the recipe) */
	int fail;		/* fill fails when set */
};

/* Output 0: input byte i + 1 (n bytes); output 1: their sum (UINT32). */
static int rec_fill(void *state, qir_tensor *const *in, size_t nin,
		    void *const *dst, qir_error *err)
{
	struct rec_state *st = state;
	const uint8_t *x = qir_tensor_data(in[0], err);
	uint32_t sum = 0;

	st->fills++;
	if (st->fail)
		return qir_fail(err, QIR_EINVALID, "planted failure");
	if (nin != 1 || !x)
		return -1;
	for (uint64_t i = 0; i < in[0]->nbytes; i++) {
		((uint8_t *)dst[0])[i] = (uint8_t)(x[i] + 1);
		sum += x[i];
	}
	memcpy(dst[1], &sum, 4);
	return 0;
}

static void rec_free(void *state)
{
	((struct rec_state *)state)->freed++;
}

static const qir_recipe_ops rec_ops = { rec_fill, rec_free };

/* A recipe over a copy of src (n bytes) in m: out[0], out[1]. */
static int rec_make(qir_model *m, struct rec_state *st, const uint8_t *src,
		    int64_t n, qir_tensor **out)
{
	qir_error err = { 0 };
	qir_tensor *in = qir_tensor_new("x", QIR_UINT8, 1, &n, &err);
	const qir_tensor_spec specs[2] = {
		{ "plus1", QIR_UINT8, 1, &n }, { "sum", QIR_UINT32, 0, NULL },
	};

	if (!in)
		return -1;
	memcpy(qir_tensor_mutable_data(in, &err), src, (size_t)n);
	return qir_tensor_new_deferred(m, &rec_ops, st, &in, 1, specs, 2, out,
				       &err);
}

static void test_deferred(void)
{
	struct rec_state st = { 0 };
	qir_error err = { 0 };
	qir_model *m = qir_model_new(8, 17, &err);
	uint8_t src[5000];
	qir_tensor *o[2], *sh;
	const uint8_t *d;
	uint32_t sum = 0, got = 0;
	int ok = 1;

	for (int i = 0; i < 5000; i++) {
		src[i] = (uint8_t)(i * 3);
		sum += src[i];
	}
	tap_ok(rec_make(m, &st, src, 5000, o) == 0 && qir_tensor_deferred(o[0]) &&
	       qir_tensor_deferred(o[1]) && st.fills == 0 &&
	       o[0]->nbytes == 5000 && o[1]->nbytes == 4,
	       "deferred: made, nothing computed");
	TAP_IS_STR(qir_tensor_location(o[0], where, sizeof(where)),
		   "owned (deferred)", "deferred: location says so");
	sh = qir_tensor_share(m, o[0], &err);
	d = qir_tensor_data(o[0], &err);
	for (int i = 0; d && i < 5000; i++)
		ok &= d[i] == (uint8_t)(src[i] + 1);
	tap_ok(d && ok && st.fills == 1 && !qir_tensor_deferred(o[0]),
	       "deferred: a reader evaluates it once");
	tap_ok(qir_tensor_data(o[1], &err) && st.fills == 1 &&
	       !qir_tensor_deferred(o[1]) && !qir_tensor_deferred(sh) &&
	       (memcpy(&got, qir_tensor_data(o[1], &err), 4), got == sum) &&
	       !memcmp(qir_tensor_data(sh, &err), d, 5000),
	       "deferred: siblings and shares get their bytes from the same evaluation");
	tap_ok(st.freed == 1, "deferred: the recipe goes once no tensor needs it");
	qir_tensor_free(o[0]);
	qir_tensor_free(o[1]);
	qir_tensor_free(sh);
	/* freed unevaluated: state freed, nothing computed */
	st.fills = st.freed = 0;
	tap_ok(rec_make(m, &st, src, 100, o) == 0, "deferred: second recipe");
	qir_tensor_free(o[0]);
	tap_ok(st.freed == 0, "deferred: kept while a tensor needs it");
	qir_tensor_free(o[1]);
	tap_ok(st.freed == 1 && st.fills == 0,
	       "deferred: freed unevaluated, never computed");
	/* a failing recipe: the reader gets its error */
	st.fills = st.freed = 0;
	st.fail = 1;
	memset(&err, 0, sizeof(err));
	tap_ok(rec_make(m, &st, src, 100, o) == 0 &&
	       !qir_tensor_data(o[0], &err) && strstr(err.msg, "planted"),
	       "deferred: a failing fill is the reader's error: %s", err.msg);
	qir_tensor_free(o[0]);
	qir_tensor_free(o[1]);
	qir_model_free(m);
}

/* Saved: the big output goes to the data file straight from the recipe
 * (still deferred afterwards), the small one inline; both read back
 * equal to the reader's evaluation, and a second save writes the same. */
static void test_deferred_save(void)
{
	/* Over 1 MiB: the writer computes it straight into a mapping of
	 * the data file (ir/onnx/data_fill.c); smaller outputs, as in the
	 * nested test below, go through scratch and pwrite. */
	enum { DEF_SAVE_N = 1500000 };
	char odir[] = "/tmp/qir-def-XXXXXX", path[96], path2[96];
	struct rec_state st = { 0 };
	qir_error err = { 0 };
	qir_model *m = qir_model_new(8, 17, &err), *r = NULL;
	qir_save_opts so = { .external_threshold = 1024 };
	static uint8_t src[DEF_SAVE_N];
	qir_tensor *o[2];
	const uint8_t *a = NULL;
	const uint32_t *b = NULL;
	uint32_t sum = 0;
	int ok = 1;

	for (int i = 0; i < DEF_SAVE_N; i++) {
		src[i] = (uint8_t)(i * 5 + 2);
		sum += src[i];
	}
	if (!mkdtemp(odir) || !m || rec_make(m, &st, src, DEF_SAVE_N, o)) {
		tap_skip("no folder", "deferred save");
		qir_model_free(m);
		return;
	}
	for (int i = 0; i < 2; i++)
		qir_graph_add_output(m->graph,
				     qir_graph_add_initializer(m->graph, o[i]));
	snprintf(path, sizeof(path), "%s/m.onnx", odir);
	snprintf(path2, sizeof(path2), "%s/n.onnx", odir);
	tap_ok(qir_model_save(m, path, &so, &err) == 0 && st.fills == 1 &&
	       qir_tensor_deferred(o[0]) && !qir_tensor_deferred(o[1]),
	       "deferred save: evaluated once into the data file, the big output still deferred %s", err.msg);
	tap_ok(qir_model_save(m, path2, &so, &err) == 0 && st.fills == 2,
	       "deferred save: a second save evaluates again");
	if (qir_model_load(path, NULL, &r, &err) == 0 && r->graph->ninits == 2) {
		a = qir_tensor_data(r->graph->inits[0]->init, &err);
		b = qir_tensor_data(r->graph->inits[1]->init, &err);
	}
	for (int i = 0; a && i < DEF_SAVE_N; i++)
		ok &= a[i] == (uint8_t)(src[i] + 1);
	tap_ok(a && b && ok && *b == sum, "deferred save: the bytes read back");
	qir_model_free(r);
	qir_model_free(m);
	tap_ok(st.freed == 1, "deferred save: recipe freed with the model");
	unlink(path);
	unlink(path2);
	snprintf(path, sizeof(path), "%s/m.onnx.data", odir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/n.onnx.data", odir);
	unlink(path);
	rmdir(odir);
}

/* A recipe reading a share of another deferred tensor, both saved:
 * the inner one is evaluated before the writer's workers start, and
 * both read back right. */
static void test_deferred_nested(void)
{
	char odir[] = "/tmp/qir-nest-XXXXXX", path[96];
	struct rec_state s0 = { 0 }, s1 = { 0 };
	qir_error err = { 0 };
	qir_model *m = qir_model_new(8, 17, &err), *r = NULL;
	qir_save_opts so = { .external_threshold = 1024 };
	static uint8_t src[100000];
	const qir_tensor_spec specs[2] = {
		{ "b", QIR_UINT8, 1, (const int64_t[]){ 100000 } },
		{ "bsum", QIR_UINT32, 0, NULL },
	};
	qir_tensor *a[2], *b[2], *in;
	const uint8_t *x = NULL, *y = NULL;
	int ok = 1;

	for (int i = 0; i < 100000; i++)
		src[i] = (uint8_t)(i * 11);
	if (!mkdtemp(odir) || !m || rec_make(m, &s0, src, 100000, a)) {
		tap_skip("no folder", "nested deferred save");
		qir_model_free(m);
		return;
	}
	in = qir_tensor_share(m, a[0], &err);
	tap_ok(in && qir_tensor_deferred(in) &&
	       qir_tensor_new_deferred(m, &rec_ops, &s1, &in, 1, specs, 2, b,
				       &err) == 0,
	       "nested deferred: a recipe over a share of a deferred tensor");
	for (int i = 0; i < 2; i++) {
		qir_graph_add_output(m->graph,
				     qir_graph_add_initializer(m->graph, a[i]));
		qir_graph_add_output(m->graph,
				     qir_graph_add_initializer(m->graph, b[i]));
	}
	snprintf(path, sizeof(path), "%s/m.onnx", odir);
	if (qir_model_save(m, path, &so, &err) == 0 &&
	    qir_model_load(path, NULL, &r, &err) == 0 && r->graph->ninits == 4) {
		x = qir_tensor_data(r->graph->inits[0]->init, &err);
		y = qir_tensor_data(r->graph->inits[1]->init, &err);
	}
	for (int i = 0; x && y && i < 100000; i++)
		ok &= x[i] == (uint8_t)(src[i] + 1) && y[i] == (uint8_t)(src[i] + 2);
	tap_ok(x && y && ok && s0.fills == 1 && s1.fills == 1,
	       "nested deferred: saved, each recipe evaluated once, bytes right %s",
	       err.msg);
	qir_model_free(r);
	qir_model_free(m);
	tap_ok(s0.freed == 1 && s1.freed == 1, "nested deferred: both recipes freed");
	unlink(path);
	snprintf(path, sizeof(path), "%s/m.onnx.data", odir);
	unlink(path);
	rmdir(odir);
}

int main(void)
{
	test_basics();
	test_borrowed();
	test_external();
	test_spill();
	test_new_spilled();
	spill_save_in("/tmp");
	spill_save_in("/dev/shm");
	test_deferred();
	test_deferred_save();
	test_deferred_nested();
	return tap_done();
}
