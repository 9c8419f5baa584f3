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
 * worker into its scratch (reused from recipe to recipe), then written
 * at its place: its big outputs with O_DIRECT (no page-cache page
 * zeroed, filled and written back: on ext4 most of what a fake mode
 * cost beyond its kernels), the small ones and the partial pages at
 * the ends of the big ones through the page cache. Where the file
 * system refuses O_DIRECT, or a recipe's big outputs exceed the
 * scratch's cap, the big outputs are computed straight into a mapping
 * of their place instead. Computed once, written once. Where the
 * outputs are small beside their inputs (real-mode codes, FLOAT16 from
 * FLOAT), a worker's direct writes are left to its write-behind thread
 * (ir/file/write_behind.c) while it computes the next recipe.
 * Each chunk's writeback is started as soon as it is written, so the
 * fsync before the rename finds little left.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "onnx/onnx_io.h"
#include "file/direct_io.h"
#include "file/mapfault.h"
#include "file/write_behind.h"

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
	/* A second descriptor of out, with O_DIRECT, for the big outputs
	 * of recipes; -1 when the file system refuses it, or when
	 * QOPT_NO_DIRECT_IO asks for the mappings. */
	int dio;
	int dio_refused;	/* atomic; set when dio refused a write */
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

/* Scratch of one worker, reused from recipe to recipe (page-aligned):
 * the outputs of a recipe that are not mapped, at most SCRATCH_MAX of
 * big ones plus the small ones (a worker's two buffers together:
 * struct worker_io). */
struct scratch {
	uint8_t *buf;
	size_t cap;
};

/* Outputs at least this big are big: written with O_DIRECT from
 * scratch (below), else computed straight into a mapping of their
 * place. Smaller ones go from scratch through the page cache. */
#define MAP_MIN (1u << 20)

/* The most scratch one worker holds for a recipe's big outputs: the
 * anonymous memory of a save is then at most threads x this (plus the
 * small outputs), whatever the model. The big outputs of a recipe over
 * it are mapped instead. 128 MiB holds an LLM's largest FLOAT16 layer
 * weights (4096 x 14336: 112 MiB); an embedding table is mapped. */
#define SCRATCH_MAX (128u << 20)

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

	if (!pg || len > SIZE_MAX - pg)
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

/* Where one output of a recipe goes. */
struct place {
	const struct ir_ext_piece *mine;	/* its piece, or NULL */
	void *map;		/* its mapping (to munmap), or NULL */
	size_t maplen;
	int direct;		/* in scratch, laid out for O_DIRECT */
};

/* Lays the unmapped outputs out in scratch from base (NULL: only
 * measures): big ones at the page offset of their file offset, so that
 * their whole pages are aligned in memory as in the file (what O_DIRECT
 * wants), small ones 64-byte aligned. The bytes needed. */
static uint64_t lay_out(struct place *o, size_t nout, void **dst,
			uint8_t *base, uint64_t pg)
{
	uint64_t at = 0;

	for (size_t j = 0; j < nout; j++) {
		if (!o[j].mine || o[j].map)
			continue;
		if (o[j].direct)
			at = ((at + pg - 1) & ~(pg - 1)) +
			     (o[j].mine->off & (pg - 1));
		else
			at = (at + 63) & ~(uint64_t)63;
		if (base)
			dst[j] = base + at;
		at += o[j].mine->len;
	}
	return at;
}

/* Scratch at least this big is aligned to it and asks for transparent
 * huge pages: a direct write's request then holds 2 MiB per segment,
 * where 4 KiB pages cap it near 1 MiB (the device's segment limit) and
 * the writes of a 1 GiB fake output took 1.5 x as long (ext4 on
 * virtio, docs/benchmarks.md). */
#define HUGE_MIN ((size_t)2 << 20)

static void want_huge(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
	if (n >= HUGE_MIN)
		(void)madvise(p, n & ~(HUGE_MIN - 1), MADV_HUGEPAGE);
#else
	(void)p;
	(void)n;
#endif
}

static void scratch_drop(struct scratch *sc)
{
	free(sc->buf);
	sc->buf = NULL;
	sc->cap = 0;
}

/* Page-aligned scratch of at least n bytes; its old bytes are not
 * kept. -1 when out of memory. */
static int scratch_grow(struct scratch *sc, uint64_t n, uint64_t pg)
{
	void *p;

	if (sc->cap >= n)
		return 0;
	if (n > SIZE_MAX)
		return -1;
	scratch_drop(sc);
	if (posix_memalign(&p, n >= HUGE_MIN ? HUGE_MIN : (size_t)pg,
			   (size_t)n))
		return -1;
	want_huge(p, (size_t)n);
	sc->buf = p;
	sc->cap = (size_t)n;
	return 0;
}

/* Where each output of the recipe that is a piece of this save goes
 * (o[j].mine: its piece): the big ones into scratch for O_DIRECT when
 * the output takes it and they fit SCRATCH_MAX, else each into its
 * mapping (dst[j]; NULL where it cannot be mapped: scratch then);
 * small ones into scratch. */
static void place_outputs(struct fill *f, struct place *o, size_t nout,
			  void **dst, uint64_t pg)
{
	int direct = f->dio >= 0 &&
		     !__atomic_load_n(&f->dio_refused, __ATOMIC_RELAXED);
	uint64_t big = 0;
	size_t j;

	for (j = 0; direct && j < nout; j++)
		if (o[j].mine && o[j].mine->len >= MAP_MIN) {
			o[j].direct = 1;
			big += o[j].mine->len + pg;
		}
	for (j = 0; j < nout; j++) {
		if (!o[j].mine || o[j].mine->len < MAP_MIN)
			continue;
		if (big > SCRATCH_MAX)
			o[j].direct = 0;
		if (!o[j].direct)
			dst[j] = map_out(f->out, f->path, o[j].mine->off,
					 o[j].mine->len, &o[j].map,
					 &o[j].maplen);
	}
}

/* Drops the recipe's mappings: -1 when the file system refused a page
 * of one (the save fails), else 0. */
static int unmap_outputs(struct fill *f, struct place *o, size_t nout,
			 int ok)
{
	int rc = 0;

	for (size_t j = 0; j < nout; j++) {
		if (!o[j].map)
			continue;
		if (fio_map_del(o[j].map) && ok && !rc)
			rc = fail_refused(f);
		munmap(o[j].map, o[j].maplen);
		if (ok && !rc)
			fio_start_writeback(f->out, o[j].mine->off,
					o[j].mine->len);
	}
	return rc;
}

/* A worker's scratch pair and write-behind thread. A recipe whose
 * scratch is at most half its inputs' bytes, each output's alignment
 * aside (codes, FLOAT16 from FLOAT: the two buffers then hold no more
 * than the input and a page per output) is written behind:
 * computed into one buffer while the thread writes the other, so the
 * worker computes while the device takes the last recipe's direct
 * writes. Bigger ones (fake modes, whose outputs are as big as their
 * inputs) use the first buffer and are written on the worker, after
 * the thread is idle. */
struct worker_io {
	struct scratch sc[2];
	int cur;		/* the buffer of the next write-behind */
	struct fio_wb *wb;	/* NULL: every write on the worker */
};

/* The scratch spans of recipe r's pieces (every piece of it: two
 * tensors sharing an output too); mapped ones are in place already. */
static size_t recipe_spans(struct fill *f, const void *r, struct place *o,
			   void **dst, struct fio_span *sp)
{
	size_t k = 0;

	for (size_t i = 0; i < f->npieces; i++) {
		const struct ir_ext_piece *q = &f->pieces[i];
		size_t qo, qn;

		if (!q->deferred || ir_deferred_recipe(q->deferred, &qo, &qn) != r ||
		    (o[qo].map && o[qo].mine == q))
			continue;
		sp[k].buf = dst[qo];
		sp[k].len = q->len;
		sp[k].off = q->off;
		sp[k].direct = o[qo].direct;
		k++;
	}
	return k;
}

/* The scratch for a recipe needing need bytes, and whether it is
 * written behind; NULL when out of memory or when the batch in flight
 * failed (f failed). */
static struct scratch *pick_scratch(struct fill *f, struct worker_io *io,
				    const struct ir_ext_piece *p, size_t nout,
				    uint64_t need, uint64_t pg, int *behind)
{
	struct scratch *sc;

	/* need counts each output's alignment too (up to a page for a
	 * direct one at its page offset): FLOAT16 from FLOAT is half its
	 * input plus that, wherever the piece lies. */
	*behind = io->wb && need && need <= SCRATCH_MAX / 2 &&
		  need <= ir_deferred_input_bytes(p->deferred) / 2 + nout * pg;
	if (!*behind && io->wb && fio_wb_wait(io->wb)) {
		fail_io(f, errno);
		return NULL;
	}
	/* The pair holds at most SCRATCH_MAX: one buffer up to it, or two
	 * up to half of it each. */
	sc = &io->sc[*behind ? io->cur : 0];
	if (*behind ? sc->cap > SCRATCH_MAX / 2 : io->sc[1].cap > 0)
		scratch_drop(*behind ? sc : &io->sc[1]);
	if (scratch_grow(sc, need, pg)) {
		fail_io(f, ENOMEM);
		return NULL;
	}
	return sc;
}

/* QOPT_TRACE_WRITE set: each recipe's way to the file said on stderr,
 * for the tests of which way the writer chose (as QOPT_TRACE_HASH). */
static void trace_recipe(const struct ir_ext_piece *p, const struct place *o,
			 size_t nout, int behind)
{
	static int trace = -1;
	const char *how = behind ? "written behind" : "written by its worker";

	if (__atomic_load_n(&trace, __ATOMIC_RELAXED) < 0)
		__atomic_store_n(&trace, getenv("QOPT_TRACE_WRITE") != NULL,
				 __ATOMIC_RELAXED);
	if (!__atomic_load_n(&trace, __ATOMIC_RELAXED))
		return;
	for (size_t j = 0; j < nout; j++)
		if (o[j].map)
			how = "computed into a mapping";
	fprintf(stderr, "qopt: write: recipe of '%s': %s\n",
		p->deferred->name ? p->deferred->name : "", how);
}

/* Evaluates the recipe of the deferred piece p, each output that is a
 * piece of this save computed into its mapping or into scratch, then
 * writes the scratch ones at their offsets, or hands them to the
 * write-behind thread. Outputs that are not pieces (inline ones) get
 * owned bytes from the same evaluation. */
static int put_recipe(struct fill *f, const struct ir_ext_piece *p,
		      struct worker_io *io)
{
	long sz = sysconf(_SC_PAGESIZE);
	uint64_t pg = sz > 0 ? (uint64_t)sz : 4096;
	size_t out, nout, ns;
	const void *r = ir_deferred_recipe(p->deferred, &out, &nout);
	struct place *o = calloc(nout, sizeof(*o));
	void **dst = calloc(nout, sizeof(*dst));
	struct fio_span *sp = calloc(f->npieces, sizeof(*sp));
	struct scratch *sc;
	qir_error e = { 0 };
	int rc = -1, behind;

	if (!o || !dst || !sp) {
		fail_io(f, ENOMEM);
		goto done;
	}
	for (size_t i = 0; i < f->npieces; i++) {
		const struct ir_ext_piece *q = &f->pieces[i];
		size_t qo, qn;

		if (q->deferred && ir_deferred_recipe(q->deferred, &qo, &qn) == r &&
		    !o[qo].mine)
			o[qo].mine = q;
	}
	place_outputs(f, o, nout, dst, pg);
	sc = pick_scratch(f, io, p, nout, lay_out(o, nout, dst, NULL, pg), pg,
			  &behind);
	if (!sc)
		goto done;
	lay_out(o, nout, dst, sc->buf, pg);
	if (ir_deferred_write(p->deferred, dst, &e)) {
		fail_err(f, &e);
		goto done;
	}
	ns = recipe_spans(f, r, o, dst, sp);
	if (behind ? fio_wb_post(io->wb, sp, ns) :
		     fio_spans_write(f->out, f->dio, &f->dio_refused, sp, ns)) {
		fail_io(f, errno);
		goto done;
	}
	if (behind)
		io->cur ^= 1;
	trace_recipe(p, o, nout, behind);
	rc = 0;
done:
	if (o && unmap_outputs(f, o, nout, !rc))
		rc = -1;
	free(o);
	free(dst);
	free(sp);
	return rc;
}

static void *worker(void *arg)
{
	struct fill *f = arg;
	struct worker_io io = { .cur = 0 };
	int rc;

	if (f->dio >= 0)
		io.wb = fio_wb_new(f->out, f->dio, &f->dio_refused);

	while (!__atomic_load_n(&f->failed, __ATOMIC_SEQ_CST)) {
		size_t i = __atomic_fetch_add(&f->next, 1, __ATOMIC_SEQ_CST);
		const struct chunk *c;

		if (i >= f->nchunks)
			break;
		c = &f->chunks[i];
		if (c->p->deferred) {
			if (put_recipe(f, c->p, &io))
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
		fio_start_writeback(f->out, c->p->off + c->at, c->len);
	}
	/* The last batch's bytes are in scratch: written before it goes. */
	if (io.wb && fio_wb_wait(io.wb))
		fail_io(f, errno);
	fio_wb_free(io.wb);
	free(io.sc[0].buf);
	free(io.sc[1].buf);
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

/* The O_DIRECT descriptor for the big outputs of recipes, or -1: none
 * needed (no recipe has one), refused by the file system (the mappings
 * then), or QOPT_NO_DIRECT_IO set to anything but 0 (tests of the
 * mapping path; comparisons). */
static int direct_fd(int out, const struct ir_ext_piece *p, size_t n)
{
	const char *no = getenv("QOPT_NO_DIRECT_IO");
	size_t i;

	if (no && strcmp(no, "0"))
		return -1;
	for (i = 0; i < n && !(p[i].deferred && p[i].len >= MAP_MIN); i++)
		;
	return i < n ? fio_direct_open(out) : -1;
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
	f.dio = direct_fd(out, pieces, n);
	nt = nthreads(threads, f.nchunks);
	/* The calling thread is one of the workers. */
	while (started < nt - 1 &&
	       pthread_create(&tid[started], NULL, worker, &f) == 0)
		started++;
	worker(&f);
	for (int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	free(f.chunks);
	if (f.dio >= 0)
		close(f.dio);
	pthread_mutex_destroy(&f.lock);
	if (f.failed) {
		if (err)
			*err = f.err;
		return -1;
	}
	return 0;
}
