/*
 * passes/autocast/memo.h - a pointer-keyed map (open addressing): one
 * stand-in value per value and direction.
 */
#ifndef PASSES_AUTOCAST_MEMO_H
#define PASSES_AUTOCAST_MEMO_H

#include <stddef.h>

struct autocast_memo {
	const void **keys;
	void **vals;
	size_t cap, n;
};

/* The value stored for k, or NULL. */
void *autocast_memo_get(const struct autocast_memo *m, const void *k);
/* Stores v for k (k not NULL). 0, or -1 when out of memory. */
int autocast_memo_put(struct autocast_memo *m, const void *k, void *v);
void autocast_memo_fini(struct autocast_memo *m);

#endif
