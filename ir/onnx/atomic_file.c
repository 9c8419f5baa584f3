/*
 * ir/onnx/atomic_file.c - outputs appear complete or not at all: written to
 * a temporary file in the target's folder (same file system, so the
 * final rename is atomic), fsync'd, then renamed over the target.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "onnx/onnx_io.h"

int ir_write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		/* Linux caps one write at about 2 GiB. */
		size_t chunk = len > (1u << 30) ? (1u << 30) : len;
		ssize_t w = write(fd, p, chunk);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int ir_atomic_open(struct ir_atomic_file *f, const char *final_path,
		     qir_error *err)
{
	char *copy1, *copy2;
	struct stat st;
	size_t n;
	mode_t mask;

	f->fd = -1;
	f->tmp_path = NULL;
	f->final_path = NULL;
	/* Found now, not at the final rename: by then a data file may
	 * already have been committed beside it. */
	if (stat(final_path, &st) == 0 && S_ISDIR(st.st_mode))
		return qir_fail(err, QIR_EIO, "cannot write '%s': it is a directory",
				final_path);
	copy1 = strdup(final_path);
	copy2 = strdup(final_path);
	f->final_path = strdup(final_path);
	if (!copy1 || !copy2 || !f->final_path)
		goto nomem;
	n = strlen(final_path) + 16;
	f->tmp_path = malloc(n);
	if (!f->tmp_path)
		goto nomem;
	snprintf(f->tmp_path, n, "%s/.%s.XXXXXX", dirname(copy1),
		 basename(copy2));
	free(copy1);
	free(copy2);
	f->fd = mkstemp(f->tmp_path);
	if (f->fd < 0) {
		int e = errno;

		free(f->tmp_path);
		f->tmp_path = NULL;
		return qir_fail(err, QIR_EIO, "cannot create a file beside '%s': %s",
				final_path, strerror(e));
	}
	mask = umask(0);
	umask(mask);
	if (fchmod(f->fd, 0666 & ~mask) < 0) {
		int e = errno;

		ir_atomic_abort(f);
		return qir_fail(err, QIR_EIO, "cannot set the mode of '%s': %s",
				final_path, strerror(e));
	}
	return 0;
nomem:
	free(copy1);
	free(copy2);
	free(f->final_path);
	free(f->tmp_path);
	f->final_path = f->tmp_path = NULL;
	return qir_fail(err, QIR_ENOMEM, "out of memory");
}

int ir_atomic_sync(struct ir_atomic_file *f, qir_error *err)
{
	if (fsync(f->fd) == 0)
		return 0;
	qir_fail(err, QIR_EIO, "cannot write '%s': %s", f->final_path,
		 strerror(errno));
	return -1;
}

int ir_atomic_commit(struct ir_atomic_file *f, qir_error *err)
{
	int e;

	if (fsync(f->fd) < 0)
		goto fail;
	if (close(f->fd) < 0) {
		f->fd = -1;
		goto fail;
	}
	f->fd = -1;
	if (rename(f->tmp_path, f->final_path) < 0)
		goto fail;
	free(f->tmp_path);
	free(f->final_path);
	f->tmp_path = f->final_path = NULL;
	return 0;
fail:
	e = errno;
	qir_fail(err, QIR_EIO, "cannot write '%s': %s", f->final_path,
		 strerror(e));
	ir_atomic_abort(f);
	return -1;
}

void ir_atomic_abort(struct ir_atomic_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (f->tmp_path)
		unlink(f->tmp_path);
	free(f->tmp_path);
	f->tmp_path = NULL;
	free(f->final_path);
	f->final_path = NULL;
}
