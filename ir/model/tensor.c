/*
 * ir/model/tensor.c - tensors and where their bytes live (owned buffers,
 * the loaded file, or memory-mapped external data files).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <qopt/kernels.h>
#include "model/internal.h"
#include "file/mapfault.h"
#include "file/open_regular.h"

static const char *tname(const qir_tensor *t)
{
	return t->name && t->name[0] ? t->name : "<unnamed>";
}

uint64_t qir_tensor_numel(const qir_tensor *t)
{
	uint64_t n = 1;
	int i;

	for (i = 0; i < t->rank; i++)
		n *= (uint64_t)t->dims[i];
	return n;
}

/* Element count of dims with overflow and sign checks. */
static int count_elems(const char *name, int rank, const int64_t *dims,
		       uint64_t *out, qir_error *err)
{
	uint64_t n = 1;
	int i;

	if (rank < 0)
		return qir_fail(err, QIR_EINVALID,
				"tensor '%s': negative rank %d", name, rank);
	for (i = 0; i < rank; i++) {
		uint64_t d;

		if (dims[i] < 0)
			return qir_fail(err, QIR_EINVALID,
					"tensor '%s': dim %d is negative (%" PRId64 ")",
					name, i, dims[i]);
		d = (uint64_t)dims[i];
		if (d && n > UINT64_MAX / d)
			return qir_fail(err, QIR_EINVALID,
					"tensor '%s': element count overflows",
					name);
		n *= d;
	}
	*out = n;
	return 0;
}

static int shape_bytes(const char *name, int dtype, int rank,
		       const int64_t *dims, uint64_t *numel, uint64_t *nbytes,
		       qir_error *err)
{
	if (count_elems(name, rank, dims, numel, err) < 0)
		return -1;
	if (dtype == QIR_STRING) {
		*nbytes = 0;
		return 0;
	}
	if (qir_dtype_nbytes(dtype, *numel, nbytes) < 0)
		return qir_fail(err, QIR_EINVALID,
				"tensor '%s': %s of %" PRIu64 " elements has no byte size",
				name, qir_dtype_name(dtype) ? qir_dtype_name(dtype)
							    : "unknown type",
				*numel);
	if (*nbytes > (uint64_t)SIZE_MAX)
		return qir_fail(err, QIR_EINVALID,
				"tensor '%s': %" PRIu64 " bytes exceed the address space",
				name, *nbytes);
	return 0;
}

static void free_strings(qir_tensor *t)
{
	uint64_t i;

	for (i = 0; i < t->nstrings && t->strings; i++)
		free(t->strings[i]);
	free(t->strings);
	free(t->string_lens);
	t->strings = NULL;
	t->string_lens = NULL;
	t->nstrings = 0;
}

qir_tensor *ir_tensor_shell(const char *name, int dtype, int rank,
			      const int64_t *dims, qir_error *err)
{
	const char *nm = name ? name : "";
	uint64_t numel, nbytes;
	qir_tensor *t;

	if (!qir_dtype_name(dtype)) {
		qir_fail(err, QIR_EINVALID, "tensor '%s': unknown data type %d",
			 nm[0] ? nm : "<unnamed>", dtype);
		return NULL;
	}
	if (shape_bytes(nm[0] ? nm : "<unnamed>", dtype, rank, dims, &numel,
			&nbytes, err) < 0)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		goto nomem;
	t->priv = calloc(1, sizeof(struct ir_tensor_priv));
	t->name = strdup(nm);
	t->dims = malloc(sizeof(int64_t) * (rank ? rank : 1));
	if (!t->priv || !t->name || !t->dims)
		goto nomem;
	if (rank)
		memcpy(t->dims, dims, sizeof(int64_t) * rank);
	t->dtype = dtype;
	t->rank = rank;
	t->nbytes = nbytes;
	t->storage = QIR_STORE_NONE;
	return t;
nomem:
	qir_tensor_free(t);
	qir_fail(err, QIR_ENOMEM, "tensor '%s': out of memory", nm);
	return NULL;
}

qir_tensor *qir_tensor_new(const char *name, int dtype, int rank,
			   const int64_t *dims, qir_error *err)
{
	qir_tensor *t = ir_tensor_shell(name, dtype, rank, dims, err);
	struct ir_tensor_priv *p;
	uint64_t i, n;

	if (!t)
		return NULL;
	p = QIR_TPRIV(t);
	if (dtype == QIR_STRING) {
		n = qir_tensor_numel(t);
		t->strings = calloc(n ? n : 1, sizeof(char *));
		t->string_lens = calloc(n ? n : 1, sizeof(uint64_t));
		if (!t->strings || !t->string_lens)
			goto nomem;
		t->nstrings = n;
		for (i = 0; i < n; i++)
			if (!(t->strings[i] = calloc(1, 1)))
				goto nomem;
	}
	p->owned = calloc(t->nbytes ? t->nbytes : 1, 1);
	if (!p->owned)
		goto nomem;
	p->data = p->owned;
	t->storage = QIR_STORE_OWNED;
	return t;
nomem:
	qir_fail(err, QIR_ENOMEM, "tensor '%s': out of memory allocating %" PRIu64 " bytes",
		 tname(t), t->nbytes);
	qir_tensor_free(t);
	return NULL;
}

void qir_tensor_free(qir_tensor *t)
{
	struct ir_tensor_priv *p;

	if (!t)
		return;
	p = QIR_TPRIV(t);
	if (p) {
		ir_deferred_detach(t);
		free(p->owned);
		ir_tensor_unspill(p);
		free(p->ext_location);
		free(p);
	}
	free_strings(t);
	free(t->name);
	free(t->dims);
	free(t);
}

void qir_tensor_keep_fields(qir_tensor *dst, const qir_tensor *src)
{
	/* The pointer is the model's parsed message, freed with it. */
	if (dst && src && dst->priv && src->priv)
		QIR_TPRIV(dst)->pb = QIR_TPRIV(src)->pb;
}

void ir_tensor_set_borrowed(qir_tensor *t, const void *data)
{
	struct ir_tensor_priv *p = QIR_TPRIV(t);

	ir_deferred_detach(t);
	free(p->owned);
	p->owned = NULL;
	ir_tensor_unspill(p);
	p->map = NULL;
	p->data = data;
	t->storage = QIR_STORE_BORROWED;
}

void ir_tensor_set_external(qir_tensor *t, ir_mapping *map,
			      const char *location, uint64_t offset)
{
	struct ir_tensor_priv *p = QIR_TPRIV(t);

	ir_deferred_detach(t);
	free(p->owned);
	p->owned = NULL;
	ir_tensor_unspill(p);
	free(p->ext_location);
	p->ext_location = location ? strdup(location) : NULL;
	p->map = map;
	p->ext_offset = offset;
	p->data = NULL;
	t->storage = QIR_STORE_EXTERNAL;
}

int ir_mapping_open(ir_mapping *map, qir_error *err)
{
	static const uint8_t empty[1];
	const char *kind;
	struct stat st;
	void *addr;
	int fd;

	if (map->addr)
		return 0;
	fd = fio_open_regular(map->path, O_NOFOLLOW, &st, &kind);
	if (fd < 0 && kind)
		return qir_fail(err, QIR_EIO,
				"external data '%s': it is %s, not a regular file",
				map->path, kind);
	if (fd < 0)
		return qir_fail(err, QIR_EIO, "external data '%s': %s",
				map->path, strerror(errno));
	if ((map->dev || map->ino) &&
	    (st.st_dev != map->dev || st.st_ino != map->ino)) {
		close(fd);
		return qir_fail(err, QIR_EUNSAFE,
				"external data '%s' was replaced by another file after the model was loaded",
				map->path);
	}
	if (st.st_size == 0) {
		/* mmap refuses empty files; nothing can be read anyway. */
		close(fd);
		map->addr = empty;
		map->size = 0;
		return 0;
	}
	addr = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (addr == MAP_FAILED)
		return qir_fail(err, QIR_EIO, "external data '%s': mmap: %s",
				map->path, strerror(errno));
	map->addr = addr;
	map->size = (uint64_t)st.st_size;
	fio_map_add(addr, (size_t)st.st_size, PROT_READ, map->path,
		    FIO_MAP_INPUT);
	return 0;
}

void ir_mapping_close(ir_mapping *map)
{
	if (map->addr && map->size) {
		fio_map_del(map->addr);
		munmap((void *)map->addr, (size_t)map->size);
	}
	map->addr = NULL;
}

static const void *external_data(qir_tensor *t, qir_error *err)
{
	struct ir_tensor_priv *p = QIR_TPRIV(t);
	ir_mapping *map = p->map;

	if (!map)
		goto none;
	if (ir_mapping_open(map, err) < 0)
		return NULL;
	if (p->ext_offset > map->size || t->nbytes > map->size - p->ext_offset)
		return qir_fail(err, QIR_EINVALID,
				"tensor '%s': external data %s@%" PRIu64 " needs %" PRIu64
				" bytes but '%s' has %" PRIu64,
				tname(t), p->ext_location ? p->ext_location : "?",
				p->ext_offset, t->nbytes, map->path, map->size),
		       NULL;
	p->data = map->addr + p->ext_offset;
	return p->data;
none:
	qir_fail(err, QIR_EINVALID, "tensor '%s': external data has no file",
		 tname(t));
	return NULL;
}

const void *qir_tensor_data(qir_tensor *t, qir_error *err)
{
	struct ir_tensor_priv *p = QIR_TPRIV(t);

	if (t->nbytes == 0)
		return NULL;
	if (p->recipe && ir_deferred_materialize(t, err))
		return NULL;
	if (p->data)
		return p->data;
	if (t->storage == QIR_STORE_EXTERNAL)
		return external_data(t, err);
	qir_fail(err, QIR_EINVALID, "tensor '%s': has no data", tname(t));
	return NULL;
}

int qir_tensor_advise(qir_tensor *t, int advice, qir_error *err)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), lo, hi;
	const uint8_t *d;

	if (advice != QIR_ADVISE_WILLNEED && advice != QIR_ADVISE_DONE)
		return qir_fail(err, QIR_EUSAGE, "tensor '%s': unknown advice %d",
				tname(t), advice);
	if ((t->storage != QIR_STORE_EXTERNAL && !QIR_TPRIV(t)->spill_addr) ||
	    !t->nbytes)
		return 0;
	d = qir_tensor_data(t, err);
	if (!d)
		return -1;
	if (advice == QIR_ADVISE_WILLNEED) {
		lo = (uintptr_t)d & ~(pg - 1);
		hi = ((uintptr_t)d + t->nbytes + pg - 1) & ~(pg - 1);
		(void)madvise((void *)lo, hi - lo, MADV_WILLNEED);
		return 0;
	}
	/* Whole pages only: the neighbours' bytes may be in use. Both
	 * mappings are read-only, so no page holds a private copy that
	 * dropping would lose. */
	lo = ((uintptr_t)d + pg - 1) & ~(pg - 1);
	hi = ((uintptr_t)d + t->nbytes) & ~(pg - 1);
	if (hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
	return 0;
}

void *qir_tensor_mutable_data(qir_tensor *t, qir_error *err)
{
	struct ir_tensor_priv *p = QIR_TPRIV(t);
	const void *src;
	void *buf;

	if (p->recipe && ir_deferred_materialize(t, err))
		return NULL;
	if (t->storage == QIR_STORE_OWNED && p->owned)
		return p->owned;
	if (t->dtype == QIR_STRING) {
		qir_fail(err, QIR_EUSAGE,
			 "tensor '%s': STRING tensors have no byte buffer",
			 tname(t));
		return NULL;
	}
	src = qir_tensor_data(t, err);
	if (!src && t->nbytes)
		return NULL;
	buf = malloc(t->nbytes ? t->nbytes : 1);
	if (!buf) {
		qir_fail(err, QIR_ENOMEM, "tensor '%s': out of memory copying %" PRIu64 " bytes",
			 tname(t), t->nbytes);
		return NULL;
	}
	if (t->nbytes)
		memcpy(buf, src, t->nbytes);
	ir_tensor_unspill(p);
	p->owned = buf;
	p->data = buf;
	p->map = NULL;
	t->storage = QIR_STORE_OWNED;
	return buf;
}

int qir_tensor_reset(qir_tensor *t, int dtype, int rank, const int64_t *dims,
		     void *data, uint64_t nbytes, qir_error *err)
{
	struct ir_tensor_priv *p = QIR_TPRIV(t);
	uint64_t numel, need;
	int64_t *nd;

	if (dtype == QIR_STRING || !qir_dtype_name(dtype))
		return qir_fail(err, QIR_EUSAGE,
				"tensor '%s': cannot reset to data type %d",
				tname(t), dtype);
	if (shape_bytes(tname(t), dtype, rank, dims, &numel, &need, err) < 0)
		return -1;
	if (need != nbytes)
		return qir_fail(err, QIR_EUSAGE,
				"tensor '%s': %s needs %" PRIu64 " bytes, got %" PRIu64,
				tname(t), qir_dtype_name(dtype), need, nbytes);
	if (nbytes && !data)
		return qir_fail(err, QIR_EUSAGE, "tensor '%s': no data given",
				tname(t));
	nd = malloc(sizeof(int64_t) * (rank ? rank : 1));
	if (!data)
		data = malloc(1);
	if (!nd || !data) {
		free(nd);
		return qir_fail(err, QIR_ENOMEM, "tensor '%s': out of memory",
				tname(t));
	}
	if (rank)
		memcpy(nd, dims, sizeof(int64_t) * rank);
	free(t->dims);
	t->dims = nd;
	t->rank = rank;
	t->dtype = dtype;
	t->nbytes = nbytes;
	free_strings(t);
	ir_deferred_detach(t);
	free(p->owned);
	ir_tensor_unspill(p);
	free(p->ext_location);
	p->ext_location = NULL;
	p->map = NULL;
	p->owned = data;
	p->data = data;
	t->storage = QIR_STORE_OWNED;
	return 0;
}

qir_tensor *qir_tensor_clone(qir_tensor *t, qir_error *err)
{
	qir_tensor *c = ir_tensor_shell(t->name, t->dtype, t->rank, t->dims,
					  err);
	struct ir_tensor_priv *p;
	const void *src;
	uint64_t i;

	if (!c)
		return NULL;
	p = QIR_TPRIV(c);
	if (t->dtype == QIR_STRING) {
		c->strings = calloc(t->nstrings ? t->nstrings : 1, sizeof(char *));
		c->string_lens = calloc(t->nstrings ? t->nstrings : 1,
					sizeof(uint64_t));
		if (!c->strings || !c->string_lens)
			goto nomem;
		c->nstrings = t->nstrings;
		for (i = 0; i < t->nstrings; i++) {
			uint64_t len = t->string_lens[i];

			c->strings[i] = malloc(len + 1);
			if (!c->strings[i])
				goto nomem;
			memcpy(c->strings[i], t->strings[i], len);
			c->strings[i][len] = 0;
			c->string_lens[i] = len;
		}
	}
	if (t->storage == QIR_STORE_NONE && t->dtype != QIR_STRING)
		return c;	/* a shell stays a shell */
	src = qir_tensor_data(t, err);
	if (!src && t->nbytes) {
		qir_tensor_free(c);
		return NULL;
	}
	p->owned = malloc(t->nbytes ? t->nbytes : 1);
	if (!p->owned)
		goto nomem;
	if (t->nbytes)
		memcpy(p->owned, src, t->nbytes);
	p->data = p->owned;
	c->storage = QIR_STORE_OWNED;
	return c;
nomem:
	qir_fail(err, QIR_ENOMEM, "tensor '%s': out of memory cloning",
		 tname(t));
	qir_tensor_free(c);
	return NULL;
}

char *qir_tensor_location(const qir_tensor *t, char *buf, size_t size)
{
	const struct ir_tensor_priv *p = QIR_TPRIV(t);

	if (!size)
		return buf;
	switch (t->storage) {
	case QIR_STORE_OWNED:
		snprintf(buf, size, "%s",
			 p->recipe ? "owned (deferred)" :
			 p->spill_addr ? "owned (spilled)" : "owned");
		break;
	case QIR_STORE_BORROWED:
		snprintf(buf, size, "inline");
		break;
	case QIR_STORE_EXTERNAL:
		snprintf(buf, size, "external:%s@%" PRIu64,
			 p->ext_location ? p->ext_location
					 : (p->map ? p->map->path : "?"),
			 p->ext_offset);
		break;
	default:
		snprintf(buf, size, "none");
	}
	return buf;
}

/* Reads element i; ints go to *iv (exact), floats to *fv. */
static int get_elem(qir_tensor *t, uint64_t i, int64_t *iv, double *fv,
		    int *is_int, qir_error *err)
{
	const uint8_t *d;

	if (i >= qir_tensor_numel(t))
		return qir_fail(err, QIR_EUSAGE,
				"tensor '%s': element %" PRIu64 " out of range (%" PRIu64 ")",
				tname(t), i, qir_tensor_numel(t));
	d = qir_tensor_data(t, err);
	if (!d)
		return t->nbytes ? -1 : qir_fail(err, QIR_EINVALID,
						 "tensor '%s': no data", tname(t));
	*is_int = 1;
	switch (t->dtype) {
	case QIR_FLOAT: { float f; memcpy(&f, d + 4 * i, 4); *fv = f; *is_int = 0; return 0; }
	case QIR_DOUBLE: memcpy(fv, d + 8 * i, 8); *is_int = 0; return 0;
	case QIR_FLOAT16: { uint16_t h; memcpy(&h, d + 2 * i, 2); *fv = qk_f16_to_f32(h); *is_int = 0; return 0; }
	case QIR_BFLOAT16: { uint16_t h; memcpy(&h, d + 2 * i, 2); *fv = qk_bf16_to_f32(h); *is_int = 0; return 0; }
	case QIR_FLOAT8E4M3FN: *fv = qk_e4m3_to_f32(d[i]); *is_int = 0; return 0;
	case QIR_FLOAT8E5M2: *fv = qk_e5m2_to_f32(d[i]); *is_int = 0; return 0;
	case QIR_INT8: *iv = (int8_t)d[i]; return 0;
	case QIR_UINT8: case QIR_BOOL: *iv = d[i]; return 0;
	case QIR_INT16: { int16_t x; memcpy(&x, d + 2 * i, 2); *iv = x; return 0; }
	case QIR_UINT16: { uint16_t x; memcpy(&x, d + 2 * i, 2); *iv = x; return 0; }
	case QIR_INT32: { int32_t x; memcpy(&x, d + 4 * i, 4); *iv = x; return 0; }
	case QIR_UINT32: { uint32_t x; memcpy(&x, d + 4 * i, 4); *iv = x; return 0; }
	case QIR_INT64: memcpy(iv, d + 8 * i, 8); return 0;
	case QIR_UINT64: { uint64_t x; memcpy(&x, d + 8 * i, 8);
		if (x > INT64_MAX) { *fv = (double)x; *is_int = 0; } else *iv = (int64_t)x;
		return 0; }
	case QIR_INT4: case QIR_UINT4: {
		unsigned nib = (d[i / 2] >> (4 * (i & 1))) & 0xF;
		*iv = t->dtype == QIR_INT4 && (nib & 8) ? (int64_t)nib - 16 : nib;
		return 0; }
	default:
		return qir_fail(err, QIR_EUNSUPPORTED,
				"tensor '%s': cannot read %s elements", tname(t),
				qir_dtype_name(t->dtype) ? qir_dtype_name(t->dtype) : "?");
	}
}

int qir_tensor_get_f64(qir_tensor *t, uint64_t i, double *out, qir_error *err)
{
	int64_t iv = 0;
	double fv = 0;
	int is_int;

	if (get_elem(t, i, &iv, &fv, &is_int, err) < 0)
		return -1;
	*out = is_int ? (double)iv : fv;
	return 0;
}

int qir_tensor_get_i64(qir_tensor *t, uint64_t i, int64_t *out, qir_error *err)
{
	int64_t iv = 0;
	double fv = 0;
	int is_int;

	if (get_elem(t, i, &iv, &fv, &is_int, err) < 0)
		return -1;
	if (is_int) {
		*out = iv;
		return 0;
	}
	if (!(fv >= -9223372036854775808.0 && fv < 9223372036854775808.0))
		return qir_fail(err, QIR_EINVALID,
				"tensor '%s': element %" PRIu64 " (%g) is not an int64",
				tname(t), i, fv);
	*out = (int64_t)fv;
	return 0;
}

char *qir_tensor_type_str(int dtype, int rank, const int64_t *dims,
			  char *buf, size_t n)
{
	const char *name = qir_dtype_name(dtype);
	size_t len;
	int i;

	if (!n)
		return buf;
	if (name)
		len = snprintf(buf, n, "%s[", name);
	else
		len = snprintf(buf, n, "dtype%d[", dtype);
	for (i = 0; i < rank && len < n; i++)
		len += snprintf(buf + len, n - len, "%s%" PRId64, i ? "," : "",
				dims[i]);
	if (len < n)
		snprintf(buf + len, n - len, "]");
	return buf;
}
