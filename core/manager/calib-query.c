/*
 * core/manager/calib-query.c - asks the passes of a pipeline which values
 * `qopt calibrate` must measure (qopt_pass_info.calibration_targets), so
 * that no pass's rule lives in the calibrate command.
 *
 * Each pass is asked with its own stage's options, as it will run, on
 * the model as loaded: the ranges are measured on that model, and the
 * file's hash names it. A pass's query must leave the model as it was;
 * the manager checks the hash rather than trust it.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <qopt/pass.h>
#include "manager/run.h"

static int ask(struct pm_run *r, qir_model *m, size_t i,
	       struct pm_want *want)
{
	const struct pm_stage *st = &r->pl->stages[i];
	qopt_ctx ctx = { .ops = &pm_ctx_ops, .run = r, .stage = i, .st = st,
			 .res = &r->res[i], .bar_pct = -1, .want = want,
			 .m = m };
	uint64_t h0 = qir_model_hash(m);
	qopt_status rc;

	pm_guard_enter(st->name);
	rc = st->pass->info->calibration_targets(&ctx, m);
	pm_guard_leave();
	if (rc != QOPT_OK) {
		pm_msg(r->s, QOPT_LOG_ERROR, st->name,
		       "asking which tensors to calibrate failed: %s (status %d)",
		       pm_status_known(rc) ? qopt_status_str(rc) :
		       "unknown status", rc);
		return -1;
	}
	if (ctx.misuse) {
		pm_msg(r->s, QOPT_LOG_ERROR, st->name,
		       "pass misused the qopt API (see above)");
		return -1;
	}
	if (qir_model_hash(m) != h0) {
		pm_msg(r->s, QOPT_LOG_ERROR, st->name,
		       "changed the model while asking which tensors to calibrate");
		return -1;
	}
	return 0;
}

int pm_calibration_targets(struct pm_run *r, qir_model *m,
			   struct pm_want *want, size_t *nasked)
{
	size_t i;
	int rc = 0;

	*nasked = 0;
	for (i = 0; i < r->pl->nstages && !rc; i++) {
		if (!r->pl->stages[i].pass->info->calibration_targets)
			continue;
		(*nasked)++;
		rc = ask(r, m, i, want);
	}
	free(want->own);
	want->own = NULL;
	want->nown = want->capown = 0;
	want->own_ready = 0;
	return rc;
}
