/*
 * tests/ir/write-behind.c - ir/file/write_behind.c, the writer's
 * write-behind thread: batches land at their offsets, whole pages
 * through O_DIRECT where the file system takes it; a post returns only
 * once the batch before is written (the poster reuses that buffer
 * next); a failed batch is reported by the next post and by the wait,
 * and the batch after it is not written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "file/direct_io.h"
#include "file/write_behind.h"
#include "../lib/io-util.h"
#include "../lib/tap.h"

#define PG 4096
#define SPAN (3 * PG + 100)	/* whole pages and a partial tail */

/* Buffer b of a pair, filled with byte v at the page offset of off. */
static uint8_t *fill(uint8_t *b, int v, uint64_t off)
{
	uint8_t *p = b + (off % PG);

	memset(p, v, SPAN);
	return p;
}

static int holds(const uint8_t *d, size_t n, uint64_t off, int v)
{
	if (off + SPAN > n)
		return 0;
	for (size_t i = 0; i < SPAN; i++)
		if (d[off + i] != v)
			return 0;
	return 1;
}

/* Four batches from two buffers, as the writer alternates them: each
 * buffer is overwritten as soon as the post after its batch returns. */
static void batches(const char *dir)
{
	char *path = io_path(dir, "out");
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644), dfd, refused = 0;
	uint8_t *buf[2], *d;
	struct fio_wb *w;
	size_t n = 0;
	int ok = 1;

	if (fd < 0 || ftruncate(fd, 8 * PG * 4) ||
	    posix_memalign((void **)&buf[0], PG, 5 * PG) ||
	    posix_memalign((void **)&buf[1], PG, 5 * PG))
		abort();
	dfd = fio_direct_open(fd);
	tap_diag("O_DIRECT %s here", dfd >= 0 ? "taken" : "refused");
	w = fio_wb_new(fd, dfd, &refused);
	tap_ok(w != NULL, "a write-behind thread starts");
	for (int i = 0; w && i < 4; i++) {
		/* Batch i at 8 pages x i, plus 100 bytes (unaligned). */
		uint64_t off = (uint64_t)i * 8 * PG + (i % 2 ? 100 : 0);
		struct fio_span s = { fill(buf[i % 2], 'a' + i, off), SPAN, off,
				      1 };

		ok &= fio_wb_post(w, &s, 1) == 0;
	}
	tap_ok(ok, "four batches posted from two buffers");
	tap_ok(w && fio_wb_wait(w) == 0, "the wait finds them written");
	fio_wb_free(w);
	if (dfd >= 0)
		close(dfd);
	close(fd);
	d = io_read(path, &n);
	for (int i = 0; i < 4; i++)
		tap_ok(holds(d, n, (uint64_t)i * 8 * PG + (i % 2 ? 100 : 0),
			     'a' + i),
		       "batch %d's bytes at its offset, not the batch after it "
		       "(same buffer)", i);
	free(d);
	free(buf[0]);
	free(buf[1]);
}

/* A batch to a descriptor open read-only fails (EBADF). */
static void failure(const char *dir)
{
	char *path = io_path(dir, "ro");
	int fd, refused = 0, rc;
	uint8_t *b, *d;
	struct fio_wb *w;
	struct fio_span s;
	size_t n = 0;

	io_write(path, "", 0);
	fd = open(path, O_RDONLY);
	if (fd < 0 || posix_memalign((void **)&b, PG, 5 * PG))
		abort();
	w = fio_wb_new(fd, -1, &refused);
	s = (struct fio_span){ fill(b, 'x', 0), SPAN, 0, 0 };
	tap_ok(w && fio_wb_post(w, &s, 1) == 0,
	       "the failing batch is posted (it fails on the thread)");
	errno = 0;
	rc = w ? fio_wb_post(w, &s, 1) : 0;
	tap_ok(rc == -1 && errno == EBADF,
	       "the next post reports it with its errno (%s)", strerror(errno));
	errno = 0;
	rc = w ? fio_wb_wait(w) : 0;
	tap_ok(rc == -1 && errno == EBADF, "so does the wait");
	tap_ok(w && fio_wb_post(w, NULL, 0) == -1,
	       "and every post after: the batches stop at the first error");
	fio_wb_free(w);
	close(fd);
	d = io_read(path, &n);
	tap_ok(n == 0, "nothing was written");
	free(d);
	free(b);
}

int main(void)
{
	const char *dir = io_mkdir("write-behind");
	char keep[4096];

	snprintf(keep, sizeof(keep), "%s", dir);
	batches(keep);
	failure(keep);
	return tap_done();
}
