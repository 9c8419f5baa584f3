/*
 * core/manager/suggest.c - "did you mean" for pass and option names.
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <qopt/pass.h>
#include "manager/msg.h"

/* Optimal string alignment distance: Levenshtein plus adjacent
 * transpositions, the most common typo ("blcok"). */
size_t pm_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, r;
	size_t *d = calloc((la + 1) * (lb + 1), sizeof(*d));

	if (!d)
		return (size_t)-1;
#define D(x, y) d[(x) * (lb + 1) + (y)]
	for (i = 0; i <= la; i++)
		D(i, 0) = i;
	for (j = 0; j <= lb; j++)
		D(0, j) = j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t best = D(i - 1, j) + 1;

			if (D(i, j - 1) + 1 < best)
				best = D(i, j - 1) + 1;
			if (D(i - 1, j - 1) + cost < best)
				best = D(i - 1, j - 1) + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && D(i - 2, j - 2) + 1 < best)
				best = D(i - 2, j - 2) + 1;
			D(i, j) = best;
		}
	}
	r = D(la, lb);
#undef D
	free(d);
	return r;
}

const char *pm_suggest(const char *word, const char *const *cands,
			 size_t n)
{
	size_t i, best = (size_t)-1, limit = strlen(word) / 3;
	const char *pick = NULL;

	if (limit < 2)
		limit = 2;
	for (i = 0; i < n; i++) {
		size_t dist = pm_edit_distance(word, cands[i]);

		if (dist < best) {
			best = dist;
			pick = cands[i];
		}
	}
	return best <= limit ? pick : NULL;
}

const char *pm_did_you_mean(const char *word, const char *const *cands,
			    size_t n, char *buf, size_t size)
{
	const char *s = pm_suggest(word, cands, n);

	if (size)
		buf[0] = 0;
	if (s && size)
		snprintf(buf, size, " (did you mean '%.200s'?)", s);
	return buf;
}
