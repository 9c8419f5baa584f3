/*
 * tests/e2e/big-gen.c - writes large test models without holding them in
 * memory, and lists where a model's tensors live.
 *
 *   big-gen [-d DIM] [-l LAYERS] [--inline] OUT.onnx
 *	A FLOAT16 chain y = Add(MatMul(y, W_i), b_i) after y = Mul(x, s),
 *	W_i [DIM, DIM], b_i [DIM], seeded pseudo-random values. By default
 *	every tensor goes to OUT.onnx.data, packed back to back from offset
 *	0 (deliberately not 4096-aligned: s is 2 bytes), written with
 *	pwrite in chunks, so memory stays small whatever the size. With
 *	--inline the bytes go into raw_data (the model must stay < 2 GiB).
 *	Defaults: DIM 8192, LAYERS 17: about 2.13 GiB of weights.
 *
 *   big-gen --list MODEL.onnx
 *	One line per initializer: "name location offset length" for
 *	external data ("-" fields for inline tensors), read with a
 *	protobuf reader of its own, independent of libqopt.
 *
 * The protobuf is encoded here by hand (field numbers from onnx.proto)
 * so that the test does not trust the library it tests.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* Growable byte buffer and protobuf encoding                          */

struct buf {
	uint8_t *p;
	size_t len, cap;
};

static void die(const char *what)
{
	fprintf(stderr, "big-gen: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;

		while (cap < b->len + n)
			cap *= 2;
		b->p = realloc(b->p, cap);
		if (!b->p)
			die("realloc");
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void put_varint(struct buf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	do {
		tmp[n] = v & 0x7f;
		v >>= 7;
		if (v)
			tmp[n] |= 0x80;
		n++;
	} while (v);
	put(b, tmp, n);
}

static void put_key(struct buf *b, int field, int wire)
{
	put_varint(b, (uint64_t)field << 3 | wire);
}

static void put_int(struct buf *b, int field, uint64_t v)
{
	put_key(b, field, 0);
	put_varint(b, v);
}

static void put_bytes(struct buf *b, int field, const void *p, size_t n)
{
	put_key(b, field, 2);
	put_varint(b, n);
	put(b, p, n);
}

static void put_str(struct buf *b, int field, const char *s)
{
	put_bytes(b, field, s, strlen(s));
}

/* Appends sub as a length-delimited field and frees it. */
static void put_msg(struct buf *b, int field, struct buf *sub)
{
	put_bytes(b, field, sub->p, sub->len);
	free(sub->p);
	memset(sub, 0, sizeof(*sub));
}

/* ------------------------------------------------------------------ */
/* Model pieces                                                        */

enum { FLOAT16 = 10 };

static void value_info(struct buf *g, int field, const char *name,
		       const int64_t *dims, int rank)
{
	struct buf vi = { 0 }, type = { 0 }, tt = { 0 }, shape = { 0 };
	int i;

	for (i = 0; i < rank; i++) {
		struct buf dim = { 0 };

		put_int(&dim, 1, (uint64_t)dims[i]);
		put_msg(&shape, 1, &dim);
	}
	put_int(&tt, 1, FLOAT16);
	put_msg(&tt, 2, &shape);
	put_msg(&type, 1, &tt);
	put_str(&vi, 1, name);
	put_msg(&vi, 2, &type);
	put_msg(g, field, &vi);
}

static void node(struct buf *g, const char *op, const char *a,
		 const char *b, const char *out)
{
	struct buf n = { 0 };

	put_str(&n, 1, a);
	put_str(&n, 1, b);
	put_str(&n, 2, out);
	put_str(&n, 3, out);
	put_str(&n, 4, op);
	put_msg(g, 1, &n);
}

/* Seeded FLOAT16 values of magnitude 2^-4 .. 2^-1 (no inf/NaN). */
static void fill(uint16_t *p, size_t n, uint32_t *state)
{
	uint32_t s = *state;
	size_t i;

	for (i = 0; i < n; i++) {
		s ^= s << 13;
		s ^= s >> 17;
		s ^= s << 5;
		p[i] = (uint16_t)((s & 0x83ff) | (((s >> 10 & 3) + 11) << 10));
	}
	*state = s;
}

struct gen {
	int inline_data;
	int fd;			/* external data file */
	const char *location;	/* its name, relative to the model */
	uint64_t offset;	/* next free byte in it */
	uint16_t *chunk;
	size_t chunk_elems;
	uint64_t total;
};

/* Writes n FLOAT16 values for tensor number idx to the data file (or
 * into raw when inline) and appends the TensorProto to g. */
static void tensor(struct gen *gen, struct buf *g, const char *name,
		   const int64_t *dims, int rank, uint32_t idx)
{
	struct buf t = { 0 };
	uint64_t n = 1, done = 0, nbytes;
	uint32_t state = 0x9e3779b9u ^ (idx * 2654435761u);
	char num[32];
	int i;

	for (i = 0; i < rank; i++) {
		n *= (uint64_t)dims[i];
		put_int(&t, 1, (uint64_t)dims[i]);
	}
	nbytes = n * 2;
	put_int(&t, 2, FLOAT16);
	put_str(&t, 8, name);
	if (gen->inline_data) {
		put_key(&t, 9, 2);
		put_varint(&t, nbytes);
	}
	while (done < n) {
		size_t k = n - done < gen->chunk_elems ?
			   (size_t)(n - done) : gen->chunk_elems;

		fill(gen->chunk, k, &state);
		if (gen->inline_data) {
			put(&t, gen->chunk, k * 2);
		} else {
			size_t w = 0;

			while (w < k * 2) {
				ssize_t r = pwrite(gen->fd,
						   (char *)gen->chunk + w,
						   k * 2 - w,
						   gen->offset + done * 2 + w);
				if (r < 0)
					die("pwrite");
				w += (size_t)r;
			}
		}
		done += k;
	}
	if (!gen->inline_data) {
		struct buf e = { 0 };

		put_str(&e, 1, "location");
		put_str(&e, 2, gen->location);
		put_msg(&t, 13, &e);
		snprintf(num, sizeof(num), "%" PRIu64, gen->offset);
		put_str(&e, 1, "offset");
		put_str(&e, 2, num);
		put_msg(&t, 13, &e);
		snprintf(num, sizeof(num), "%" PRIu64, nbytes);
		put_str(&e, 1, "length");
		put_str(&e, 2, num);
		put_msg(&t, 13, &e);
		put_int(&t, 14, 1);	/* data_location EXTERNAL */
		gen->offset += nbytes;
	}
	gen->total += nbytes;
	put_msg(g, 5, &t);
}

static void write_all(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		die(path);
	if (fwrite(p, 1, n, f) != n || fclose(f))
		die(path);
}

static int generate(const char *out, int64_t dim, int layers, int inl)
{
	struct gen gen = { .inline_data = inl, .fd = -1 };
	struct buf model = { 0 }, graph = { 0 }, opset = { 0 };
	char dpath[4096], prev[64], mm[64], cur[64], name[64];
	int64_t wdims[2] = { dim, dim }, xdims[2] = { 1, dim };
	int64_t sdims[1] = { 1 };
	int i;

	snprintf(dpath, sizeof(dpath), "%s.data", out);
	gen.location = strrchr(dpath, '/') ? strrchr(dpath, '/') + 1 : dpath;
	gen.chunk_elems = 4u << 20;
	gen.chunk = malloc(gen.chunk_elems * 2);
	if (!gen.chunk)
		die("malloc");
	if (!inl) {
		gen.fd = open(dpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (gen.fd < 0)
			die(dpath);
	}

	node(&graph, "Mul", "x", "s", "y0");
	strcpy(prev, "y0");
	for (i = 0; i < layers; i++) {
		snprintf(mm, sizeof(mm), "mm%d", i);
		snprintf(cur, sizeof(cur), "y%d", i + 1);
		snprintf(name, sizeof(name), "W%d", i);
		node(&graph, "MatMul", prev, name, mm);
		snprintf(name, sizeof(name), "b%d", i);
		node(&graph, "Add", mm, name, cur);
		strcpy(prev, cur);
	}
	put_str(&graph, 2, "big");
	tensor(&gen, &graph, "s", sdims, 1, 0);
	for (i = 0; i < layers; i++) {
		snprintf(name, sizeof(name), "W%d", i);
		tensor(&gen, &graph, name, wdims, 2, 2 * i + 1);
		snprintf(name, sizeof(name), "b%d", i);
		tensor(&gen, &graph, name, wdims, 1, 2 * i + 2);
	}
	value_info(&graph, 11, "x", xdims, 2);
	value_info(&graph, 12, prev, xdims, 2);

	put_int(&model, 1, 8);			/* ir_version */
	put_str(&model, 2, "qopt-big-gen");
	put_str(&opset, 1, "");
	put_int(&opset, 2, 17);
	put_msg(&model, 8, &opset);
	put_msg(&model, 7, &graph);
	if (inl && model.len >= (1ull << 31)) {
		fprintf(stderr, "big-gen: %zu bytes: too large to inline\n",
			model.len);
		return 1;
	}
	write_all(out, model.p, model.len);
	if (gen.fd >= 0 && close(gen.fd))
		die(dpath);
	printf("%s: %d layers, dim %" PRId64 ", %" PRIu64 " tensor bytes%s\n",
	       out, layers, dim, gen.total, inl ? " inline" : "");
	free(model.p);
	free(gen.chunk);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Listing (an independent protobuf reader)                            */

struct rd {
	const uint8_t *p, *end;
};

static int rd_varint(struct rd *r, uint64_t *v)
{
	int shift = 0;

	*v = 0;
	while (r->p < r->end && shift < 64) {
		uint8_t b = *r->p++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
		shift += 7;
	}
	return -1;
}

/* Next field: *field, *wire; LEN fields give *sub, others *v. */
static int rd_field(struct rd *r, int *field, int *wire, uint64_t *v,
		    struct rd *sub)
{
	uint64_t key, len;

	if (rd_varint(r, &key))
		return -1;
	*field = (int)(key >> 3);
	*wire = (int)(key & 7);
	switch (*wire) {
	case 0:
		return rd_varint(r, v);
	case 1:
	case 5: {
		size_t n = *wire == 1 ? 8 : 4;

		if ((size_t)(r->end - r->p) < n)
			return -1;
		r->p += n;
		return 0;
	}
	case 2:
		if (rd_varint(r, &len) || len > (uint64_t)(r->end - r->p))
			return -1;
		sub->p = r->p;
		sub->end = r->p + len;
		r->p += len;
		return 0;
	default:
		return -1;
	}
}

static void print_str(struct rd s)
{
	if (s.p)
		fwrite(s.p, 1, (size_t)(s.end - s.p), stdout);
}

static int list_tensor(struct rd t)
{
	struct rd sub, name = { 0 }, loc = { 0 }, off = { 0 }, len = { 0 };
	int field, wire, external = 0;
	uint64_t v;

	while (t.p < t.end) {
		if (rd_field(&t, &field, &wire, &v, &sub))
			return -1;
		if (field == 8 && wire == 2)
			name = sub;
		else if (field == 14 && wire == 0)
			external = v == 1;
		else if (field == 13 && wire == 2) {
			struct rd e = sub, kv, key = { 0 }, val = { 0 };

			while (e.p < e.end) {
				if (rd_field(&e, &field, &wire, &v, &kv))
					return -1;
				if (field == 1 && wire == 2)
					key = kv;
				else if (field == 2 && wire == 2)
					val = kv;
			}
			if (key.p && key.end - key.p == 8 &&
			    !memcmp(key.p, "location", 8))
				loc = val;
			else if (key.p && key.end - key.p == 6 &&
				 !memcmp(key.p, "offset", 6))
				off = val;
			else if (key.p && key.end - key.p == 6 &&
				 !memcmp(key.p, "length", 6))
				len = val;
		}
	}
	print_str(name);
	if (external) {
		printf(" ");
		print_str(loc);
		printf(" ");
		if (off.p)
			print_str(off);
		else
			printf("0");
		printf(" ");
		if (len.p)
			print_str(len);
		else
			printf("-");
		printf("\n");
	} else {
		printf(" - - -\n");
	}
	return 0;
}

static int list(const char *path)
{
	struct rd r, g, sub;
	struct stat st;
	int fd, field, wire, found = 0;
	uint64_t v;
	void *map;

	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		die(path);
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		die(path);
	r.p = map;
	r.end = r.p + st.st_size;
	while (r.p < r.end) {
		if (rd_field(&r, &field, &wire, &v, &sub))
			goto bad;
		if (field != 7 || wire != 2)
			continue;
		found = 1;
		g = sub;
		while (g.p < g.end) {
			if (rd_field(&g, &field, &wire, &v, &sub))
				goto bad;
			if (field == 5 && wire == 2 && list_tensor(sub))
				goto bad;
		}
	}
	munmap(map, (size_t)st.st_size);
	close(fd);
	if (!found) {
		fprintf(stderr, "big-gen: %s: no graph\n", path);
		return 1;
	}
	return 0;
bad:
	fprintf(stderr, "big-gen: %s: malformed protobuf\n", path);
	return 1;
}

int main(int argc, char **argv)
{
	int64_t dim = 8192;
	int layers = 17, inl = 0, i;
	const char *out = NULL;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--list") && i + 1 < argc)
			return list(argv[i + 1]);
		else if (!strcmp(argv[i], "-d") && i + 1 < argc)
			dim = strtoll(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "-l") && i + 1 < argc)
			layers = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--inline"))
			inl = 1;
		else if (argv[i][0] != '-' && !out)
			out = argv[i];
		else
			out = NULL, i = argc;
	}
	if (!out || dim <= 0 || layers <= 0) {
		fprintf(stderr, "usage: big-gen [-d DIM] [-l LAYERS] [--inline] OUT.onnx\n"
				"       big-gen --list MODEL.onnx\n");
		return 2;
	}
	return generate(out, dim, layers, inl);
}
