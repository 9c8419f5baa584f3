/*
 * ir/onnx/external.c - external tensor data.
 *
 * Loading: a location must stay inside the model's folder, by its
 * spelling (relative, no "..") and by what it resolves to (symlinks):
 * ONNX runtimes had path-traversal CVEs here (CVE-2022-25882,
 * CVE-2024-27318). Tensors in one file share one ir_mapping,
 * registered in the model and mapped lazily (ir_mapping_open).
 *
 * Saving: tensors are appended to one data file at 4096-aligned
 * offsets (so each can be mmap'ed in place), through a temporary file
 * renamed at the end like the model itself.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "onnx/onnx_io.h"

int ir_ext_location_ok(const char *loc)
{
	const char *p = loc;

	if (!loc || !*loc || *loc == '/')
		return 0;
	while (*p) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (n == 2 && p[0] == '.' && p[1] == '.')
			return 0;
		if (!e)
			break;
		p = e + 1;
	}
	return 1;
}

static const char *dir_real(struct ir_load_ctx *ctx, qir_error *err)
{
	if (ctx->dir_real)
		return ctx->dir_real;
	ctx->dir_real_buf = realpath(ctx->dir, NULL);
	if (!ctx->dir_real_buf) {
		qir_fail(err, QIR_EIO, "cannot resolve the model's folder '%s': %s",
			 ctx->dir, strerror(errno));
		return NULL;
	}
	ctx->dir_real = ctx->dir_real_buf;
	return ctx->dir_real;
}

static int inside(const char *root, const char *path)
{
	size_t n = strlen(root);

	if (n == 1 && root[0] == '/')
		return path[0] == '/';
	return !strncmp(root, path, n) && path[n] == '/';
}

static ir_mapping *registered(qir_model *m, const char *real)
{
	ir_mapping *map;

	for (map = QIR_MPRIV(m)->maps; map; map = map->next)
		if (!strcmp(map->path, real))
			return map;
	return NULL;
}

static ir_mapping *register_map(qir_model *m, char *real, uint64_t size,
				 const char *what, qir_error *err)
{
	ir_mapping *map = calloc(1, sizeof(*map));

	if (!map) {
		free(real);
		qir_fail(err, QIR_ENOMEM, "tensor '%s': out of memory", what);
		return NULL;
	}
	map->path = real;
	map->size = size;
	map->next = QIR_MPRIV(m)->maps;
	QIR_MPRIV(m)->maps = map;
	return map;
}

ir_mapping *ir_ext_resolve(struct ir_load_ctx *ctx, const char *what,
			      const char *location, qir_error *err)
{
	const char *root;
	char *full, *real;
	ir_mapping *map;
	struct stat st;
	size_t n;

	if (!ctx->dir) {
		qir_fail(err, QIR_EUNSAFE,
			 "tensor '%s': external data '%s' not allowed: the model was loaded from a buffer without a folder",
			 what, location);
		return NULL;
	}
	if (location[0] == '/') {
		qir_fail(err, QIR_EUNSAFE,
			 "tensor '%s': external data location '%s' is absolute; it must be relative to the model's folder",
			 what, location);
		return NULL;
	}
	if (!ir_ext_location_ok(location)) {
		qir_fail(err, QIR_EUNSAFE,
			 "tensor '%s': external data location '%s' escapes the model's folder",
			 what, location);
		return NULL;
	}
	root = dir_real(ctx, err);
	if (!root)
		return NULL;
	n = strlen(ctx->dir) + strlen(location) + 2;
	full = malloc(n);
	if (!full) {
		qir_fail(err, QIR_ENOMEM, "tensor '%s': out of memory", what);
		return NULL;
	}
	snprintf(full, n, "%s/%s", ctx->dir, location);
	real = realpath(full, NULL);
	if (!real) {
		int e = errno;

		qir_fail(err, QIR_EIO,
			 "tensor '%s': external data file '%s' cannot be opened: %s",
			 what, full, strerror(e));
		free(full);
		return NULL;
	}
	free(full);
	if (!inside(root, real)) {
		qir_fail(err, QIR_EUNSAFE,
			 "tensor '%s': external data location '%s' escapes the model's folder (it resolves to '%s')",
			 what, location, real);
		free(real);
		return NULL;
	}
	map = registered(ctx->model, real);
	if (map) {
		free(real);
		return map;
	}
	if (stat(real, &st) < 0 || !S_ISREG(st.st_mode)) {
		qir_fail(err, QIR_EIO,
			 "tensor '%s': external data location '%s' is not a regular file",
			 what, location);
		free(real);
		return NULL;
	}
	/* realpath cannot see through a hard link: one made to a file
	 * outside the folder (CVE-2024-27318) looks like any other file. */
	if (st.st_nlink > 1) {
		qir_fail(err, QIR_EUNSAFE,
			 "tensor '%s': external data file '%s' has %lu hard links, so it may be a file outside the model's folder; copy it to a file of its own",
			 what, location, (unsigned long)st.st_nlink);
		free(real);
		return NULL;
	}
	return register_map(ctx->model, real, (uint64_t)st.st_size, what, err);
}

void ir_ext_free_maps(qir_model *m)
{
	ir_mapping *map = QIR_MPRIV(m)->maps, *next;

	for (; map; map = next) {
		next = map->next;
		ir_mapping_close(map);
		free(map->path);
		free(map);
	}
	QIR_MPRIV(m)->maps = NULL;
}

void ir_ext_writer_init(struct ir_ext_writer *w, const char *location)
{
	memset(w, 0, sizeof(*w));
	w->file.fd = -1;
	w->location = location;
}

static int pad_to(struct ir_ext_writer *w, uint64_t off)
{
	static const uint8_t zeros[QIR_EXT_ALIGN];

	while (w->size < off) {
		uint64_t n = off - w->size;

		if (n > sizeof(zeros))
			n = sizeof(zeros);
		if (ir_write_all(w->file.fd, zeros, n))
			return -1;
		w->size += n;
	}
	return 0;
}

#define QIR_EXT_CHUNK (64u << 20)

/* Writes len bytes; with from_map, drops each written chunk's pages
 * (clean pages of a private read-only file mapping: they are re-read
 * from the file if touched again, nothing is lost). */
int ir_write_streamed(int fd, const uint8_t *p, uint64_t len, int from_map)
{
	long pg = sysconf(_SC_PAGESIZE);

	while (len) {
		size_t n = len > QIR_EXT_CHUNK ? QIR_EXT_CHUNK : (size_t)len;

		if (ir_write_all(fd, p, n))
			return -1;
		if (from_map && pg > 0) {
			uintptr_t lo = ((uintptr_t)p + (uintptr_t)pg - 1) &
				       ~((uintptr_t)pg - 1);
			uintptr_t hi = ((uintptr_t)p + n) & ~((uintptr_t)pg - 1);

			if (hi > lo)
				madvise((void *)lo, hi - lo, MADV_DONTNEED);
		}
		p += n;
		len -= n;
	}
	return 0;
}

int ir_ext_writer_add(struct ir_ext_writer *w, const char *dir,
			const void *data, uint64_t len, int from_map,
			uint64_t *offset, qir_error *err)
{
	uint64_t off = (w->size + QIR_EXT_ALIGN - 1) / QIR_EXT_ALIGN *
		       QIR_EXT_ALIGN;

	if (!w->opened) {
		size_t n = strlen(dir) + strlen(w->location) + 2;
		char *path = malloc(n);
		int rc;

		if (!path)
			return qir_fail(err, QIR_ENOMEM, "out of memory");
		snprintf(path, n, "%s/%s", dir, w->location);
		rc = ir_atomic_open(&w->file, path, err);
		free(path);
		if (rc)
			return -1;
		w->opened = 1;
	}
	if (pad_to(w, off) ||
	    ir_write_streamed(w->file.fd, data, len, from_map))
		return qir_fail(err, QIR_EIO, "cannot write '%s': %s",
				w->file.final_path, strerror(errno));
	w->size += len;
	*offset = off;
	return 0;
}
