/*
 * core/manager/gate.c - bisect numbering. Every pass run and every rewrite a
 * pass asks for gets the next number from one counter (as LLVM's
 * -opt-bisect-limit numbers passes); with a limit L only points
 * 1..L go ahead. The bisect hook (hooks.c) calls these.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qopt/pass.h>
#include "manager/run.h"

/* 0, or -1 (and r->lost_record set) when out of memory. */
static int record(struct pm_run *r, int64_t num, int is_rewrite,
		  size_t stage, int64_t pass_point, int ran, const char *desc)
{
	struct pm_point *grown, *p;
	char *d = NULL;

	if (!r->o.record_points)
		return 0;
	if (r->npoints == r->cappoints) {
		size_t cap = r->cappoints ? 2 * r->cappoints : 64;

		if (r->cappoints > SIZE_MAX / 2 / sizeof(*grown))
			goto lost;
		grown = realloc(r->points, cap * sizeof(*grown));
		if (!grown)
			goto lost;
		r->points = grown;
		r->cappoints = cap;
	}
	if (desc && !(d = strdup(desc)))
		goto lost;
	p = &r->points[r->npoints++];
	p->num = num;
	p->is_rewrite = is_rewrite;
	p->stage = stage;
	p->pass_point = pass_point;
	p->ran = ran;
	p->desc = d;
	return 0;
lost:
	r->lost_record = 1;
	return -1;
}

static int allowed(const struct pm_run *r, int64_t num)
{
	return r->o.bisect_limit < 0 || num <= r->o.bisect_limit;
}

/* The bisect hook's (hooks.c): before a pass runs, and for each
 * rewrite it asks for (the manager counts the rewrites done and
 * denied). */
int pm_gate_pass(struct pm_run *r, size_t stage)
{
	int64_t num = ++r->counter;
	int ok = allowed(r, num);

	r->res[stage].point = num;
	if (r->o.bisect_print) {
		pm_msg_line(r->s, "BISECT: %srunning pass (%lld) %s",
			    ok ? "" : "NOT ", (long long)num,
			    r->pl->stages[stage].name);
	}
	if (record(r, num, 0, stage, num, ok, NULL) < 0)
		return 0;	/* the run fails: see lost_record */
	return ok;
}

int pm_gate_rewrite(qopt_ctx *ctx, const char *desc)
{
	struct pm_run *r = ctx->run;
	int64_t num;
	int ok;

	num = ++r->counter;
	ok = allowed(r, num) && !r->lost_record;
	/* Not done when it cannot be recorded: the run fails after the
	 * pass. */
	if (record(r, num, 1, ctx->stage, ctx->res->point, ok, desc) < 0)
		ok = 0;
	if (r->o.bisect_print) {
		pm_msg_line(r->s, "BISECT: %srunning rewrite (%lld) %s: %s",
			    ok ? "" : "NOT ", (long long)num, ctx->st->name,
			    desc);
	}
	return ok;
}
