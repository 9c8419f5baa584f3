/*
 * core/manager/run.h - private to core/manager: running a resolved
 * pipeline over a model (manager.c), the pass context (ctx.c,
 * progress.c, gate.c, require-opset.c), what a run reports (report.c)
 * and the calibration query (calib-query.c).
 */
#ifndef QOPT_PM_RUN_H
#define QOPT_PM_RUN_H

#include <stdio.h>
#include "manager/pipeline.h"
#include "manager/sys.h"

/* ---- running a pipeline (core/manager/manager.c, ctx.c, report.c) ---- */
/* What a run is given; the rest of the instrumentation is the
 * session's hooks (hooks.c). */
struct pm_run_opts {
	int strict;		/* qopt_is_strict() */
	int64_t bisect_limit;	/* -1: unlimited (the bisect hook) */
	int bisect_print;	/* print BISECT: lines */
	int record_points;	/* keep a list of every numbered point */
	qk_device device;
	int threads;
	int query;		/* no pass runs (calibration) */
};

struct pm_counter {
	char *name;
	int64_t value;
};

struct pm_stage_result {
	int ran;		/* 0 when bisect skipped the pass */
	int changed;
	double seconds;
	unsigned warnings;
	uint64_t rewrites;	/* gate said yes */
	uint64_t denied;	/* gate said no (bisect limit) */
	int64_t point;		/* bisect number of this pass run */
	struct pm_counter *counters;
	size_t ncounters;
	char **records;		/* qopt_record: JSON objects (owned) */
	size_t nrecords;
	int verified;		/* verify-each checked the IR after it */
};

struct pm_point {
	int64_t num;
	int is_rewrite;
	size_t stage;
	int64_t pass_point;	/* number of the pass run it belongs to */
	int ran;
	char *desc;		/* rewrite description (owned) or NULL */
};

struct pm_run {
	pm_session *s;		/* the pipeline's */
	const struct pm_pipeline *pl;
	struct pm_run_opts o;
	qk_ctx *kctx;
	int64_t counter;	/* last bisect number handed out */
	struct pm_point *points;
	size_t npoints, cappoints;
	struct pm_stage_result *res;
	double t_load, t_save, t_verify;
	unsigned warnings;
	const char *failed_pass; /* first failure, for reports */
	/* A bisect point or statistic could not be recorded (out of
	 * memory): the run fails after the pass, since a dropped point
	 * would make `qopt bisect` blame the wrong rewrite. */
	int lost_record;
	/* qopt_require_opset: the lowest opset whose upgrade bisect
	 * declined (0: none), so that the run asks the gate once. */
	int64_t opset_declined;
	int hash_changes;	/* the session's print-changed hook */
};

/* Values a pass's calibration_targets asked to measure (in the order
 * asked; values borrowed from the model). */
struct pm_want {
	qir_value **values;	/* owned array */
	size_t n, cap;
	/* The model's values by address, to tell one of another model
	 * (the calibration hook frees them). */
	qir_value **own;
	size_t nown, capown;
	int own_ready;
};

struct ctx_ops;
/* The manager's pass context; starts as manager/ctx-ops.h's ctx_head. */
struct qopt_ctx {
	const struct ctx_ops *ops;	/* &pm_ctx_ops */
	struct pm_run *run;
	size_t stage;
	const struct pm_stage *st;
	struct pm_stage_result *res;
	/* The pass broke the API contract: the first misuse's status
	 * (QOPT_ENOTFOUND: an undeclared option; QOPT_EUSAGE: read as
	 * another type), QOPT_OK when none. */
	qopt_status misuse;
	qir_model *m;		/* the model the pass runs on */
	unsigned errors;	/* qopt_error() calls */
	unsigned warnings;
	double bar_last;	/* progress throttle */
	int bar_pct;
	/* Set only while calibration_targets runs: qopt_want_range()
	 * fails elsewhere. */
	struct pm_want *want;
};

int pm_run_init(struct pm_run *r, const struct pm_pipeline *pl,
		  const struct pm_run_opts *o, qir_error *err);
/* Verifies m, runs every stage on it, verifies the result and applies
 * --strict to the session's warnings; prints what goes wrong (naming
 * the pass, and r->failed_pass says which when a pass failed) and
 * returns -1 then: the caller must not write an output. */
int pm_run_model(struct pm_run *r, qir_model *m);
void pm_run_fini(struct pm_run *r);
void pm_run_print_stats(const struct pm_run *r, FILE *f);
void pm_run_print_times(const struct pm_run *r, FILE *f);
/* The --stats-json text of the last run into f. */
void pm_run_stats_json(const struct pm_run *r, const char *input, FILE *f);
/* Writes the statistics as JSON to a temporary file beside path and
 * returns it written and synced but not yet in place: the caller
 * commits it once the model is, so a failure leaves neither. */
pm_outfile *pm_run_write_stats_json(const struct pm_run *r,
					       const char *path,
					       const char *input,
					       qir_error *err);

/* The gate for a whole pass run (core/manager/gate.c); 1: run it. */
int pm_gate_pass(struct pm_run *r, size_t stage);
/* Ends a progress bar of the context's pass, if one is shown. */
void pm_ctx_finish_progress(qopt_ctx *ctx);
/* The ops behind qopt_may_rewrite() and qopt_progress(). */
int pm_gate_rewrite(qopt_ctx *ctx, const char *desc);
/* qopt_may_rewrite(): the hooks' gates (hooks.c). */
int pm_ctx_may_rewrite(qopt_ctx *ctx, const char *desc);
void pm_ctx_progress(qopt_ctx *ctx, uint64_t done, uint64_t total,
		       const char *what);
/* qopt_require_opset() (core/manager/require-opset.c). */
qopt_status pm_ctx_require_opset(qopt_ctx *ctx, int64_t opset,
				 const char *why);
/* The table every manager context points to (core/manager/ctx.c). */
extern const struct ctx_ops pm_ctx_ops;


/* report.c: a record as one JSON object, malloc'd (caller frees); NULL
 * when out of memory. */
char *pm_record_json(const char *kind, const qopt_field *fields, size_t n);
char *pm_stage_counters_str(const struct pm_stage_result *res,
			      char *buf, size_t n);

#endif /* QOPT_PM_RUN_H */
