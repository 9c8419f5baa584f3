/*
 * ir/onnx/data_fill.c - the data file is laid out first, then filled in
 * parallel.
 *
 * Every tensor's offset is known before a byte is written (sizes follow
 * from dtype and dims), so the file is sized once and each piece goes
 * straight to its place with positioned calls: no shared file position,
 * no padding written (the gaps between aligned tensors are holes that
 * read as zeros), nothing written twice. Pieces are cut into chunks
 * that the workers (qir_save_opts.threads; by default one per online
 * CPU, as the kernels use) take in file order. Bytes that are also in
 * a file (the input's external data, the spill file) are copied inside
 * the kernel (copy_file_range), keeping the source's holes; the rest is
 * written from memory. A deferred tensor's recipe is evaluated by one
 * worker straight into the file: its big outputs into a mapping of
 * their place, small ones into the worker's scratch (reused from recipe
 * to recipe) then written at their place: computed once, written once.
 * Each chunk's writeback is started as soon as it is written, so the
 * fsync before the rename finds little left.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "onnx/onnx_io.h"
#include "file/mapfault.h"

/* Small enough to spread a few big tensors over the workers, large
 * enough that a call's overhead does not show. */
#define FILL_CHUNK (16u << 20)
#define FILL_MAX_THREADS 16

struct chunk {
	const struct ir_ext_piece *p;
	uint64_t at;		/* offset inside the piece */
	uint64_t len;
};

struct fill {
	int out;
	const struct ir_ext_piece *pieces;
	size_t npieces;
	struct chunk *chunks;
	size_t nchunks;
	size_t next;		/* next chunk to take (atomic) */
	int failed;		/* atomic; set with the first error */
	pthread_mutex_t lock;	/* guards err */
	const char *path;
	qir_error err;		/* the first error */
};

static void fail_io(struct fill *f, int e)
{
	pthread_mutex_lock(&f->lock);
	if (!f->failed)
		qir_fail(&f->err, QIR_EIO, "cannot write '%s': %s", f->path,
			 strerror(e ? e : EIO));
	__atomic_store_n(&f->failed, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&f->lock);
}

static void fail_err(struct fill *f, const qir_error *e)
{
	pthread_mutex_lock(&f->lock);
	if (!f->failed)
		f->err = *e;
	__atomic_store_n(&f->failed, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&f->lock);
}

/* A page of a mapped output the file system refused (a full btrfs
 * reserves again at the first store): the stores went nowhere. */
static int fail_refused(struct fill *f)
{
	qir_error e = { 0 };

	qir_fail(&e, QIR_EIO,
		 "%s: %s (the filesystem refused a page of the mapped output)",
		 f->path, strerror(ENOSPC));
	fail_err(f, &e);
	return -1;
}

/* An input file (external data) that shrank while copied. */
static void fail_changed(struct fill *f, const char *src)
{
	qir_error e = { 0 };
	char msg[sizeof(e.msg)];

	fio_map_changed(msg, sizeof(msg), src);
	qir_fail(&e, QIR_EIO, "%s", msg);
	fail_err(f, &e);
}

/* Writes [p, p + len) at off; pages of a read-only file mapping are
 * dropped once written (they are re-read from the file if needed). */
static int put_mem(int out, const uint8_t *p, uint64_t len, uint64_t off,
		   int from_map)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), lo, hi;

	if (fio_pwrite_all(out, p, len, off))
		return -1;
	if (from_map && pg) {
		lo = ((uintptr_t)p + pg - 1) & ~(pg - 1);
		hi = ((uintptr_t)p + len) & ~(pg - 1);
		if (hi > lo)
			(void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
	}
	return 0;
}

/* copy_file_range of len bytes from in at in_off to out at off: 0, -1
 * with errno, or 1 when the kernel cannot do it here (no such call,
 * across file systems) and nothing was copied. */
static int put_kernel(int out, int in, uint64_t in_off, uint64_t len,
		      uint64_t off)
{
#ifdef __linux__
	loff_t ip = (loff_t)in_off, op = (loff_t)off;
	int first = 1;

	while (len) {
		ssize_t c = copy_file_range(in, &ip, out, &op, (size_t)len, 0);

		if (c < 0 && errno == EINTR)
			continue;
		if (c < 0 && first && (errno == ENOSYS || errno == EXDEV ||
				       errno == EINVAL || errno == EOPNOTSUPP))
			return 1;
		if (c <= 0) {
			/* The source ended early: it shrank. */
			if (c == 0)
				errno = ENODATA;
			return -1;
		}
		first = 0;
		len -= (uint64_t)c;
	}
	return 0;
#else
	(void)out;
	(void)in;
	(void)in_off;
	(void)len;
	(void)off;
	return 1;
#endif
}

/* No data past pos is a hole to the end only if the file still
 * reaches end; else it was truncated under us (errno ENODATA). */
static int shrank(int in, uint64_t end)
{
	struct stat st;

	if (fstat(in, &st) == 0 && (uint64_t)st.st_size >= end)
		return 0;
	errno = ENODATA;
	return 1;
}

/* A chunk of bytes that are [src_off, +len) of an open file in, also
 * mapped at data: the file's data segments are copied, its holes left
 * as holes (the output was sized with holes everywhere). Where the
 * file system cannot say where holes are, everything is copied. */
static int put_file(int out, int in, const uint8_t *data, uint64_t src_off,
		    uint64_t len, uint64_t off, int sparse)
{
	uint64_t pos = src_off, end = src_off + len;

	while (pos < end) {
		uint64_t dat = pos, hol = end;
		int rc;

		if (sparse) {
			off_t d = lseek(in, (off_t)pos, SEEK_DATA), h;

			if (d < 0 && errno != ENXIO)
				sparse = 0;	/* no hole support */
			else if (d < 0 && shrank(in, end))
				return -1;
			else if (d < 0 || (uint64_t)d >= end)
				break;		/* a hole to the end */
			else {
				dat = (uint64_t)d;
				h = lseek(in, (off_t)dat, SEEK_HOLE);
				hol = h < 0 || (uint64_t)h > end ? end :
				      (uint64_t)h;
			}
		}
		rc = put_kernel(out, in, dat, hol - dat, off + (dat - src_off));
		if (rc == 1)
			rc = put_mem(out, data + (dat - src_off), hol - dat,
				     off + (dat - src_off), 1);
		if (rc)
			return -1;
		pos = hol;
	}
	return 0;
}

/* The source file of an external piece, checked to be the one mapped
 * at load (device and inode); -1 to copy from the mapping instead. */
static int open_source(const ir_mapping *src)
{
	const char *kind;
	struct stat st;
	int in = fio_open_regular(src->path, O_NOFOLLOW | O_CLOEXEC, &st,
				  &kind);

	if (in >= 0 && (st.st_dev != src->dev || st.st_ino != src->ino)) {
		close(in);
		in = -1;
	}
	return in;
}

/* 0, -1 with errno, or 2 when the source file shrank while read. */
static int put_chunk(int out, const struct chunk *c)
{
	const struct ir_ext_piece *p = c->p;
	const uint8_t *data = (const uint8_t *)p->data + c->at;
	uint64_t off = p->off + c->at;
	int rc, in;

	if (p->fd >= 0)
		return put_file(out, p->fd, data, p->fd_off + c->at, c->len,
				off, 0);
	if (p->src && (in = open_source(p->src)) >= 0) {
		rc = put_file(out, in, data, p->src_off + c->at, c->len, off,
			      1);
		if (rc && errno == ENODATA)
			rc = 2;
		close(in);
		return rc;
	}
	return put_mem(out, data, c->len, off, p->from_map || p->src);
}

/* Starts writing [off, off + n) of fd to disk without waiting; a hint
 * only (the fsync before the rename does whatever is left). */
static void start_writeback(int fd, uint64_t off, uint64_t n)
{
#ifdef SYNC_FILE_RANGE_WRITE
	(void)sync_file_range(fd, (off_t)off, (off_t)n, SYNC_FILE_RANGE_WRITE);
#else
	(void)fd;
	(void)off;
	(void)n;
#endif
}

/* Scratch of one worker, reused from recipe to recipe: at most the
 * outputs of the biggest recipe it evaluates that are not mapped. */
struct scratch {
	uint8_t *buf;
	size_t cap;
};

/* Outputs at least this big are computed straight into the data file
 * through a shared mapping of their place: the kernel's stores land in
 * the page cache, where scratch + pwrite stored them once and then
 * copied them (a third of the memory traffic of an NVFP4 recipe's
 * output). Smaller ones are not worth a mapping. */
#define MAP_MIN (1u << 20)

/* A writable mapping of [off, off + len) of out, or NULL (the caller
 * then uses scratch). The blocks are allocated first: a store into a
 * shared mapping that finds the disk full is a SIGBUS, not an error
 * return, so nothing is mapped where fallocate cannot promise room (a
 * file system without it, or a full disk, where pwrite then reports
 * the error). *base and *maplen receive what to munmap. */
static uint8_t *map_out(int out, const char *path, uint64_t off, uint64_t len,
			void **base, size_t *maplen)
{
#ifdef __linux__
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE), lo;
	void *p;

	if (len < MAP_MIN || !pg || len > SIZE_MAX - pg)
		return NULL;
	lo = off & ~(pg - 1);
	if (fallocate(out, 0, (off_t)off, (off_t)len) < 0)
		return NULL;
	p = mmap(NULL, (size_t)(len + off - lo), PROT_READ | PROT_WRITE,
		 MAP_SHARED, out, (off_t)lo);
	if (p == MAP_FAILED)
		return NULL;
	/* Even then a copy-on-write file system (btrfs) may refuse a page
	 * at its first store: the fault is caught (ir/file/mapfault.c) and
	 * the save fails when the mapping is dropped. */
	fio_map_add(p, (size_t)(len + off - lo), PROT_READ | PROT_WRITE, path,
		    FIO_MAP_OUTPUT);
#ifdef MADV_POPULATE_WRITE
	/* One call makes every page writable; page by page, the first
	 * store to each would fault (Linux 5.14; before, they still do). */
	(void)madvise(p, (size_t)(len + off - lo), MADV_POPULATE_WRITE);
#endif
	*base = p;
	*maplen = (size_t)(len + off - lo);
	return (uint8_t *)p + (off - lo);
#else
	(void)out;
	(void)path;
	(void)off;
	(void)len;
	(void)base;
	(void)maplen;
	return NULL;
#endif
}

/* Where each output of the recipe that is a piece of this save goes:
 * its mapping (map[j] set), else a region of the worker's scratch.
 * mine[j]: the output's piece. -1 when out of memory. */
static int place_outputs(int out, const char *path,
			 const struct ir_ext_piece **mine,
			 size_t nout, void **dst, void **map, size_t *maplen,
			 struct scratch *sc)
{
	uint64_t total = 0, at = 0;
	size_t j;

	for (j = 0; j < nout; j++)
		if (mine[j] && !(dst[j] = map_out(out, path, mine[j]->off,
						  mine[j]->len, &map[j],
						  &maplen[j])))
			total += (mine[j]->len + 63) & ~(uint64_t)63;
	if (total > SIZE_MAX)
		return -1;
	if (sc->cap < total) {
		uint8_t *grown = realloc(sc->buf, (size_t)total);

		if (!grown)
			return -1;
		sc->buf = grown;
		sc->cap = (size_t)total;
	}
	for (j = 0; j < nout; j++)
		if (mine[j] && !map[j]) {
			dst[j] = sc->buf + at;
			at += (mine[j]->len + 63) & ~(uint64_t)63;
		}
	return 0;
}

/* Evaluates the recipe of the deferred piece p, each output that is a
 * piece of this save computed into its mapping or into scratch, then
 * writes the scratch ones at their offsets (every piece of the recipe:
 * two tensors sharing an output too). Outputs that are not pieces
 * (inline ones) get owned bytes from the same evaluation. */
static int put_recipe(struct fill *f, const struct ir_ext_piece *p,
		      struct scratch *sc)
{
	size_t out, nout, j;
	const void *r = ir_deferred_recipe(p->deferred, &out, &nout);
	const struct ir_ext_piece **mine = calloc(nout, sizeof(*mine));
	void **dst = calloc(nout, sizeof(*dst));
	void **map = calloc(nout, sizeof(*map));
	size_t *maplen = calloc(nout, sizeof(*maplen));
	qir_error e = { 0 };
	int rc = -1;

	if (!mine || !dst || !map || !maplen) {
		fail_io(f, ENOMEM);
		goto done;
	}
	for (size_t i = 0; i < f->npieces; i++) {
		const struct ir_ext_piece *q = &f->pieces[i];
		size_t qo, qn;

		if (q->deferred && ir_deferred_recipe(q->deferred, &qo, &qn) == r &&
		    !mine[qo])
			mine[qo] = q;
	}
	if (place_outputs(f->out, f->path, mine, nout, dst, map, maplen,
			  sc)) {
		fail_io(f, ENOMEM);
		goto done;
	}
	if (ir_deferred_write(p->deferred, dst, &e)) {
		fail_err(f, &e);
		goto done;
	}
	for (size_t i = 0; i < f->npieces; i++) {
		const struct ir_ext_piece *q = &f->pieces[i];
		size_t qo, qn;

		if (!q->deferred || ir_deferred_recipe(q->deferred, &qo, &qn) != r ||
		    (map[qo] && mine[qo] == q))
			continue;
		if (fio_pwrite_all(f->out, dst[qo], q->len, q->off)) {
			fail_io(f, errno);
			goto done;
		}
		start_writeback(f->out, q->off, q->len);
	}
	rc = 0;
done:
	for (j = 0; map && j < nout; j++)
		if (map[j]) {
			if (fio_map_del(map[j]) && !rc)
				rc = fail_refused(f);
			munmap(map[j], maplen[j]);
			if (!rc)
				start_writeback(f->out, mine[j]->off,
						mine[j]->len);
		}
	free(mine);
	free(dst);
	free(map);
	free(maplen);
	return rc;
}

static void *worker(void *arg)
{
	struct fill *f = arg;
	struct scratch sc = { 0 };

	int rc;

	while (!__atomic_load_n(&f->failed, __ATOMIC_SEQ_CST)) {
		size_t i = __atomic_fetch_add(&f->next, 1, __ATOMIC_SEQ_CST);
		const struct chunk *c;

		if (i >= f->nchunks)
			break;
		c = &f->chunks[i];
		if (c->p->deferred) {
			if (put_recipe(f, c->p, &sc))
				break;
			continue;
		}
		rc = put_chunk(f->out, c);
		if (rc == 2)
			fail_changed(f, c->p->src->path);
		else if (rc)
			fail_io(f, errno);
		if (rc)
			break;
		start_writeback(f->out, c->p->off + c->at, c->len);
	}
	free(sc.buf);
	return NULL;
}

/* A deferred piece whose recipe an earlier piece has: written with it. */
static int sibling(const struct ir_ext_piece *p, size_t i)
{
	size_t o, n;
	const void *r;

	if (!p[i].deferred)
		return 0;
	r = ir_deferred_recipe(p[i].deferred, &o, &n);
	for (size_t k = 0; k < i; k++)
		if (p[k].deferred &&
		    ir_deferred_recipe(p[k].deferred, &o, &n) == r)
			return 1;
	return 0;
}

static size_t cut(const struct ir_ext_piece *p, size_t n, struct chunk *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (p[i].deferred) {
			/* One evaluation writes the recipe's pieces. */
			if (!sibling(p, i)) {
				if (out) {
					out[k].p = &p[i];
					out[k].at = 0;
					out[k].len = p[i].len;
				}
				k++;
			}
			continue;
		}
		for (uint64_t at = 0; at < p[i].len; at += FILL_CHUNK) {
			if (out) {
				out[k].p = &p[i];
				out[k].at = at;
				out[k].len = p[i].len - at > FILL_CHUNK ?
					     FILL_CHUNK : p[i].len - at;
			}
			k++;
		}
	}
	return k;
}

/* want: the caller's count, 0 for one per online CPU. */
static int nthreads(int want, size_t nchunks)
{
	long n = want > 0 ? want : sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		n = 1;
	if (n > FILL_MAX_THREADS)
		n = FILL_MAX_THREADS;
	return (size_t)n > nchunks ? (int)nchunks : (int)n;
}

int ir_ext_fill(int out, const struct ir_ext_piece *pieces, size_t n,
		int threads, const char *path, qir_error *err)
{
	struct fill f = { .out = out, .pieces = pieces, .npieces = n,
			  .path = path };
	pthread_t tid[FILL_MAX_THREADS];
	int nt, started = 0;

	f.nchunks = cut(pieces, n, NULL);
	if (!f.nchunks)
		return 0;
	f.chunks = malloc(f.nchunks * sizeof(*f.chunks));
	if (!f.chunks)
		return qir_fail(err, QIR_ENOMEM, "out of memory");
	pthread_mutex_init(&f.lock, NULL);
	cut(pieces, n, f.chunks);
	nt = nthreads(threads, f.nchunks);
	/* The calling thread is one of the workers. */
	while (started < nt - 1 &&
	       pthread_create(&tid[started], NULL, worker, &f) == 0)
		started++;
	worker(&f);
	for (int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	free(f.chunks);
	pthread_mutex_destroy(&f.lock);
	if (f.failed) {
		if (err)
			*err = f.err;
		return -1;
	}
	return 0;
}
