/*
 * tests/plan/knapsack.c - the solver of `qopt plan`
 * (core/plan/plan-knapsack.c) against brute force: random small
 * multiple-choice knapsacks (1 to 6 items, 1 to 4 choices, integer
 * costs, scores with ties), in both modes. Budget mode: the least
 * summed score within the capacity, ties to the least cost; loss mode:
 * the least cost whose score stays within the limit. The selection
 * returned must cost and score what brute force finds; infeasible
 * problems are said (1), not answered.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "../lib/tap.h"
#include "plan/plan-knapsack.h"

#define MAXI 6
#define MAXC 4

static uint64_t rng = 0x243f6a8885a308d3ULL;

static unsigned next(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

struct best {
	int found;
	int64_t cost;
	double score;
};

/* Every selection: the best one by the mode's rule. */
static struct best brute(const struct pk_problem *p, int64_t cap,
			 double max_score)
{
	size_t idx[MAXI] = { 0 }, off[MAXI], i, o = 0;
	struct best b = { 0, 0, 0 };

	for (i = 0; i < p->nitems; i++) {
		off[i] = o;
		o += p->nchoice[i];
	}
	for (;;) {
		int64_t c = 0;
		double s = 0;

		for (i = 0; i < p->nitems; i++) {
			c += p->cost[off[i] + idx[i]];
			s += p->score[off[i] + idx[i]];
		}
		if (max_score < 0 ? c <= cap && (!b.found || s < b.score ||
						 (s == b.score && c < b.cost)) :
		    s <= max_score && (!b.found || c < b.cost ||
				       (c == b.cost && s < b.score))) {
			b.found = 1;
			b.cost = c;
			b.score = s;
		}
		for (i = 0; i < p->nitems && ++idx[i] == p->nchoice[i]; i++)
			idx[i] = 0;
		if (i == p->nitems)
			return b;
	}
}

/* One random problem in one mode: 1 when the solver agrees. */
static int one(int loss)
{
	size_t nch[MAXI], pick[MAXI], n = 1 + next(MAXI), i, j, o = 0;
	int64_t cost[MAXI * MAXC], cap, c = 0, dear = 0;
	double score[MAXI * MAXC], lim = -1, s = 0;
	struct pk_problem p = { n, nch, cost, score };
	struct best b;
	int rc;

	for (i = 0; i < n; i++) {
		int64_t most = 0;

		nch[i] = 1 + next(MAXC);
		for (j = 0; j < nch[i]; j++, o++) {
			cost[o] = next(20);
			/* quarter steps: exact sums, so ties are real ties */
			score[o] = next(12) * 0.25;
			most = cost[o] > most ? cost[o] : most;
		}
		dear += most;
	}
	cap = loss ? dear : next((unsigned)dear + 5);
	if (loss)
		lim = next(40) * 0.25;
	b = brute(&p, cap, lim);
	rc = pk_solve(&p, cap, lim, pick);
	if (rc != (b.found ? 0 : 1))
		return 0;
	if (rc)
		return 1;
	for (i = o = 0; i < n; o += nch[i], i++) {
		if (pick[i] >= nch[i])
			return 0;
		c += cost[o + pick[i]];
		s += score[o + pick[i]];
	}
	return c == b.cost && s == b.score;
}

int main(void)
{
	size_t k, bad[2] = { 0, 0 }, runs = 4000;
	size_t nch[2] = { 2, 2 }, pick[2];
	int64_t cost[4] = { 4, 1, 4, 1 };
	double score[4] = { 0, 1, 0, 2 };
	struct pk_problem p = { 2, nch, cost, score };

	for (k = 0; k < runs; k++)
		bad[k & 1] += !one((int)(k & 1));
	tap_ok(!bad[0], "budget mode: %zu random problems solved as brute "
	       "force solves them (%zu differ)", runs / 2, bad[0]);
	tap_ok(!bad[1], "loss mode: %zu random problems solved as brute force "
	       "solves them (%zu differ)", runs / 2, bad[1]);
	tap_ok(pk_solve(&p, 1, -1, pick) == 1, "a capacity below the cheapest "
	       "selection is infeasible (1)");
	tap_ok(pk_solve(&p, 5, -1, pick) == 0 && pick[0] == 1 && pick[1] == 0,
	       "budget 5: the item whose cheap choice costs more score stays "
	       "dear");
	tap_ok(pk_solve(&p, 8, 1.5, pick) == 0 && pick[0] == 1 && pick[1] == 0,
	       "loss 1.5: the least cost whose score is within the limit");
	tap_ok(pk_solve(&p, 8, 0.5, pick) == 0 && pick[0] == 0 && pick[1] == 0,
	       "loss 0.5: nothing but the dearest choices meets it");
	return tap_done();
}
