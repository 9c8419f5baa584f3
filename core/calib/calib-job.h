/*
 * core/calib/calib-job.h - the runner protocol's files (calib-job.c):
 * the job libqopt writes and the result the runner leaves.
 */
#ifndef QOPT_CALIB_JOB_H
#define QOPT_CALIB_JOB_H

#include <stddef.h>
#include "calib/calib-run.h"

/* A value and a position: sorted by value, then position
 * (calib_by_value, a qsort comparator), so that deduplicating and
 * looking up stay O(n log n) on models with tens of thousands of
 * MatMuls. */
struct val_pos {
	const qir_value *v;
	size_t i;
};
int calib_by_value(const void *a, const void *b);

/* The job at path: a's samples and method, model_name for messages,
 * m's graph inputs, the probe's path, the measured values sel[0..nsel)
 * as at[] shows them among the probe's outputs, and where the result
 * goes. 0, or -1 (errno). */
int calib_job_write(const char *path, struct calib_settings *a,
		    const char *who, const char *model_name, qir_model *m,
		    const char *probe, qir_value **sel, qir_value **at,
		    size_t nsel, const char *result);

/* The runner's result at path into amax[] (NAN: the tensor held no
 * element) and *samples, every line checked; 0, or -1 after saying
 * why. */
int calib_job_result(struct calib_settings *a, const char *who,
		     qir_value **sel, size_t nsel, const char *result,
		     double *amax, long *samples);

#endif
