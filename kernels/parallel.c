/*
 * kernels/parallel.c - splitting one call's work over pthreads.
 *
 * Threads are started per call: the kernels run on whole tensors (MBs),
 * where a start costs little, and no pool has to outlive a context. The
 * split is in contiguous unit ranges and every unit's result depends on
 * that unit alone, so results never depend on the thread count.
 */
#include <pthread.h>

#include "internal.h"

struct qki_job {
	qki_range_fn fn;
	void *arg;
	unsigned part;
	size_t lo, hi;
	int rc;
	pthread_t tid;
	int started;
};

static void *qki_job_main(void *p)
{
	struct qki_job *j = p;

	j->rc = j->fn(j->arg, j->part, j->lo, j->hi);
	return NULL;
}

static unsigned qki_nparts(const qk_ctx *ctx, size_t units, size_t bytes)
{
	size_t t = ctx && ctx->threads > 0 ? (size_t)ctx->threads : 1;
	size_t by_bytes = bytes / QKI_MIN_BYTES_PER_THREAD;

	if (t > QKI_MAX_THREADS)
		t = QKI_MAX_THREADS;
	if (t > by_bytes)
		t = by_bytes;
	if (t > units)
		t = units;
	return t ? (unsigned)t : 1;
}

int qki_parallel(const qk_ctx *ctx, size_t units, size_t total_bytes,
		 qki_range_fn fn, void *arg, unsigned *parts)
{
	unsigned n = qki_nparts(ctx, units, total_bytes), i;
	struct qki_job jobs[QKI_MAX_THREADS];
	int rc = 0;

	if (parts)
		*parts = n;
	if (n == 1)
		return fn(arg, 0, 0, units);
	for (i = 0; i < n; i++) {
		jobs[i] = (struct qki_job){ .fn = fn, .arg = arg, .part = i,
			.lo = units / n * i + (units % n) * i / n,
			.hi = units / n * (i + 1) + (units % n) * (i + 1) / n };
	}
	/* Part 0 runs here; a thread that fails to start runs here too. */
	for (i = 1; i < n; i++)
		jobs[i].started = !pthread_create(&jobs[i].tid, NULL,
						  qki_job_main, &jobs[i]);
	for (i = 0; i < n; i++)
		if (i == 0 || !jobs[i].started)
			qki_job_main(&jobs[i]);
	for (i = 1; i < n; i++)
		if (jobs[i].started)
			pthread_join(jobs[i].tid, NULL);
	for (i = 0; i < n && !rc; i++)
		rc = jobs[i].rc;
	return rc;
}
