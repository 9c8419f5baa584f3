/*
 * ir/model/spill.c - moving owned tensor bytes out of anonymous memory.
 *
 * A pass that produces big tensors one after another (the quantized
 * weights of nvfp4-weights) would otherwise hold all of them in the
 * heap until the model is saved. qir_tensor_spill writes a tensor's
 * bytes to the model's spill file, an unlinked temporary file (see
 * spill_dir) shared by every tensor of the model and
 * appended at 4096-aligned offsets, frees the heap copy and maps the
 * bytes back read-only. The pages then belong to the page cache: the
 * kernel can drop or write them back under pressure, and the writer
 * drops them from the process as it streams them out (as it does for
 * external data), so the resident set stays near one tensor.
 *
 * The tensor keeps QIR_STORE_OWNED: it still owns its bytes, which go
 * away with it (the mapping is the tensor's; the file's blocks are
 * freed when the last mapping of the unlinked file is gone).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <pthread.h>
#include <unistd.h>

#include "model/internal.h"
#include "file/write_all.h"

/* Tensors start on a page (mmap needs it) and at least 4096 bytes. */
static uint64_t spill_align(void)
{
	long pg = sysconf(_SC_PAGESIZE);

	return pg > 4096 ? (uint64_t)pg : 4096u;
}

struct ir_spill {
	uint64_t id;	/* unique in the process: a tensor names its file */
	int fd;
	uint64_t size;	/* bytes written so far (end of the last tensor) */
	char *dir;	/* for messages */
};

static int open_tmp(const char *dir)
{
	size_t n = strlen(dir) + sizeof("/qopt-spill-XXXXXX");
	char *path;
	int fd;

#ifdef O_TMPFILE
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
#endif
	/* No O_TMPFILE (old kernel, some file systems): create, unlink. */
	path = malloc(n);
	if (!path) {
		errno = ENOMEM;
		return -1;
	}
	snprintf(path, n, "%s/qopt-spill-XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	free(path);
	return fd;
}

/* QOPT_SPILL_DIR, else TMPDIR, else /var/tmp: /tmp is often a tmpfs,
 * where spilled bytes would stay in memory. */
static const char *spill_dir(void)
{
	const char *env[] = { "QOPT_SPILL_DIR", "TMPDIR" };
	size_t i;

	for (i = 0; i < sizeof(env) / sizeof(env[0]); i++) {
		const char *d = getenv(env[i]);

		if (d && *d)
			return d;
	}
	return "/var/tmp";
}

static struct ir_spill *spill_get(qir_model *m, qir_error *err)
{
	struct ir_model_priv *mp = QIR_MPRIV(m);
	const char *dir = spill_dir();
	struct ir_spill *s;

	if (mp->spill)
		return mp->spill;
	s = calloc(1, sizeof(*s));
	if (!s || !(s->dir = strdup(dir))) {
		free(s);
		qir_fail(err, QIR_ENOMEM, "out of memory");
		return NULL;
	}
	{
		static uint64_t next_id;

		s->id = __atomic_add_fetch(&next_id, 1, __ATOMIC_RELAXED);
	}
	s->fd = open_tmp(dir);
	if (s->fd < 0) {
		qir_fail(err, QIR_EIO,
			 "cannot create a spill file in '%s' (set "
			 "QOPT_SPILL_DIR): %s",
			 dir, strerror(errno));
		free(s->dir);
		free(s);
		return NULL;
	}
	mp->spill = s;
	return s;
}

static pthread_mutex_t spill_lock = PTHREAD_MUTEX_INITIALIZER;

/* Writes bytes (t->nbytes of them) at the end of m's spill file and
 * maps them back as t's data. t's owned bytes, if any, are the
 * caller's to free. */
static int spill_put(qir_model *m, qir_tensor *t, const void *bytes,
		     qir_error *err)
{
	struct ir_tensor_priv *p = QIR_TPRIV(t);
	struct ir_spill *s;
	uint64_t off;
	void *addr;

	if (!m)
		return qir_fail(err, QIR_EUSAGE,
				"tensor '%s': spilling needs the model",
				t->name ? t->name : "");
	/* Deferred tensors may be evaluated (and spilled) on the
	 * writer's workers: the file and its end are taken under a lock;
	 * the write itself goes to a range no one else was given. */
	pthread_mutex_lock(&spill_lock);
	s = spill_get(m, err);
	if (s) {
		off = (s->size + spill_align() - 1) / spill_align() *
		      spill_align();
		s->size = off + t->nbytes;
	}
	pthread_mutex_unlock(&spill_lock);
	if (!s)
		return -1;
	if (t->nbytes > SIZE_MAX || fio_pwrite_all(s->fd, bytes, t->nbytes, off))
		return qir_fail(err, QIR_EIO,
				"tensor '%s': cannot spill %" PRIu64
				" bytes to a temporary file in '%s': %s",
				t->name ? t->name : "", t->nbytes, s->dir,
				strerror(errno));
	/* A failed write leaves a gap in the file: harmless. */
	addr = mmap(NULL, (size_t)t->nbytes, PROT_READ, MAP_SHARED, s->fd,
		    (off_t)off);
	if (addr == MAP_FAILED)
		return qir_fail(err, QIR_EIO,
				"tensor '%s': cannot map its spilled bytes: %s",
				t->name ? t->name : "", strerror(errno));
	p->data = addr;
	p->spill_addr = addr;
	p->spill_len = (size_t)t->nbytes;
	p->spill_off = off;
	p->spill_id = s->id;
	return 0;
}

int qir_tensor_spill(qir_model *m, qir_tensor *t, qir_error *err)
{
	struct ir_tensor_priv *p = QIR_TPRIV(t);

	if (t->storage != QIR_STORE_OWNED || !p->owned || !t->nbytes ||
	    t->dtype == QIR_STRING)
		return 0;
	if (spill_put(m, t, p->owned, err))
		return -1;
	free(p->owned);
	p->owned = NULL;
	return 0;
}

qir_tensor *qir_tensor_new_spilled(qir_model *m, const char *name, int dtype,
				   int rank, const int64_t *dims,
				   const void *bytes, qir_error *err)
{
	qir_tensor *t;

	if (dtype == QIR_STRING) {
		qir_fail(err, QIR_EUSAGE, "tensor '%s': STRING tensors cannot "
			 "be spilled", name ? name : "");
		return NULL;
	}
	t = ir_tensor_shell(name, dtype, rank, dims, err);
	if (!t)
		return NULL;
	if (!t->nbytes) {
		qir_tensor_free(t);
		return qir_tensor_new(name, dtype, rank, dims, err);
	}
	if (!bytes || spill_put(m, t, bytes, err)) {
		if (!bytes)
			qir_fail(err, QIR_EUSAGE, "tensor '%s': no bytes",
				 t->name);
		qir_tensor_free(t);
		return NULL;
	}
	t->storage = QIR_STORE_OWNED;
	return t;
}

int ir_spill_share(qir_model *m, qir_tensor *dst, const qir_tensor *src,
		   qir_error *err)
{
	const struct ir_tensor_priv *p = QIR_TPRIV(src);
	struct ir_tensor_priv *q = QIR_TPRIV(dst);
	const struct ir_spill *s = m ? QIR_MPRIV(m)->spill : NULL;
	void *addr;

	if (s && p->spill_id == s->id) {
		/* A second mapping of the same pages: nothing copied. */
		addr = mmap(NULL, p->spill_len, PROT_READ, MAP_SHARED, s->fd,
			    (off_t)p->spill_off);
		if (addr == MAP_FAILED)
			return qir_fail(err, QIR_EIO,
					"tensor '%s': cannot map its spilled bytes: %s",
					src->name, strerror(errno));
		q->data = addr;
		q->spill_addr = addr;
		q->spill_len = p->spill_len;
		q->spill_off = p->spill_off;
		q->spill_id = p->spill_id;
		return 0;
	}
	addr = malloc(p->spill_len ? p->spill_len : 1);
	if (!addr)
		return qir_fail(err, QIR_ENOMEM, "out of memory");
	memcpy(addr, p->spill_addr, p->spill_len);
	q->owned = addr;
	q->data = addr;
	return 0;
}

int qir_tensor_spilled(const qir_tensor *t)
{
	return t->priv && QIR_TPRIV(t)->spill_addr != NULL;
}

int ir_spill_source(const qir_model *m, const qir_tensor *t,
		    const void *data, uint64_t *off)
{
	const struct ir_tensor_priv *p = QIR_TPRIV(t);
	const struct ir_spill *s = m ? QIR_MPRIV(m)->spill : NULL;

	if (!s || !p->spill_addr || data != p->spill_addr ||
	    p->spill_id != s->id)
		return -1;
	*off = p->spill_off;
	return s->fd;
}

void ir_tensor_unspill(struct ir_tensor_priv *p)
{
	if (!p->spill_addr)
		return;
	munmap(p->spill_addr, p->spill_len);
	if (p->data == p->spill_addr)
		p->data = NULL;
	p->spill_addr = NULL;
	p->spill_len = 0;
}

void ir_spill_close(qir_model *m)
{
	struct ir_spill *s = QIR_MPRIV(m)->spill;

	if (!s)
		return;
	close(s->fd);
	free(s->dir);
	free(s);
	QIR_MPRIV(m)->spill = NULL;
}
