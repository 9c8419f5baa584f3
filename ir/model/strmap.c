/*
 * ir/model/strmap.c - open-addressing string -> pointer map with linear
 * probing. Keys are borrowed; deleted slots become tombstones so that
 * probe chains stay intact, and are dropped on the next resize.
 */
#include <stdlib.h>
#include <string.h>
#include "model/internal.h"

static const char tombstone[1];
#define TOMB (&tombstone[0])

static uint64_t hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* Slot of key, or (-1) when absent. */
static size_t find(const ir_strmap *m, const char *key)
{
	size_t mask, i;

	if (!m->cap)
		return (size_t)-1;
	mask = m->cap - 1;
	for (i = hash(key) & mask;; i = (i + 1) & mask) {
		const char *k = m->keys[i];

		if (!k)
			return (size_t)-1;
		if (k != TOMB && strcmp(k, key) == 0)
			return i;
	}
}

void *ir_strmap_get(const ir_strmap *m, const char *key)
{
	size_t i = find(m, key);

	return i == (size_t)-1 ? NULL : m->vals[i];
}

static void insert_fresh(ir_strmap *m, const char *key, void *val)
{
	size_t mask = m->cap - 1, i;

	for (i = hash(key) & mask; m->keys[i] && m->keys[i] != TOMB;
	     i = (i + 1) & mask)
		;
	if (m->keys[i] == TOMB)
		m->tombs--;
	m->keys[i] = key;
	m->vals[i] = val;
	m->count++;
}

static int resize(ir_strmap *m, size_t cap)
{
	ir_strmap n = { 0 };
	size_t i;

	n.keys = calloc(cap, sizeof(*n.keys));
	n.vals = calloc(cap, sizeof(*n.vals));
	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		return -1;
	}
	n.cap = cap;
	for (i = 0; i < m->cap; i++)
		if (m->keys[i] && m->keys[i] != TOMB)
			insert_fresh(&n, m->keys[i], m->vals[i]);
	free(m->keys);
	free(m->vals);
	*m = n;
	return 0;
}

int ir_strmap_put(ir_strmap *m, const char *key, void *val)
{
	size_t i = find(m, key);

	if (i != (size_t)-1) {
		/* Re-point at the caller's buffer: the old one may die. */
		m->keys[i] = key;
		m->vals[i] = val;
		return 0;
	}
	/* Keep the load (live + tombstones) under 3/4. */
	if ((m->count + m->tombs + 1) * 4 > m->cap * 3) {
		size_t cap = m->cap ? m->cap : 16;

		while ((m->count + 1) * 2 > cap)
			cap *= 2;
		if (resize(m, cap) < 0)
			return -1;
	}
	insert_fresh(m, key, val);
	return 0;
}

void ir_strmap_del(ir_strmap *m, const char *key)
{
	size_t i = find(m, key);

	if (i == (size_t)-1)
		return;
	m->keys[i] = TOMB;
	m->vals[i] = NULL;
	m->count--;
	m->tombs++;
}

int ir_strmap_next(const ir_strmap *m, size_t *it, const char **key,
		    void **val)
{
	while (*it < m->cap) {
		size_t i = (*it)++;

		if (m->keys[i] && m->keys[i] != TOMB) {
			if (key)
				*key = m->keys[i];
			if (val)
				*val = m->vals[i];
			return 1;
		}
	}
	return 0;
}

void ir_strmap_free(ir_strmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
