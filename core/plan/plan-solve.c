/*
 * core/plan/plan-solve.c - the choice: each layer's formats (those it
 * holds, in --formats order, falling back), a multiple-choice knapsack
 * over them (plan-knapsack.c) within the effective-bits budget or the
 * loss allowed, --max-float-layers, and the fallback notes (plan.h).
 */
#include "config.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plan/plan.h"
#include "plan/plan-knapsack.h"

/* Each layer's choices: the formats of --formats it holds, in order.
 * A format it cannot hold falls back to the next one it can; with none
 * of them, it stays float and is said. */
static int choices(struct plan *p, int *opt, size_t *nch)
{
	size_t i, j;

	for (i = 0; i < p->nlayers; i++) {
		struct plan_layer *l = &p->layers[i];
		int *o = opt + i * PF_COUNT;

		nch[i] = 0;
		for (j = 0; j < p->nfmt; j++)
			if (p->fmt[j] == PF_NONE || l->holds[p->fmt[j]])
				o[nch[i]++] = p->fmt[j];
		if (!nch[i]) {
			char shown[512];

			qir_escape_text(shown, sizeof(shown), l->node);
			qm_say(p->s, QOPT_LOG_WARN, "qopt plan: warning: layer "
			       "'%s': no format of --formats holds it (%s): it "
			       "stays float (16 bits)\n", shown,
			       l->why[p->fmt[0]] ? l->why[p->fmt[0]] : "");
			o[nch[i]++] = PF_NONE;
		}
	}
	return 0;
}

static int64_t gcd64(int64_t a, int64_t b)
{
	while (b) {
		int64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* "layer 'X' (N weights) holds: fp8, none" (n options at opt). */
static void say_holds(const struct plan *p, const struct plan_layer *l,
		      const int *opt, size_t n)
{
	char shown[512], list[256] = "";
	size_t j, len = 0;

	qir_escape_text(shown, sizeof(shown), l->node);
	for (j = 0; j < n && len < sizeof(list); j++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
					j ? ", " : "",
					plan_formats[opt[j]].name);
	qm_say(p->s, QOPT_LOG_INFO, "qopt plan: layer '%s' (%lld weights) "
	       "holds: %s\n", shown, (long long)l->params, list);
}

/* No plan fits: say what the bound would have to be (the cheapest plan
 * in bits, or the lowest loss, over each layer's formats), since no
 * report is written on this path. */
static void say_no_plan(const struct plan *p, const int *opt,
			const size_t *nch)
{
	const char *more = p->verbose ? "" : " (--verbose lists the "
			   "formats each layer holds)";
	int64_t qbits = 0;
	double loss = 0;
	char bound[64];
	size_t i, j;

	for (i = 0; i < p->nlayers; i++) {
		int64_t qb = INT64_MAX;
		double best = -1;

		for (j = 0; j < nch[i]; j++) {
			int k = opt[i * PF_COUNT + j];
			int64_t c = plan_formats[k].quarter_bits *
				    p->layers[i].params;
			double sc = k == PF_NONE ? 0 : p->layers[i].score[k];

			qb = c < qb ? c : qb;
			best = best < 0 || sc < best ? sc : best;
		}
		qbits += qb;
		loss += best;
		if (p->verbose)
			say_holds(p, &p->layers[i], opt + i * PF_COUNT, nch[i]);
	}
	qbits += 64 * p->float_params;	/* the layers out of the plan */
	qm_fmt_double(bound, sizeof(bound), p->budget >= 0 ? p->budget :
		      p->max_loss);
	if (p->budget >= 0)
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: no plan meets "
		       "--effective-bits %s with the formats these layers "
		       "hold: the cheapest takes %.4f bits%s\n", bound,
		       qbits / 4.0 / (double)p->total_params, more);
	else
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: no plan meets "
		       "--max-loss %s with the formats these layers hold: "
		       "the lowest predicted loss is %g%s\n", bound,
		       loss, more);
}

/* Costs in quarter bits x params, divided by their GCD; when the table
 * would still be too large, by a coarser unit, rounded up (a choice
 * never looks cheaper than it is). */
static int64_t cost_unit(const struct plan *p, const int *opt,
			 const size_t *nch, int64_t cap)
{
	int64_t g = 0, u;
	size_t i, j, room = PK_MAX_CELLS / (p->nlayers ? p->nlayers : 1) - 1;

	for (i = 0; i < p->nlayers; i++)
		for (j = 0; j < nch[i]; j++)
			g = gcd64(g, plan_formats[opt[i * PF_COUNT + j]].quarter_bits *
				  p->layers[i].params);
	if (!g)
		g = 1;
	u = g;
	while (cap / u > (int64_t)room)
		u += g;
	return u;
}

int plan_solve(struct plan *p)
{
	int *opt = calloc(p->nlayers * PF_COUNT, sizeof(*opt));
	size_t *nch = calloc(p->nlayers, sizeof(*nch));
	size_t *pick = calloc(p->nlayers, sizeof(*pick));
	int64_t *cost = calloc(p->nlayers * PF_COUNT, sizeof(*cost));
	double *score = calloc(p->nlayers * PF_COUNT, sizeof(*score));
	size_t i, j, o = 0;
	int64_t cap = 0, used = 0, raw;
	int rc = -1;

	if (!opt || !nch || !pick || !cost || !score)
		goto out;
	choices(p, opt, nch);
	/* the dearest plan: every layer float */
	raw = 0;
	for (i = 0; i < p->nlayers; i++)
		raw += 64 * p->layers[i].params;
	if (p->budget >= 0) {
		/* in quarter bits over every candidate weight, less what the
		 * layers out of the plan take in float; a budget of 16 bits
		 * or more is any plan (and 1e16 x 4 x params would not fit
		 * an int64) */
		double all = p->budget * 4 * (double)p->total_params;

		if (all < 64 * (double)p->total_params)
			raw = (int64_t)floor(all + 1e-6) - 64 * p->float_params;
	}
	p->unit = cost_unit(p, opt, nch, raw);
	cap = raw / p->unit;
	for (i = 0; i < p->nlayers; i++)
		for (j = 0; j < nch[i]; j++, o++) {
			int k = opt[i * PF_COUNT + j];
			int64_t c = plan_formats[k].quarter_bits * p->layers[i].params;

			cost[o] = (c + p->unit - 1) / p->unit;
			score[o] = k == PF_NONE ? 0 : p->layers[i].score[k];
		}
	{
		struct pk_problem pr = { p->nlayers, nch, cost, score };

		rc = pk_solve(&pr, cap, p->budget >= 0 ? -1 : p->max_loss,
			      pick);
	}
	if (rc < 0) {
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: out of memory "
		       "(the solver's table)\n");
		goto out;
	}
	if (rc > 0) {
		say_no_plan(p, opt, nch);
		goto out;
	}
	p->predicted = 0;
	for (i = 0; i < p->nlayers; i++) {
		struct plan_layer *l = &p->layers[i];

		l->pick = opt[i * PF_COUNT + pick[i]];
		p->predicted += l->pick == PF_NONE ? 0 : l->score[l->pick];
		used += plan_formats[l->pick].quarter_bits * l->params;
	}
	used += 64 * p->float_params;
	p->bits = used / 4.0 / (double)p->total_params;
	rc = 0;
out:
	free(opt);
	free(nch);
	free(pick);
	free(cost);
	free(score);
	return rc;
}

/* The cheapest listed format other than none that holds layer i (its
 * score), or PF_NONE. */
static int best_held(const struct plan *p, size_t i)
{
	const struct plan_layer *l = &p->layers[i];
	int best = PF_NONE;
	size_t j;

	for (j = 0; j < p->nfmt; j++) {
		int k = p->fmt[j];

		if (k != PF_NONE && l->holds[k] &&
		    (best == PF_NONE || l->score[k] < l->score[best]))
			best = k;
	}
	return best;
}

/* A float layer that could leave none, and what that adds. */
struct float_layer {
	size_t i;
	double delta;
};

static int by_delta(const void *a, const void *b)
{
	const struct float_layer *x = a, *y = b;

	return x->delta < y->delta ? -1 : x->delta > y->delta ? 1 :
	       x->i < y->i ? -1 : x->i > y->i;
}

/* --max-float-layers: the float layers past the bound take their
 * cheapest held format, those adding the least score first. A layer
 * leaving none only lowers the bits, so the budget stays met; under
 * --max-loss the summed score is checked again. 0, or 1 said (no
 * such plan), -1 out of memory. */
int plan_bound_float(struct plan *p)
{
	size_t i, n = 0, fixed = 0;
	struct float_layer *v;
	int64_t used = 0;

	if (p->max_float < 0)
		return 0;
	v = calloc(p->nlayers ? p->nlayers : 1, sizeof(*v));
	if (!v) {
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: out of memory\n");
		return -1;
	}
	for (i = 0; i < p->nlayers; i++) {
		int k = best_held(p, i);

		if (p->layers[i].pick != PF_NONE)
			continue;
		if (k == PF_NONE) {
			fixed++;
			continue;
		}
		v[n].i = i;
		v[n++].delta = p->layers[i].score[k];
	}
	if (fixed > (size_t)p->max_float) {
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: no plan keeps "
		       "at most %ld layer%s float: %zu layers no listed format "
		       "holds stay float\n", p->max_float,
		       p->max_float == 1 ? "" : "s", fixed);
		free(v);
		return 1;
	}
	qsort(v, n, sizeof(*v), by_delta);
	/* float layers left: n - i held ones and the fixed */
	for (i = 0; i < n && n - i + fixed > (size_t)p->max_float; i++) {
		struct plan_layer *l = &p->layers[v[i].i];

		l->pick = best_held(p, v[i].i);
		p->predicted += l->score[l->pick];
		p->forced++;
	}
	free(v);
	for (i = 0; i < p->nlayers; i++)
		used += plan_formats[p->layers[i].pick].quarter_bits *
			p->layers[i].params;
	used += 64 * p->float_params;
	p->bits = used / 4.0 / (double)p->total_params;
	if (p->max_loss >= 0 && p->predicted > p->max_loss) {
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: no plan keeps "
		       "at most %ld layer%s float within --max-loss %.17g: the "
		       "bound alone makes the summed score %.6g (raise "
		       "--max-loss or --max-float-layers)\n", p->max_float,
		       p->max_float == 1 ? "" : "s", p->max_loss,
		       p->predicted);
		return 1;
	}
	return 0;
}

/* A listed format other than none holds layer l. */
static int held_any(const struct plan *p, const struct plan_layer *l)
{
	size_t j;

	for (j = 0; j < p->nfmt; j++)
		if (p->fmt[j] != PF_NONE && l->holds[p->fmt[j]])
			return 1;
	return 0;
}

/* The fallback notes: a layer whose first listed format was refused
 * and that got a later one (or float) says so. */
int plan_note_fallbacks(struct plan *p)
{
	size_t i, j;
	int chosen;

	for (i = 0; i < p->nlayers; i++) {
		struct plan_layer *l = &p->layers[i];
		char buf[2048] = "";
		size_t n = 0;

		for (j = 0; j < p->nfmt && p->fmt[j] != l->pick; j++) {
			int k = p->fmt[j];

			if (k == PF_NONE || l->holds[k])
				continue;
			n += (size_t)snprintf(buf + n, n < sizeof(buf) ?
					      sizeof(buf) - n : 0, "%s%s "
					      "cannot hold it (%s)", n ? "; " : "",
					      plan_formats[k].name, l->why[k]);
		}
		if (!*buf)
			continue;
		/* float by the solver's choice, though a listed format
		 * held the layer: no fallback, nothing to warn about */
		chosen = l->pick == PF_NONE && held_any(p, l);
		if (asprintf(&l->fallback, chosen ? "%s; kept float: the "
			     "solver's choice" : "%s: fell back to %s", buf,
			     plan_formats[l->pick].name) < 0)
			return -1;
		if (p->verbose || (l->pick == PF_NONE && !chosen)) {
			char shown[512];

			qir_escape_text(shown, sizeof(shown), l->node);
			qm_say(p->s, l->pick == PF_NONE && !chosen ?
			       QOPT_LOG_WARN : QOPT_LOG_INFO,
			       "qopt plan: %slayer '%s': %s\n",
			       l->pick == PF_NONE && !chosen ? "warning: " : "",
			       shown,
			       l->fallback);
		}
	}
	return 0;
}
