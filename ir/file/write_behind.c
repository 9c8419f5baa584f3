/*
 * ir/file/write_behind.c - one batch in flight, one being computed.
 *
 * The poster owns two buffers: it computes into one while the thread
 * writes the other. A one-slot mailbox is enough for that: a post
 * waits for the batch before, so when the poster reuses a buffer, the
 * batch that read it has been written. Errors travel back with errno
 * and stop the batches after.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "file/direct_io.h"
#include "file/write_all.h"
#include "file/write_behind.h"

struct fio_wb {
	pthread_t tid;
	pthread_mutex_t lock;
	pthread_cond_t cv;
	int fd, dfd, *refused;
	struct fio_span *spans;	/* the batch in the mailbox */
	size_t n, cap;
	int busy;		/* a batch is posted and not yet written */
	int stop;
	int err;		/* errno of the first failed batch, or 0 */
};

int fio_spans_write(int fd, int dfd, int *refused, const struct fio_span *s,
		    size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (fio_direct_pwrite(s[i].direct ? dfd : -1, fd, s[i].buf,
				      s[i].len, s[i].off, refused))
			return -1;
		fio_start_writeback(fd, s[i].off, s[i].len);
	}
	return 0;
}

static void *run(void *arg)
{
	struct fio_wb *w = arg;
	int e;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->busy && !w->stop)
			pthread_cond_wait(&w->cv, &w->lock);
		if (!w->busy)
			break;
		pthread_mutex_unlock(&w->lock);
		/* The spans are the thread's until busy drops. */
		e = fio_spans_write(w->fd, w->dfd, w->refused, w->spans, w->n) ?
		    (errno ? errno : EIO) : 0;
		pthread_mutex_lock(&w->lock);
		if (e && !w->err)
			w->err = e;
		w->busy = 0;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct fio_wb *fio_wb_new(int fd, int dfd, int *refused)
{
	struct fio_wb *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->fd = fd;
	w->dfd = dfd;
	w->refused = refused;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cv, NULL);
	if (pthread_create(&w->tid, NULL, run, w)) {
		pthread_cond_destroy(&w->cv);
		pthread_mutex_destroy(&w->lock);
		free(w);
		return NULL;
	}
	return w;
}

/* Caller holds the lock: waits for the mailbox to empty. */
static int idle(struct fio_wb *w)
{
	while (w->busy)
		pthread_cond_wait(&w->cv, &w->lock);
	if (w->err) {
		errno = w->err;
		return -1;
	}
	return 0;
}

int fio_wb_post(struct fio_wb *w, const struct fio_span *s, size_t n)
{
	int rc;

	pthread_mutex_lock(&w->lock);
	rc = idle(w);
	if (!rc && n > w->cap) {
		struct fio_span *p = realloc(w->spans, n * sizeof(*p));

		if (p) {
			w->spans = p;
			w->cap = n;
		} else {
			errno = ENOMEM;
			rc = -1;
		}
	}
	if (!rc && n) {
		memcpy(w->spans, s, n * sizeof(*s));
		w->n = n;
		w->busy = 1;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->lock);
	return rc;
}

int fio_wb_wait(struct fio_wb *w)
{
	int rc;

	pthread_mutex_lock(&w->lock);
	rc = idle(w);
	pthread_mutex_unlock(&w->lock);
	return rc;
}

void fio_wb_free(struct fio_wb *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	while (w->busy)
		pthread_cond_wait(&w->cv, &w->lock);
	w->stop = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->tid, NULL);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->lock);
	free(w->spans);
	free(w);
}
