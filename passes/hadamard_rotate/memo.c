/*
 * passes/hadamard_rotate/memo.c - string -> value map, so that each
 * rotated weight, rotated activation and rotation constant is made
 * once and shared. A model has at most thousands of them: a scan.
 */
#include <stdlib.h>
#include <string.h>

#include "hadamard_rotate.h"

qir_value *hr_memo_get(const struct hr_memo *m, const char *key)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->keys[i], key))
			return m->vals[i];
	return NULL;
}

int hr_memo_put(struct hr_memo *m, const char *key, qir_value *v)
{
	char *k;

	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 32;
		char **nk = realloc(m->keys, cap * sizeof(*nk));
		qir_value **nv;

		if (!nk)
			return -1;
		m->keys = nk;
		nv = realloc(m->vals, cap * sizeof(*nv));
		if (!nv)
			return -1;
		m->vals = nv;
		m->cap = cap;
	}
	k = strdup(key);
	if (!k)
		return -1;
	m->keys[m->n] = k;
	m->vals[m->n++] = v;
	return 0;
}

void hr_memo_free(struct hr_memo *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
