/*
 * core/plan/plan-knapsack.c - the exact multiple-choice knapsack of
 * `qopt plan` (plan-knapsack.h).
 *
 * best[c] is the least summed score of the items so far whose summed
 * cost is at most c; adding item i, best'[c] = min over its choices j
 * with cost j <= c of best[c - cost j] + score j. The choice taken at
 * each (item, c) is kept in one byte, so the selection is read back
 * from the end: O(items x choices x capacity) time, items x capacity
 * bytes. The answer is exact for the integer costs given; the caller
 * rounds real costs up to integers, so a selection found here never
 * spends more than the budget.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "plan/plan-knapsack.h"

/* One item added to best[0..cap]; its choices recorded in row. */
static void add_item(const struct pk_problem *p, size_t off, size_t n,
		     const double *best, double *next, unsigned char *row,
		     int64_t cap)
{
	int64_t c;
	size_t j;

	for (c = 0; c <= cap; c++) {
		double v = INFINITY;
		unsigned char arg = 0;

		for (j = 0; j < n; j++) {
			int64_t k = p->cost[off + j];
			double t;

			if (k > c)
				continue;
			t = best[c - k] + p->score[off + j];
			if (t < v) {
				v = t;
				arg = (unsigned char)j;
			}
		}
		next[c] = v;
		row[c] = arg;
	}
}

/* The capacity the answer is read back from (see pk_solve). */
static int64_t answer_at(const double *best, int64_t cap, double max_score)
{
	int64_t c;

	if (max_score < 0) {
		if (!(best[cap] < INFINITY))
			return -1;
		for (c = 0; best[c] != best[cap]; c++)
			;
		return c;
	}
	for (c = 0; c <= cap; c++)
		if (best[c] <= max_score)
			return c;
	return -1;
}

int pk_solve(const struct pk_problem *p, int64_t capacity, double max_score,
	     size_t *pick)
{
	size_t i, off = 0, cells, *offs;
	double *best, *next;
	unsigned char *rows;
	int64_t c;

	if (capacity < 0)
		return 1;
	for (i = 0; i < p->nitems; i++)
		if (!p->nchoice[i] || p->nchoice[i] > 256)
			return p->nchoice[i] ? -1 : 1;
	if ((uint64_t)capacity >= PK_MAX_CELLS ||
	    (p->nitems && (size_t)(capacity + 1) > PK_MAX_CELLS / p->nitems))
		return -1;
	cells = (size_t)(capacity + 1);
	best = malloc(cells * sizeof(*best));
	next = malloc(cells * sizeof(*next));
	rows = malloc((p->nitems ? p->nitems : 1) * cells);
	offs = malloc((p->nitems ? p->nitems : 1) * sizeof(*offs));
	if (!best || !next || !rows || !offs) {
		free(best);
		free(next);
		free(rows);
		free(offs);
		return -1;
	}
	for (c = 0; c <= capacity; c++)
		best[c] = 0;
	for (i = 0; i < p->nitems; i++) {
		double *t;

		offs[i] = off;
		add_item(p, off, p->nchoice[i], best, next, rows + i * cells,
			 capacity);
		off += p->nchoice[i];
		t = best;
		best = next;
		next = t;
	}
	c = answer_at(best, capacity, max_score);
	for (i = p->nitems; c >= 0 && i-- > 0;) {
		pick[i] = rows[i * cells + (size_t)c];
		c -= p->cost[offs[i] + pick[i]];
	}
	free(best);
	free(next);
	free(rows);
	free(offs);
	return c < 0 ? 1 : 0;
}
