/*
 * core/manager/pipeline-internal.h - shared by the pipeline parsers.
 */
#ifndef QOPT_PIPELINE_INTERNAL_H
#define QOPT_PIPELINE_INTERNAL_H

#include "manager/core.h"

/* "qopt: FILE:LINE: msg" (no line when line <= 0). */
void pm_pl_error(struct pm_pipeline *p, int line,
		   const char *fmt, ...) __attribute__((format(printf, 3, 4)));
struct pm_stage *pm_pl_add_stage(struct pm_pipeline *p,
				     const char *name, int line);
int pm_pl_add_raw(struct pm_rawopt **raw, size_t *n, const char *key,
		    const char *value, int line);
/* Applies one [qopt] key; prints and returns 1 on a bad one. */
int pm_pl_global(struct pm_pipeline *p, const char *key,
		   const char *value, int line);

/* Replaces every stage naming a pipeline by its steps
 * (pipeline-expand.c). Prints problems; returns their number. */
int pm_pipeline_expand(struct pm_pipeline *p, const struct pm_registry *r);

#endif
