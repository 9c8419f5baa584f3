/*
 * passes/support/suggest.c - near names for unmatched patterns
 * (suggest.h).
 */
#include <string.h>

#include "suggest.h"

#define NAME_MAX_LEN 255

size_t ps_edit_distance(const char *a, const char *b, int within)
{
	size_t la = strlen(a), lb = strlen(b);
	/* three rows: two back for a transposition */
	size_t rows[3][NAME_MAX_LEN + 1];
	size_t *pp = rows[0], *p = rows[1], *c = rows[2];

	if (la > NAME_MAX_LEN || lb > NAME_MAX_LEN)
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		p[j] = within ? 0 : j;
	for (size_t i = 1; i <= la; i++) {
		size_t *t;

		c[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t best = p[j] + 1, cost = a[i - 1] != b[j - 1];

			if (c[j - 1] + 1 < best)
				best = c[j - 1] + 1;
			if (p[j - 1] + cost < best)
				best = p[j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && pp[j - 2] + 1 < best)
				best = pp[j - 2] + 1;
			c[j] = best;
		}
		t = pp;
		pp = p;
		p = c;
		c = t;
	}
	if (within) {
		size_t best = p[0];

		for (size_t j = 1; j <= lb; j++)
			if (p[j] < best)
				best = p[j];
		return best;
	}
	return p[lb];
}

/* pat without its glob characters, in buf; its length. */
static size_t literal(const char *pat, char *buf, size_t size)
{
	size_t n = 0;

	for (; *pat && n + 1 < size; pat++)
		if (!strchr("*?[]", *pat))
			buf[n++] = *pat;
	buf[n] = 0;
	return n;
}

size_t ps_near_score(const char *pat, const char *name)
{
	char lit[NAME_MAX_LEN + 1];
	size_t n = literal(pat, lit, sizeof(lit)), limit = n / 3, d;

	if (n >= 3 && strstr(name, lit))
		return 0;
	if (limit < 1)
		limit = 1;
	d = ps_edit_distance(lit, name, 1);
	return n >= 3 && d <= limit ? 1 + d : (size_t)-1;
}
