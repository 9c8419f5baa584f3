/*
 * tests/cli/io-mkbad.c - writes one bad ONNX model per load error case into
 * DIR, for tests/cli/io-errors.sh to feed to the qopt command.
 * usage: io-mkbad DIR
 * Prints one line per model, "FILE<TAB>MESSAGE": the whole error text
 * qopt must report for DIR/FILE (after "qopt: DIR/FILE: error: "). Keeping
 * the expectations here, beside the bytes that cause them, keeps the
 * two from drifting apart.
 * Besides the models: DIR/w.bin (16 bytes of external data) and
 * DIR/link.bin, a symlink to DIR.outside, a file outside DIR.
 */
#include <limits.h>
#include "../lib/io-util.h"

static const char *dir;

/* Writes m (freed) as dir/file and announces what loading it says. */
static void emit(const char *file, struct pb *m, const char *msg)
{
	io_write(io_path(dir, file), m->d, m->n);
	free(m->d);
	memset(m, 0, sizeof(*m));
	printf("%s\t%s\n", file, msg);
}

static struct pb model_with_tensor(struct pb *t)
{
	struct pb g = { 0 };

	pb_msg(&g, 5, t);
	pb_str(&g, 2, "g");
	return pb_model(&g);
}

/* One FLOAT initializer w of the given dims and raw_data length. */
static struct pb model_with_raw(const int64_t *dims, int rank, size_t raw)
{
	struct pb t = { 0 };
	uint8_t *bytes = calloc(raw + 1, 1);

	if (!bytes)
		abort();
	pb_tensor_head(&t, "w", QIR_FLOAT, dims, rank);
	pb_bytes(&t, 9, bytes, raw);
	free(bytes);
	return model_with_tensor(&t);
}

/* FLOAT[4] w stored externally; off/len NULL: not given. */
static struct pb ext_model(const char *loc, const char *off,
			   const char *len)
{
	static const int64_t dims[1] = { 4 };
	struct pb t = { 0 };

	pb_tensor_head(&t, "w", QIR_FLOAT, dims, 1);
	pb_kv(&t, 13, "location", loc);
	if (off)
		pb_kv(&t, 13, "offset", off);
	if (len)
		pb_kv(&t, 13, "length", len);
	pb_int(&t, 14, 1);	/* data_location EXTERNAL */
	return model_with_tensor(&t);
}

static void parse_cases(void)
{
	static const uint8_t junk[] = { 0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f,
					0x01, 0x02 };
	static const int64_t dims[2] = { 2, 2 };
	struct pb m = { 0 };

	pb_raw(&m, junk, sizeof(junk));
	emit("malformed.onnx", &m,
	     "not a valid ONNX model (protobuf parse failed: field 1 at byte 0 needs 4294967295 bytes, 2 remain (truncated file?))");
	m = model_with_raw(dims, 2, 16);
	m.n -= 5;	/* cut inside raw_data */
	emit("truncated.onnx", &m,
	     "not a valid ONNX model (protobuf parse failed: field 7 at byte 8 needs 32 bytes, 27 remain (truncated file?))");
	emit("empty.onnx", &m, "not a valid ONNX model (empty file)");
}

static void size_cases(void)
{
	static const int64_t neg[2] = { 2, -3 }, big[3] = { INT64_MAX, 4, 4 },
		ok[2] = { 2, 2 }, huge[2] = { INT64_MAX / 2, 3 };
	struct pb m, t = { 0 };

	m = model_with_raw(neg, 2, 16);
	emit("neg-dim.onnx", &m, "tensor 'w': dimension 1 is negative (-3)");
	m = model_with_raw(big, 3, 16);
	emit("numel-overflow.onnx", &m,
	     "tensor 'w': element count of dims overflows");
	m = model_with_raw(huge, 2, 16);
	emit("bytes-overflow.onnx", &m,
	     "tensor 'w': byte size of 13835058055282163709 FLOAT elements overflows");
	m = model_with_raw(ok, 2, 10);
	emit("raw-length.onnx", &m,
	     "tensor 'w': raw_data has 10 bytes, FLOAT[2,2] needs 16");

	pb_tensor_head(&t, "w", QIR_FLOAT, ok, 2);
	pb_tag(&t, 4, 2);		/* packed float_data, 3 floats */
	pb_varint(&t, 12);
	pb_raw(&t, "\0\0\x80?\0\0\0@\0\0@@", 12);
	m = model_with_tensor(&t);
	emit("float-data-length.onnx", &m,
	     "tensor 'w': float_data has 3 entries, FLOAT[2,2] needs 4");

	pb_tensor_head(&t, "w", 99, ok, 2);
	pb_bytes(&t, 9, "0123456789abcdef", 16);
	m = model_with_tensor(&t);
	emit("unknown-dtype.onnx", &m, "tensor 'w': unknown data_type 99");
}

/* A Constant node whose value tensor (unnamed, as exporters write
 * them) is too short: the message has to name the node instead. */
static void node_case(void)
{
	static const int64_t dims[2] = { 2, 2 };
	static const char *const out[] = { "c", NULL };
	struct pb g = { 0 }, a = { 0 }, t = { 0 }, m;

	for (int i = 0; i < 2; i++)
		pb_int(&t, 1, dims[i]);
	pb_int(&t, 2, QIR_FLOAT);
	pb_bytes(&t, 9, "0123456789", 10);
	pb_str(&a, 1, "value");
	pb_msg(&a, 5, &t);
	pb_int(&a, 20, 4);		/* AttributeType TENSOR */
	pb_msg(&t, 5, &a);		/* NodeProto.attribute */
	pb_node(&g, "Constant", "const1", NULL, out, &t);
	pb_str(&g, 2, "g");
	pb_value(&g, 12, "c", QIR_FLOAT, dims, 2);
	m = pb_model(&g);
	emit("node-tensor.onnx", &m,
	     "node 'const1' (Constant): tensor '(unnamed)': raw_data has 10 bytes, FLOAT[2,2] needs 16");
}

static void external_cases(void)
{
	char outside[4096], real[PATH_MAX], msg[2 * PATH_MAX];
	struct pb m;
	int len;

	io_write(io_path(dir, "w.bin"), "0123456789abcdef", 16);
	len = snprintf(outside, sizeof(outside), "%s.outside", dir);
	if (len < 0 || (size_t)len >= sizeof(outside))
		abort();
	io_write(outside, "0123456789abcdef", 16);
	if (!realpath(outside, real) || symlink(real, io_path(dir, "link.bin")))
		abort();

	m = ext_model("/etc/passwd", NULL, NULL);
	emit("ext-absolute.onnx", &m,
	     "tensor 'w': external data location '/etc/passwd' is absolute; it must be relative to the model's folder");
	m = ext_model("../x.bin", NULL, NULL);
	emit("ext-dotdot.onnx", &m,
	     "tensor 'w': external data location '../x.bin' escapes the model's folder");
	m = ext_model("sub/../../w.bin", NULL, NULL);
	emit("ext-inner-dotdot.onnx", &m,
	     "tensor 'w': external data location 'sub/../../w.bin' escapes the model's folder");
	m = ext_model("link.bin", NULL, NULL);
	snprintf(msg, sizeof(msg),
		 "tensor 'w': external data location 'link.bin' escapes the model's folder (it resolves to '%s')",
		 real);
	emit("ext-symlink.onnx", &m, msg);
	m = ext_model("w.bin", "4", NULL);
	emit("ext-offset.onnx", &m,
	     "tensor 'w': external data (offset 4, length 16) lies outside 'w.bin' (16 bytes)");
	m = ext_model("w.bin", "100", "16");
	emit("ext-offset-length.onnx", &m,
	     "tensor 'w': external data (offset 100, length 16) lies outside 'w.bin' (16 bytes)");
	m = ext_model("w.bin", "0", "32");
	emit("ext-length.onnx", &m,
	     "tensor 'w': external data length has 32 bytes, FLOAT[4] needs 16");
	m = ext_model("absent.bin", NULL, NULL);
	snprintf(msg, sizeof(msg),
		 "tensor 'w': external data file '%s/absent.bin' cannot be opened: No such file or directory",
		 dir);
	emit("ext-missing.onnx", &m, msg);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: io-mkbad DIR\n");
		return 2;
	}
	dir = argv[1];
	if (mkdir(dir, 0777) && !io_exists(dir)) {
		perror(dir);
		return 1;
	}
	parse_cases();
	size_cases();
	node_case();
	external_cases();
	return fflush(stdout) ? 1 : 0;
}
