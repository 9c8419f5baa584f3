/*
 * core/manager/pipeline-internal.h - shared by the pipeline parsers.
 */
#ifndef QOPT_PIPELINE_INTERNAL_H
#define QOPT_PIPELINE_INTERNAL_H

#include "manager/pipeline.h"

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

/* Limits on a named pipeline's graph (pipeline-graph.c): pipelines
 * nested on one chain, and passes the expansion of one may hold. */
#define PM_GRAPH_MAX_DEPTH 32
#define PM_GRAPH_MAX_STEPS 65536
#define PM_GRAPH_STR_(x) #x
#define PM_GRAPH_STR(x) PM_GRAPH_STR_(x)
/* Checks the graph of pipelines top expands through, in time linear in
 * its size: a cycle, nesting deeper than PM_GRAPH_MAX_DEPTH, more than
 * PM_GRAPH_MAX_STEPS passes. Prints the problem (the plugin's): 1, else
 * 0; -1 when out of memory. */
int pm_pipeline_graph_check(pm_session *s, const struct pm_registry *r,
			    const struct pm_alias *top);

/* Replaces every stage naming a pipeline by its steps
 * (pipeline-expand.c). Prints problems; returns their number. */
int pm_pipeline_expand(struct pm_pipeline *p, const struct pm_registry *r);

#endif
