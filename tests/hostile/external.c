/*
 * tests/hostile/external.c - external data without a race: the file
 * mapped is the file checked at load (device and inode), a symlink put
 * in its place is not followed, and no save may write over a data file
 * the model reads from (except a model saved over itself).
 */
#include <fcntl.h>
#include <unistd.h>
#include "../lib/tap.h"
#include "../lib/io-util.h"

/* dir/m.onnx with one 4096-float initializer in dir/m.onnx.data. */
static void make_files(const char *dir)
{
	static const int64_t n = 4096;
	qir_error err = { 0 };
	qir_model *m = qir_model_new(9, 19, &err);
	qir_tensor *t = qir_tensor_new("w", QIR_FLOAT, 1, &n, &err);
	qir_save_opts o = { .external_threshold = 1024 };
	float *d = qir_tensor_mutable_data(t, &err);

	for (int64_t i = 0; i < n; i++)
		d[i] = (float)i;
	qir_graph_add_output(m->graph, qir_graph_add_initializer(m->graph, t));
	if (qir_model_save(m, io_path(dir, "m.onnx"), &o, &err) < 0)
		abort();
	qir_model_free(m);
}

static qir_model *load(const char *dir)
{
	qir_error err = { 0 };
	qir_model *m = NULL;

	if (qir_model_load(io_path(dir, "m.onnx"), NULL, &m, &err) < 0)
		printf("# load: %s\n", err.msg);
	return m;
}

static const char *data_error(qir_model *m)
{
	static qir_error err;

	memset(&err, 0, sizeof(err));
	return qir_tensor_data(m->graph->inits[0]->init, &err) ? NULL :
	       err.msg;
}

int main(void)
{
	const char *dir = io_mkdir("hostile-external");
	qir_error err = { 0 };
	qir_save_opts o = { .external_threshold = 1024 };
	const char *msg;
	qir_model *m;
	float other[4096] = { 0 };

	/* Swapped for another file between load and first use. */
	make_files(dir);
	m = load(dir);
	io_write(io_path(dir, "other.bin"), other, sizeof(other));
	rename(io_path(dir, "other.bin"), io_path(dir, "m.onnx.data"));
	msg = m ? data_error(m) : "no model";
	tap_ok(msg && strstr(msg, "was replaced by another file after the model was loaded"),
	       "a data file swapped after load is refused (%s)", msg ? msg : "read");
	qir_model_free(m);

	/* Swapped for a symlink to an equal file elsewhere. */
	make_files(dir);
	m = load(dir);
	rename(io_path(dir, "m.onnx.data"), io_path(dir, "moved.data"));
	if (symlink("moved.data", io_path(dir, "m.onnx.data")) < 0)
		abort();
	msg = m ? data_error(m) : "no model";
	tap_ok(msg && strstr(msg, "symbolic link"),
	       "a symlink put in place of the data file is not followed (%s)",
	       msg ? msg : "read");
	qir_model_free(m);
	unlink(io_path(dir, "m.onnx.data"));
	unlink(io_path(dir, "moved.data"));

	/* Saving another model over the data file it reads. */
	make_files(dir);
	m = load(dir);
	tap_ok(m && qir_model_save(m, io_path(dir, "m.onnx.data"), &o, &err) < 0 &&
	       strstr(err.msg, "holds external data of the model being saved"),
	       "a model saved over its own data file is refused (%s)", err.msg);
	memset(&err, 0, sizeof(err));
	o.external_name = "m.onnx.data";
	tap_ok(m && qir_model_save(m, io_path(dir, "n.onnx"), &o, &err) < 0 &&
	       strstr(err.msg, "holds external data of the model being saved"),
	       "a new model whose data file is the source's is refused (%s)",
	       err.msg);
	tap_ok(!data_error(m), "the source data file is still the one loaded");
	tap_ok(!io_exists(io_path(dir, "n.onnx")), "nothing written");
	qir_model_free(m);
	return tap_done();
}
