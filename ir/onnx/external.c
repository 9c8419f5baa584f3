/*
 * ir/onnx/external.c - external tensor data.
 *
 * Loading: a location must stay inside the model's folder, by its
 * spelling (relative, no "..") and by what it resolves to (symlinks):
 * ONNX runtimes had path-traversal CVEs here (CVE-2022-25882,
 * CVE-2024-27318). Tensors in one file share one ir_mapping,
 * registered in the model and mapped lazily (ir_mapping_open).
 *
 * Saving: tensors are laid out in one data file at 4096-aligned
 * offsets (so each can be mmap'ed in place), which is created at its
 * final size through a temporary file renamed at the end like the
 * model itself, and filled by ir/onnx/data_fill.c.
 */
#include <errno.h>
#include <fcntl.h>
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

/* Where the open descriptor really lies (the kernel's view, after any
 * swap of a folder in the path) is still inside root. Without /proc
 * the realpath check made before the open stands alone. */
static int opened_inside(int fd, const char *root)
{
	char link[64], *where;
	int ok;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	where = realpath(link, NULL);
	if (!where)
		return 1;
	ok = inside(root, where);
	free(where);
	return ok;
}

ir_mapping *ir_ext_resolve(struct ir_load_ctx *ctx, const char *what,
			      const char *location, qir_error *err)
{
	const char *root, *kind;
	char *full, *real;
	ir_mapping *map;
	struct stat st;
	size_t n;
	int fd;

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
	/* Opened once here, without following a symlink at the last
	 * component; the file mapped later must be this one (device and
	 * inode), so a swap after the check is refused. */
	fd = fio_open_regular(real, O_NOFOLLOW, &st, &kind);
	if (fd < 0) {
		if (kind)
			qir_fail(err, QIR_EIO,
				 "tensor '%s': external data location '%s' is %s, not a regular file",
				 what, location, kind);
		else
			qir_fail(err, QIR_EIO,
				 "tensor '%s': external data file '%s' cannot be opened: %s",
				 what, location, strerror(errno));
		free(real);
		return NULL;
	}
	if (!opened_inside(fd, root)) {
		close(fd);
		qir_fail(err, QIR_EUNSAFE,
			 "tensor '%s': external data location '%s' escapes the model's folder (it changed while being opened)",
			 what, location);
		free(real);
		return NULL;
	}
	close(fd);
	/* realpath cannot see through a hard link: one made to a file
	 * outside the folder (CVE-2024-27318) looks like any other file. */
	if (st.st_nlink > 1 && !ctx->links_ok) {
		qir_fail(err, QIR_EUNSAFE,
			 "tensor '%s': external data file '%s' has %lu hard links, so it may be a file outside the model's folder; copy it to a file of its own",
			 what, location, (unsigned long)st.st_nlink);
		free(real);
		return NULL;
	}
	map = register_map(ctx->model, real, (uint64_t)st.st_size, what, err);
	if (map) {
		map->dev = st.st_dev;
		map->ino = st.st_ino;
	}
	return map;
}

int ir_ext_is_source(qir_model *m, const char *path)
{
	ir_mapping *map;
	struct stat st;

	if (stat(path, &st) < 0)
		return 0;
	for (map = QIR_MPRIV(m)->maps; map; map = map->next)
		if (map->dev == st.st_dev && map->ino == st.st_ino)
			return 1;
	return 0;
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

#define QIR_EXT_CHUNK (64u << 20)

/* Writes len bytes; with from_map, drops each written chunk's pages
 * (clean pages of a private read-only file mapping: they are re-read
 * from the file if touched again, nothing is lost). Each chunk's
 * writeback is started as it is written. */
int ir_write_streamed(int fd, const uint8_t *p, uint64_t len, int from_map)
{
	long pg = sysconf(_SC_PAGESIZE);
	off_t off = lseek(fd, 0, SEEK_CUR);

	while (len) {
		size_t n = len > QIR_EXT_CHUNK ? QIR_EXT_CHUNK : (size_t)len;

		if (fio_write_all(fd, p, n))
			return -1;
		if (off >= 0) {
			fio_start_writeback(fd, (uint64_t)off, n);
			off += (off_t)n;
		}
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

uint64_t ir_ext_writer_place(struct ir_ext_writer *w, uint64_t len)
{
	uint64_t off = (w->size + QIR_EXT_ALIGN - 1) / QIR_EXT_ALIGN *
		       QIR_EXT_ALIGN;

	w->size = off + len;
	return off;
}

int ir_ext_writer_create(struct ir_ext_writer *w, const char *dir,
			   qir_error *err)
{
	size_t n = strlen(dir) + strlen(w->location) + 2;
	char *path = malloc(n), msg[sizeof(err->msg)];
	int rc;

	if (!path)
		return qir_fail(err, QIR_ENOMEM, "out of memory");
	snprintf(path, n, "%s/%s", dir, w->location);
	rc = fio_atomic_open(&w->file, path, msg, sizeof(msg));
	free(path);
	if (rc)
		return ir_fail_file(err, rc, msg);
	w->opened = 1;
	if (ftruncate(w->file.fd, (off_t)w->size) < 0)
		return qir_fail(err, QIR_EIO, "cannot write '%s': %s",
				w->file.final_path, strerror(errno));
	return 0;
}
