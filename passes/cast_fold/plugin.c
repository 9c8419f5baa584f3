/*
 * plugin.c - the cast-fold pass: removes Casts around Q/DQ by retyping
 * their scales (qdq.c) and Casts that do nothing or fold into constants
 * (redundant.c), round after round until nothing changes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cast_fold.h"
#include "../support/fail.h"

#define CAST_FOLD_MAX_ROUNDS 16

struct cast_list {
	qir_node **v;
	size_t n, cap;
};

static int in_list(qir_node *const *v, size_t n, const qir_node *x)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

/* Tries every rewrite on one Cast; first that applies wins. */
static int fold_one(struct cast_fold_state *s, qir_node *c)
{
	int r = cast_fold_fold_redundant(s, c);

	if (r == 0)
		r = cast_fold_fold_dq_cast(s, c);
	if (r == 0)
		r = cast_fold_fold_cast_q(s, c);
	return r;
}

/* One round over the Casts of every graph. Returns the number of
 * rewrites, or -1. Declined Casts (bisect) are frozen for the run. */
static int round_once(struct cast_fold_state *s, struct cast_list *declined)
{
	struct cast_list l = { 0 };
	size_t i;
	int done = 0, r = 0;

	if (qir_graph_nodes(s->m->graph, "", "Cast", 1, &l.v, &l.n, NULL)) {
		ps_fail(s->ctx, QOPT_ENOMEM, "out of memory");
		return -1;
	}
	for (i = 0; i < l.n; i++) {
		if (in_list(declined->v, declined->n, l.v[i]))
			continue;
		r = fold_one(s, l.v[i]);
		if (r < 0 && r != CAST_FOLD_DECLINED)
			break;
		if (r == CAST_FOLD_DECLINED) {
			if (declined->n == declined->cap) {
				size_t cap = declined->cap ?
					     2 * declined->cap : 16;
				qir_node **v = realloc(declined->v,
						       cap * sizeof(*v));

				if (!v) {
					r = -1;
					break;
				}
				declined->v = v;
				declined->cap = cap;
			}
			declined->v[declined->n++] = l.v[i];
			r = 0;
		}
		done += r;
	}
	free(l.v);
	if (!s->report)
		(void)ps_sweep(&s->sweep, NULL); /* a refusal: they stay */
	return r < 0 ? -1 : done;
}

static qopt_status cast_fold_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	struct cast_fold_state s = { 0 };
	struct cast_list declined = { 0 };
	int r = 0, total = 0;
	int64_t round, max;

	s.ctx = ctx;
	s.sweep.follow = cast_fold_follow;
	s.m = m;
	s.opset = (int)qir_model_opset(m, "");
	/* The manager has checked max_rounds >= 1. */
	max = qopt_opt_is_set(ctx, "max_rounds") ?
	      qopt_opt_int(ctx, "max_rounds") : CAST_FOLD_MAX_ROUNDS;
	for (round = 0; round < max; round++) {
		r = round_once(&s, &declined);
		if (r <= 0)
			break;
		total += r;
	}
	/* Still rewriting when the cap stopped it: more may be foldable. */
	if (round == max && r > 0)
		qopt_warn(ctx, "stopped after %lld round(s) with the last one "
			  "still rewriting (%d); run cast-fold again or raise "
			  "max_rounds", (long long)max, r);
	if (r >= 0) {
		s.report = 1;
		r = round_once(&s, &declined);
	}
	free(declined.v);
	ps_sweep_fini(&s.sweep);
	*changed = total > 0;
	if (r < 0)
		return ps_status(-1);
	if (s.opset_skips)
		qopt_warn(ctx, "%lld Cast(s) next to Q/DQ left alone: folding "
			  "them needs opset >= 19 (FLOAT16 scales), the model "
			  "has %d (opset-check with upgrade = yes raises it)",
			  (long long)s.opset_skips, s.opset);
	else if (s.opset < 19)
		qopt_info(ctx, "opset %d: Q/DQ scales stay FLOAT (FLOAT16 "
			  "scales need opset 19)", s.opset);
	qopt_info(ctx, "%d rewrite(s)", total);
	return QOPT_OK;
}

static const qopt_option_spec cast_fold_opts[] = {
	{ .name = "max_rounds", .type = QOPT_OPT_INT, .default_value = "16",
	  .flags = QOPT_OPT_HAS_MIN, .min = 1,
	  .help = "rounds over the model before giving up (a warning says so)" },
	{ 0 }
};

static const qopt_pass_info cast_fold_passes[] = {
	{ .name = "cast-fold",
	  .summary = "fold Casts into Q/DQ scales (opset >= 19) and remove "
	  "redundant Casts; not exact for Cast(FLOAT16->FLOAT)->"
	  "QuantizeLinear: the scale is rounded to FLOAT16 (relative error "
	  "<= 2^-11 in its normal range), which can move a quantized value q "
	  "by up to |q| * 2^-11 + 1 steps (one step for 8-bit outputs)",
	  .options = cast_fold_opts,
	  .run = cast_fold_run,
	  .flags = 0 },
	{ 0 }
};

QOPT_PLUGIN("cast-fold", "1.0", cast_fold_passes)
