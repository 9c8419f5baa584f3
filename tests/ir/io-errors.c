/*
 * tests/ir/io-errors.c - bad ONNX input gets a clear error, never a crash:
 * malformed and truncated protobuf, bad tensor sizes, unsafe or broken
 * external data references.
 */
#include "../lib/tap.h"
#include "../lib/io-util.h"

static const char *dir;

/* One initializer w of the given dims and raw_data length. */
static struct pb model_with_raw(const int64_t *dims, int rank, size_t raw)
{
	struct pb g = { 0 }, t = { 0 };
	uint8_t *bytes = calloc(raw + 1, 1);

	pb_tensor_head(&t, "w", QIR_FLOAT, dims, rank);
	pb_bytes(&t, 9, bytes, raw);
	free(bytes);
	pb_msg(&g, 5, &t);
	pb_str(&g, 2, "g");
	return pb_model(&g);
}

static struct pb model_with_tensor(struct pb *t)
{
	struct pb g = { 0 };

	pb_msg(&g, 5, t);
	pb_str(&g, 2, "g");
	return pb_model(&g);
}

static void expect(struct pb *m, int code, const char *text, const char *what)
{
	qir_model *model;
	qir_error err;
	int rc = io_load_bytes(dir, "m.onnx", m, &model, &err);

	tap_ok(rc == code && strstr(err.msg, text) && !model,
	       "%s: code %d, \"%s\"", what, rc, err.msg);
	qir_model_free(model);
	free(m->d);
}

static void parse_errors(void)
{
	static const uint8_t junk[] = { 0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f,
					0x01, 0x02 };
	struct pb m = { 0 }, g = { 0 };
	int64_t dims[2] = { 2, 2 };
	qir_model *model;
	qir_error err;

	pb_raw(&m, junk, sizeof(junk));
	expect(&m, QIR_EPARSE,
	       "not a valid ONNX model (protobuf parse failed", "malformed");

	m = model_with_raw(dims, 2, 16);
	m.n -= 5;	/* cut inside raw_data */
	expect(&m, QIR_EPARSE, "truncated", "truncated file");

	memset(&m, 0, sizeof(m));
	pb_raw(&m, "", 0);
	expect(&m, QIR_EPARSE, "empty file", "empty file");

	pb_str(&g, 2, "nograph");
	memset(&m, 0, sizeof(m));
	pb_int(&m, 1, 9);
	free(g.d);
	expect(&m, QIR_EPARSE, "no graph", "model without a graph");

	memset(&err, 0, sizeof(err));
	tap_ok(qir_model_load(dir, NULL, &model, &err) == -1 &&
	       err.code == QIR_EIO && strstr(err.msg, "is a directory"),
	       "directory: \"%s\"", err.msg);
	memset(&err, 0, sizeof(err));
	tap_ok(qir_model_load(io_path(dir, "nope.onnx"), NULL, &model, &err)
	       == -1 && err.code == QIR_EIO &&
	       strstr(err.msg, "No such file"), "missing file: \"%s\"",
	       err.msg);
}

static void size_errors(void)
{
	int64_t neg[2] = { 2, -3 }, big[3] = { INT64_MAX, 4, 4 },
		ok[2] = { 2, 2 }, huge[2] = { INT64_MAX / 2, 3 };
	struct pb m, t = { 0 };

	m = model_with_raw(neg, 2, 16);
	expect(&m, QIR_EINVALID, "tensor 'w': dimension 1 is negative (-3)",
	       "negative dim");
	m = model_with_raw(big, 3, 16);
	expect(&m, QIR_EINVALID, "tensor 'w': element count of dims overflows",
	       "dims product overflows");
	m = model_with_raw(huge, 2, 16);
	expect(&m, QIR_EINVALID, "tensor 'w': byte size of",
	       "byte size overflows");
	m = model_with_raw(ok, 2, 10);
	expect(&m, QIR_EINVALID,
	       "tensor 'w': raw_data has 10 bytes, FLOAT[2,2] needs 16",
	       "raw_data wrong length");

	pb_tensor_head(&t, "w", QIR_FLOAT, ok, 2);
	pb_tag(&t, 4, 2);		/* packed float_data, 3 floats */
	pb_varint(&t, 12);
	pb_raw(&t, "\0\0\x80?\0\0\0@\0\0@@", 12);
	m = model_with_tensor(&t);
	expect(&m, QIR_EINVALID,
	       "tensor 'w': float_data has 3 entries, FLOAT[2,2] needs 4",
	       "typed data wrong length");

	pb_tensor_head(&t, "w", QIR_INT64, ok, 2);
	m = model_with_tensor(&t);
	expect(&m, QIR_EINVALID,
	       "tensor 'w': int64_data has 0 entries, INT64[2,2] needs 4",
	       "tensor without data");

	pb_tensor_head(&t, "w", 99, ok, 2);
	pb_bytes(&t, 9, "0123456789abcdef", 16);
	m = model_with_tensor(&t);
	expect(&m, QIR_EINVALID, "tensor 'w': unknown data_type 99",
	       "unknown data_type");
}

static struct pb ext_model(const char *loc, const char *off,
			   const char *len)
{
	struct pb t = { 0 };
	int64_t dims[1] = { 4 };

	pb_tensor_head(&t, "w", QIR_FLOAT, dims, 1);
	pb_kv(&t, 13, "location", loc);
	if (off)
		pb_kv(&t, 13, "offset", off);
	if (len)
		pb_kv(&t, 13, "length", len);
	pb_int(&t, 14, 1);
	return model_with_tensor(&t);
}

static void external_errors(void)
{
	char real[4096], sym[4096], hard[4096], outside[4096];
	struct pb m;
	qir_model *model;
	qir_error err;

	io_write(io_path(dir, "w.bin"), "0123456789abcdef", 16);
	m = ext_model("/etc/passwd", NULL, NULL);
	expect(&m, QIR_EUNSAFE,
	       "tensor 'w': external data location '/etc/passwd' is absolute",
	       "absolute external location");
	m = ext_model("../x.bin", NULL, NULL);
	expect(&m, QIR_EUNSAFE,
	       "tensor 'w': external data location '../x.bin' escapes the model's folder",
	       "'..' in external location");
	m = ext_model("sub/../../x.bin", NULL, NULL);
	expect(&m, QIR_EUNSAFE, "escapes the model's folder",
	       "inner '..' in external location");

	/* A symlink inside the folder pointing outside of it. */
	snprintf(outside, sizeof(outside), "%s.outside", dir);
	io_write(outside, "0123456789abcdef", 16);
	if (!realpath(outside, real))
		abort();
	snprintf(sym, sizeof(sym), "%s", io_path(dir, "link.bin"));
	if (symlink(real, sym))
		abort();
	m = ext_model("link.bin", NULL, NULL);
	expect(&m, QIR_EUNSAFE,
	       "tensor 'w': external data location 'link.bin' escapes the model's folder (it resolves to",
	       "symlink escaping the folder");
	/* A hard link to that outside file: realpath stays inside. */
	snprintf(hard, sizeof(hard), "%s", io_path(dir, "hard.bin"));
	if (link(outside, hard) == 0) {
		m = ext_model("hard.bin", NULL, NULL);
		expect(&m, QIR_EUNSAFE,
		       "tensor 'w': external data file 'hard.bin' has 2 hard links",
		       "hard link to a file outside the folder");
		unlink(hard);
	} else {
		tap_skip("cannot make a hard link here",
			 "hard link to a file outside the folder");
	}
	unlink(outside);

	m = ext_model("w.bin", "4", NULL);
	expect(&m, QIR_EINVALID,
	       "tensor 'w': external data (offset 4, length 16) lies outside 'w.bin' (16 bytes)",
	       "external offset beyond the file");
	m = ext_model("w.bin", "0", "32");
	expect(&m, QIR_EINVALID,
	       "tensor 'w': external data length has 32 bytes, FLOAT[4] needs 16",
	       "external length wrong");
	m = ext_model("w.bin", "x1", NULL);
	expect(&m, QIR_EINVALID, "offset 'x1' is not a number",
	       "external offset not a number");
	m = ext_model("absent.bin", NULL, NULL);
	expect(&m, QIR_EIO,
	       "tensor 'w': external data file",
	       "missing external file");

	/* Fine from a file; refused from a buffer without a folder and
	 * with no_external. */
	m = ext_model("w.bin", "0", "16");
	tap_ok(io_load_bytes(dir, "ok.onnx", &m, &model, &err) == 0,
	       "valid external reference loads (%s)", err.msg);
	if (model) {
		qir_tensor *t = model->graph->inits[0]->init;
		const float *d = qir_tensor_data(t, &err);

		tap_ok(t->storage == QIR_STORE_EXTERNAL && d &&
		       !memcmp(d, "0123456789abcdef", 16),
		       "external bytes read through the mapping");
	}
	qir_model_free(model);
	memset(&err, 0, sizeof(err));
	tap_ok(qir_model_load_buffer(m.d, m.n, NULL, &model, &err) == -1 &&
	       err.code == QIR_EUNSAFE && strstr(err.msg, "without a folder"),
	       "external data from a buffer without folder: \"%s\"", err.msg);
	{
		qir_load_opts o = { .no_external = 1 };

		memset(&err, 0, sizeof(err));
		tap_ok(qir_model_load(io_path(dir, "ok.onnx"), &o, &model,
				      &err) == -1 &&
		       strstr(err.msg, "refused"),
		       "no_external refuses external data: \"%s\"", err.msg);
	}
	free(m.d);
}

/* An error inside a subgraph names every node on the way to it, outer
 * first, even when the outer node's name already appears in the
 * message (here: the outer If is named like the inner attribute). */
static void nested_errors(void)
{
	struct pb inner_attr = { 0 }, inner = { 0 }, sub = { 0 };
	struct pb outer_attr = { 0 }, outer = { 0 }, g = { 0 }, m;
	static const char *const out[] = { "y", NULL };

	pb_str(&inner_attr, 1, "value");
	pb_int(&inner_attr, 20, 4);	/* TENSOR, without the tensor */
	pb_msg(&inner, 5, &inner_attr);
	pb_node(&sub, "Constant", "inner", NULL, out, &inner);
	pb_str(&sub, 2, "then");
	pb_str(&outer_attr, 1, "then_branch");
	pb_int(&outer_attr, 20, 5);	/* GRAPH */
	pb_msg(&outer_attr, 6, &sub);
	pb_msg(&outer, 5, &outer_attr);
	pb_node(&g, "If", "value", NULL, NULL, &outer);
	pb_str(&g, 2, "g");
	m = pb_model(&g);
	expect(&m, QIR_EINVALID,
	       "node 'value' (If): node 'inner' (Constant): attribute 'value': type TENSOR without a tensor",
	       "error in a subgraph: the path of nodes");
}

int main(void)
{
	dir = io_mkdir("io-errors");
	parse_errors();
	nested_errors();
	size_errors();
	external_errors();
	return tap_done();
}
