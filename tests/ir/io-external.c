/*
 * tests/ir/io-external.c - external data on save: threshold, one data
 * file, 4096-aligned offsets, copying from an input's external file,
 * saving over the input, and nothing left behind on failure; link_external
 * (a throwaway copy that refers to the input's data file through a hard
 * link instead of copying it, issue 40) and the load that takes it.
 */
#include <fcntl.h>
#include <inttypes.h>
#include "../lib/tap.h"
#include "../lib/io-util.h"

static const char *dir;

/* Initializers of 4400, 100 and 5000 bytes, each filled with a
 * distinct pattern; the model adds them up. */
static qir_model *make_model(qir_error *err)
{
	static const int64_t sizes[3] = { 1100, 25, 1250 };
	qir_model *m = qir_model_new(9, 19, err);
	qir_value *prev = NULL;

	for (int i = 0; i < 3; i++) {
		char name[8];
		qir_tensor *t;
		float *d;
		qir_value *v;

		snprintf(name, sizeof(name), "w%d", i);
		t = qir_tensor_new(name, QIR_FLOAT, 1, &sizes[i], err);
		d = qir_tensor_mutable_data(t, err);
		for (int64_t k = 0; k < sizes[i]; k++)
			d[k] = (float)(i * 10000 + k);
		v = qir_graph_add_initializer(m->graph, t);
		if (prev) {
			qir_node *n = qir_node_new(m->graph, "Concat", NULL, NULL);

			qir_node_add_input(n, prev);
			qir_node_add_input(n, v);
			qir_node_set_attr_int(n, "axis", 0);
			v = qir_node_add_output(n, NULL, "cat");
		}
		prev = v;
	}
	qir_graph_add_output(m->graph, prev);
	return m;
}

static int same_data(qir_model *a, qir_model *b)
{
	qir_error err;

	if (a->graph->ninits != b->graph->ninits)
		return 0;
	for (size_t i = 0; i < a->graph->ninits; i++) {
		qir_tensor *x = a->graph->inits[i]->init,
			   *y = b->graph->inits[i]->init;
		const void *p = qir_tensor_data(x, &err),
			   *q = qir_tensor_data(y, &err);

		if (x->nbytes != y->nbytes || !p || !q ||
		    memcmp(p, q, x->nbytes))
			return 0;
	}
	return 1;
}

static const char *ext_location(qir_tensor *t)
{
	static char buf[4200];

	return qir_tensor_location(t, buf, sizeof(buf));
}

static void threshold_save(qir_model *m)
{
	qir_save_opts o = { .external_threshold = 1024 };
	qir_model *r = NULL;
	qir_error err = { 0 };
	const char *loc0, *loc2;
	uint64_t off0 = 1, off2 = 1;

	tap_ok(qir_model_save(m, io_path(dir, "ext.onnx"), &o, &err) == 0,
	       "save with external_threshold 1024 (%s)", err.msg);
	tap_ok(io_exists(io_path(dir, "ext.onnx.data")),
	       "one data file named <output>.data");
	for (int th = 1; th <= 7; th += 6) {
		char name[32], data[40];
		size_t n0 = 0, n1 = 1;
		uint8_t *d0, *d1;

		snprintf(name, sizeof(name), "threads%d.onnx", th);
		snprintf(data, sizeof(data), "%s.data", name);
		o.threads = th;
		tap_ok(qir_model_save(m, io_path(dir, name), &o, &err) == 0,
		       "save with threads = %d (%s)", th, err.msg);
		d0 = io_read(io_path(dir, "ext.onnx.data"), &n0);
		d1 = io_read(io_path(dir, data), &n1);
		tap_ok(d0 && d1 && n0 == n1 && !memcmp(d0, d1, n0),
		       "threads = %d: the data file is byte-identical", th);
		free(d0);
		free(d1);
	}
	o.threads = 0;
	qir_model_load(io_path(dir, "ext.onnx"), NULL, &r, &err);
	tap_ok(r && same_data(m, r), "reloaded bytes equal (%s)", err.msg);
	if (!r)
		return;
	loc0 = ext_location(r->graph->inits[0]->init);
	tap_ok(r->graph->inits[0]->init->storage == QIR_STORE_EXTERNAL &&
	       r->graph->inits[1]->init->storage == QIR_STORE_BORROWED &&
	       r->graph->inits[2]->init->storage == QIR_STORE_EXTERNAL,
	       "tensors >= threshold external, smaller inline");
	loc0 = strchr(loc0, '@');
	if (loc0)
		off0 = strtoull(loc0 + 1, NULL, 10);
	loc2 = strchr(ext_location(r->graph->inits[2]->init), '@');
	if (loc2)
		off2 = strtoull(loc2 + 1, NULL, 10);
	tap_ok(off0 == 0 && off2 == 8192, "offsets 4096-aligned (%" PRIu64
	       ", %" PRIu64 ")", off0, off2);
	qir_model_free(r);

	o.external_name = "weights.bin";
	memset(&err, 0, sizeof(err));
	tap_ok(qir_model_save(m, io_path(dir, "named.onnx"), &o, &err) == 0 &&
	       io_exists(io_path(dir, "weights.bin")) &&
	       io_contains(io_path(dir, "named.onnx"), "weights.bin", 11),
	       "external_name chooses the data file (%s)", err.msg);
	o.external_name = "../up.bin";
	memset(&err, 0, sizeof(err));
	tap_ok(qir_model_save(m, io_path(dir, "bad.onnx"), &o, &err) == -1 &&
	       err.code == QIR_EUSAGE && !io_exists(io_path(dir, "bad.onnx")),
	       "external_name with '..' refused: \"%s\"", err.msg);
}

/* Loading external data, saving elsewhere and over itself. */
static void resave(qir_model *orig)
{
	qir_save_opts o = { .external_threshold = 1024 };
	qir_model *r = NULL, *r2 = NULL;
	qir_error err = { 0 };
	size_t n1, n2;
	uint8_t *before, *after;
	char sub[4096], in[4096];

	snprintf(sub, sizeof(sub), "%s", io_path(dir, "copy"));
	snprintf(in, sizeof(in), "%s", io_path(dir, "ext.onnx"));

	mkdir(sub, 0777);
	qir_model_load(in, NULL, &r, &err);
	before = io_read(io_path(dir, "ext.onnx.data"), &n1);
	tap_ok(r && qir_model_save(r, io_path(sub, "c.onnx"), &o, &err) == 0,
	       "external input saved elsewhere (%s)", err.msg);
	after = io_read(io_path(dir, "ext.onnx.data"), &n2);
	tap_ok(before && after && n1 == n2 && !memcmp(before, after, n1) &&
	       io_exists(io_path(sub, "c.onnx.data")),
	       "data copied into the new data file, input untouched");
	free(after);
	qir_model_load(io_path(sub, "c.onnx"), NULL, &r2, &err);
	tap_ok(r2 && same_data(orig, r2), "copy has the same bytes");
	qir_model_free(r2);
	r2 = NULL;

	/* Over the input: its data file is replaced while r still reads
	 * from the old one. All inline first, then external again. */
	/* (all_inline: by default a model read with external data keeps
	 * it.) */
	o.external_threshold = 0;
	o.all_inline = 1;
	memset(&err, 0, sizeof(err));
	tap_ok(r && qir_model_save(r, in, &o, &err) == 0,
	       "save over the input path, inline (%s)", err.msg);
	o.all_inline = 0;
	qir_model_load(in, NULL, &r2, &err);
	tap_ok(r2 && same_data(orig, r2) &&
	       r2->graph->inits[0]->init->storage == QIR_STORE_BORROWED,
	       "inline copy over the input is complete");
	qir_model_free(r2);
	r2 = NULL;
	o.external_threshold = 100;
	unlink(io_path(dir, "ext.onnx.data"));
	qir_model_free(r);
	r = NULL;
	qir_model_save(orig, in, &o, &err);
	qir_model_load(in, NULL, &r, &err);
	memset(&err, 0, sizeof(err));
	tap_ok(r && qir_model_save(r, in, &o, &err) == 0,
	       "save over the input path and its data file (%s)", err.msg);
	qir_model_load(in, NULL, &r2, &err);
	tap_ok(r2 && same_data(orig, r2) && same_data(r, r2),
	       "new files hold the right bytes; the old mapping stays valid");
	qir_model_free(r2);
	qir_model_free(r);
	free(before);
}

/* The external file vanishes before the (lazy) read: clean failure. */
static void vanished(qir_model *orig)
{
	qir_save_opts o = { .external_threshold = 1024 };
	qir_model *r = NULL;
	qir_error err = { 0 };
	int before;
	char sub[4096];

	snprintf(sub, sizeof(sub), "%s", io_path(dir, "gone"));

	mkdir(sub, 0777);
	qir_model_save(orig, io_path(sub, "g.onnx"), &o, &err);
	qir_model_load(io_path(sub, "g.onnx"), NULL, &r, &err);
	unlink(io_path(sub, "g.onnx.data"));
	before = io_count(sub);
	memset(&err, 0, sizeof(err));
	tap_ok(r && qir_model_save(r, io_path(sub, "out.onnx"), &o, &err) == -1
	       && err.code == QIR_EIO, "save fails: \"%s\"", err.msg);
	tap_ok(io_count(sub) == before && !io_exists(io_path(sub, "out.onnx"))
	       && !io_exists(io_path(sub, "out.onnx.data")),
	       "no output, data or temporary file left");
	qir_model_free(r);
}

static ino_t inode(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_ino : 0;
}

/* link_external: unchanged external tensors refer to a hard link of
 * the input's data file, changed ones go to the output's data file;
 * a save that fails removes its links. */
static void linked(qir_model *orig)
{
	qir_save_opts o = { .external_threshold = 1024 };
	qir_save_opts lk = QIR_SAVE_OPTS_INIT;
	qir_load_opts lo = QIR_LOAD_OPTS_INIT;
	qir_model *r = NULL, *r2 = NULL;
	qir_error err = { 0 };
	char sub[4096], src[4200];
	float *d;

	snprintf(sub, sizeof(sub), "%s", io_path(dir, "link"));
	mkdir(sub, 0777);
	snprintf(src, sizeof(src), "%s", io_path(sub, "src.onnx.data"));
	qir_model_save(orig, io_path(sub, "src.onnx"), &o, &err);
	qir_model_load(io_path(sub, "src.onnx"), NULL, &r, &err);
	lk.link_external = 1;
	tap_ok(r && qir_model_save(r, io_path(sub, "out.onnx"), &lk, &err) == 0,
	       "link_external: saved (%s)", err.msg);
	tap_ok(inode(io_path(sub, "out.onnx.data.in")) == inode(src) &&
	       inode(src) && !io_exists(io_path(sub, "out.onnx.data")),
	       "the input's data file linked (same inode), no bytes copied");
	tap_ok(qir_model_load(io_path(sub, "out.onnx"), NULL, &r2, &err) == -1 &&
	       err.code == QIR_EUNSAFE,
	       "a plain load refuses the link: \"%s\"", err.msg);
	lo.links_ok = 1;
	tap_ok(qir_model_load(io_path(sub, "out.onnx"), &lo, &r2, &err) == 0 &&
	       same_data(orig, r2), "with links_ok it loads, the same bytes");
	qir_model_free(r2);
	r2 = NULL;
	unlink(io_path(sub, "out.onnx.data.in"));
	/* w0 changed: its bytes written, w2 still linked */
	d = r ? qir_tensor_mutable_data(r->graph->inits[0]->init, &err) : NULL;
	if (d)
		d[0] = -1;
	tap_ok(d && qir_model_save(r, io_path(sub, "ch.onnx"), &lk, &err) == 0 &&
	       inode(io_path(sub, "ch.onnx.data.in")) == inode(src) &&
	       io_exists(io_path(sub, "ch.onnx.data")) &&
	       qir_model_load(io_path(sub, "ch.onnx"), &lo, &r2, &err) == 0 &&
	       same_data(r, r2) && !same_data(orig, r2),
	       "a changed tensor is written, the others linked (%s)", err.msg);
	qir_model_free(r2);
	/* the model file cannot be made (a folder there): no link left */
	mkdir(io_path(sub, "isdir"), 0777);
	memset(&err, 0, sizeof(err));
	tap_ok(qir_model_save(r, io_path(sub, "isdir"), &lk, &err) == -1 &&
	       !io_exists(io_path(sub, "isdir.data.in")) &&
	       !io_exists(io_path(sub, "isdir.data")),
	       "a failed save removes its links: \"%s\"", err.msg);
	qir_model_free(r);
}

int main(void)
{
	qir_error err = { 0 };
	qir_model *m;

	dir = io_mkdir("io-external");
	m = make_model(&err);
	threshold_save(m);
	resave(m);
	vanished(m);
	linked(m);
	qir_model_free(m);
	return tap_done();
}
