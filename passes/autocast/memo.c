/*
 * passes/autocast/memo.c - a map from a value to the one value that
 * stands for it in another type (its Cast, its converted weight), so
 * that every consumer of a tensor shares one Cast, not one each.
 */
#include <stdint.h>
#include <stdlib.h>

#include "memo.h"

static size_t slot_of(const struct autocast_memo *m, const void *k)
{
	uintptr_t h = (uintptr_t)k;

	h ^= h >> 17;
	h *= 0x9e3779b97f4a7c15u;
	return (size_t)(h >> 7) & (m->cap - 1);
}

void *autocast_memo_get(const struct autocast_memo *m, const void *k)
{
	size_t i;

	if (!m->cap)
		return NULL;
	for (i = slot_of(m, k); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == k)
			return m->vals[i];
	return NULL;
}

static int grow(struct autocast_memo *m)
{
	struct autocast_memo big = { 0 };
	size_t i;

	big.cap = m->cap ? 2 * m->cap : 64;
	big.keys = calloc(big.cap, sizeof(*big.keys));
	big.vals = calloc(big.cap, sizeof(*big.vals));
	if (!big.keys || !big.vals) {
		autocast_memo_fini(&big);
		return -1;
	}
	for (i = 0; i < m->cap; i++)
		if (m->keys[i] && autocast_memo_put(&big, m->keys[i], m->vals[i]))
			return -1;
	autocast_memo_fini(m);
	*m = big;
	return 0;
}

int autocast_memo_put(struct autocast_memo *m, const void *k, void *v)
{
	size_t i;

	if (2 * (m->n + 1) > m->cap && grow(m))
		return -1;
	for (i = slot_of(m, k); m->keys[i] && m->keys[i] != k;
	     i = (i + 1) & (m->cap - 1))
		;
	if (!m->keys[i])
		m->n++;
	m->keys[i] = k;
	m->vals[i] = v;
	return 0;
}

void autocast_memo_fini(struct autocast_memo *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->cap = m->n = 0;
}
