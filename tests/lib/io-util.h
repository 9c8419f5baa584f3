/*
 * tests/lib/io-util.h - helpers for the ONNX I/O tests: a tiny protobuf
 * encoder (so tests can write exactly the bytes they mean, malformed
 * ones included, independently of our .proto), scratch folders and
 * file checks.
 */
#ifndef QOPT_TESTS_IO_UTIL_H
#define QOPT_TESTS_IO_UTIL_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <qopt/ir.h>

struct pb {
	uint8_t *d;
	size_t n, cap;
};

static inline void pb_raw(struct pb *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		b->d = realloc(b->d, b->cap);
		if (!b->d)
			abort();
	}
	if (n)
		memcpy(b->d + b->n, p, n);
	b->n += n;
}

static inline void pb_varint(struct pb *b, uint64_t v)
{
	uint8_t c;

	do {
		c = v & 0x7f;
		v >>= 7;
		if (v)
			c |= 0x80;
		pb_raw(b, &c, 1);
	} while (v);
}

static inline void pb_tag(struct pb *b, int field, int wt)
{
	pb_varint(b, ((uint64_t)field << 3) | (uint64_t)wt);
}

static inline void pb_int(struct pb *b, int field, int64_t v)
{
	pb_tag(b, field, 0);
	pb_varint(b, (uint64_t)v);
}

static inline void pb_bytes(struct pb *b, int field, const void *p, size_t n)
{
	pb_tag(b, field, 2);
	pb_varint(b, n);
	pb_raw(b, p, n);
}

static inline void pb_str(struct pb *b, int field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

/* Appends sub as a nested message and frees it. */
static inline void pb_msg(struct pb *b, int field, struct pb *sub)
{
	pb_bytes(b, field, sub->d, sub->n);
	free(sub->d);
	memset(sub, 0, sizeof(*sub));
}

static inline void pb_kv(struct pb *b, int field, const char *k, const char *v)
{
	struct pb e = { 0 };

	pb_str(&e, 1, k);
	pb_str(&e, 2, v);
	pb_msg(b, field, &e);
}

/* TensorProto header: name, data_type, dims. */
static inline void pb_tensor_head(struct pb *t, const char *name, int dtype,
			   const int64_t *dims, int rank)
{
	for (int i = 0; i < rank; i++)
		pb_int(t, 1, dims[i]);
	pb_int(t, 2, dtype);
	pb_str(t, 8, name);
}

/* ValueInfoProto of a tensor type with known dims. */
static inline void pb_value(struct pb *g, int field, const char *name, int dtype,
		     const int64_t *dims, int rank)
{
	struct pb vi = { 0 }, tp = { 0 }, tt = { 0 }, sh = { 0 };

	for (int i = 0; i < rank; i++) {
		struct pb d = { 0 };

		pb_int(&d, 1, dims[i]);
		pb_msg(&sh, 1, &d);
	}
	pb_int(&tt, 1, dtype);
	pb_msg(&tt, 2, &sh);
	pb_msg(&tp, 1, &tt);
	pb_str(&vi, 1, name);
	pb_msg(&vi, 2, &tp);
	pb_msg(g, field, &vi);
}

/* NodeProto with up to 4 inputs/outputs (NULL-terminated lists). */
static inline void pb_node(struct pb *g, const char *op, const char *name,
		    const char *const *in, const char *const *out,
		    struct pb *extra)
{
	struct pb n = { 0 };

	for (; in && *in; in++)
		pb_str(&n, 1, *in);
	for (; out && *out; out++)
		pb_str(&n, 2, *out);
	if (name)
		pb_str(&n, 3, name);
	pb_str(&n, 4, op);
	if (extra) {
		pb_raw(&n, extra->d, extra->n);
		free(extra->d);
		memset(extra, 0, sizeof(*extra));
	}
	pb_msg(g, 1, &n);
}

/* ModelProto around graph g (freed): IR 9, opset 19. */
static inline struct pb pb_model(struct pb *g)
{
	struct pb m = { 0 }, op = { 0 };

	pb_int(&m, 1, 9);
	pb_str(&op, 1, "");
	pb_int(&op, 2, 19);
	pb_msg(&m, 8, &op);
	pb_msg(&m, 7, g);
	return m;
}

static char io_dir[4096];

/* A fresh scratch folder under tests/work (removed by make clean). */
static inline const char *io_mkdir(const char *tag)
{
	char tmpl[4096];

	mkdir("tests", 0777);
	mkdir("tests/work", 0777);
	snprintf(tmpl, sizeof(tmpl), "tests/work/%s-XXXXXX", tag);
	if (!mkdtemp(tmpl))
		abort();
	snprintf(io_dir, sizeof(io_dir), "%s", tmpl);
	return io_dir;
}

/* dir/name in one of four rotating static buffers; a path that does
 * not fit aborts rather than silently naming another file. */
static inline char *io_path(const char *dir, const char *name)
{
	static char buf[4][4096];
	static int k;
	int len;

	k = (k + 1) % 4;
	len = snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	if (len < 0 || (size_t)len >= sizeof(buf[k]))
		abort();
	return buf[k];
}

static inline void io_write(const char *path, const void *d, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || (n && fwrite(d, 1, n, f) != n) || fclose(f))
		abort();
}

/* Caller frees. */
static inline uint8_t *io_read(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *d;
	long len;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	d = malloc(len ? len : 1);
	if (len && fread(d, 1, len, f) != (size_t)len)
		abort();
	fclose(f);
	*n = (size_t)len;
	return d;
}

static inline int io_contains(const char *path, const void *needle, size_t len)
{
	size_t n;
	uint8_t *d = io_read(path, &n);
	int found = 0;

	for (size_t i = 0; d && !found && i + len <= n; i++)
		found = !memcmp(d + i, needle, len);

	free(d);
	return found;
}

/* Number of entries in dir (temporary files would show up here). */
static inline int io_count(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static inline int io_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Loads bytes written to dir/name; returns the error code. */
static inline int io_load_bytes(const char *dir, const char *name, struct pb *m,
			 qir_model **out, qir_error *err)
{
	io_write(io_path(dir, name), m->d, m->n);
	memset(err, 0, sizeof(*err));
	*out = NULL;
	if (qir_model_load(io_path(dir, name), NULL, out, err) == 0)
		return 0;
	return err->code ? err->code : -1;
}

#endif
