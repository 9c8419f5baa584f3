/*
 * core/plan/plan-knapsack.h - the multiple-choice knapsack `qopt plan`
 * solves: one choice per item (a format per layer), each with an
 * integer cost (bits x parameters, scaled) and a score (the measured
 * output error); solved exactly by dynamic programming over the cost.
 */
#ifndef QOPT_PLAN_KNAPSACK_H
#define QOPT_PLAN_KNAPSACK_H

#include <stddef.h>
#include <stdint.h>

/* Item i offers nchoice[i] choices; choice j of item i is at
 * cost[off + j], score[off + j], off the sum of nchoice[0..i). */
struct pk_problem {
	size_t nitems;
	const size_t *nchoice;
	const int64_t *cost;	/* >= 0 */
	const double *score;	/* finite */
};

/* The largest DP table (items x (capacity + 1) bytes) pk_solve
 * builds; the caller scales costs down to fit (plan-knapsack.c). */
#define PK_MAX_CELLS ((size_t)64 << 20)

/* Budget mode (max_score < 0): the least summed score with summed
 * cost <= capacity, ties to the least cost. Loss mode (max_score >= 0,
 * capacity the cost of the dearest choice everywhere or more): the
 * least cost whose least summed score is <= max_score, ties to the
 * least score. pick[i] receives item i's choice (index within the
 * item). Returns 0, 1 when no selection meets the limit, -1 when out
 * of memory or the table would pass PK_MAX_CELLS. */
int pk_solve(const struct pk_problem *p, int64_t capacity, double max_score,
	     size_t *pick);

#endif
