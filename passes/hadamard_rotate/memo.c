/*
 * passes/hadamard_rotate/memo.c - string -> value map, so that each
 * rotated weight, rotated activation and rotation constant is made
 * once and shared. A model has at most thousands of them: a scan.
 * The memo's values stay alive until the walk is over: the weights a
 * rotation left unread are removed only afterwards (hadamard_rotate_sweep).
 */
#include <stdlib.h>
#include <string.h>

#include "hadamard_rotate.h"

qir_value *hadamard_rotate_memo_get(const struct hadamard_rotate_memo *m, const char *key)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->keys[i], key))
			return m->vals[i];
	return NULL;
}

int hadamard_rotate_memo_put(struct hadamard_rotate_memo *m, const char *key, qir_value *v)
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

void hadamard_rotate_sweep(struct hadamard_rotate_cfg *cfg)
{
	qir_error err = { 0 };

	/* The memo's weights too, now that no later target reuses them. */
	for (size_t i = 0; i < cfg->memo.n; i++)
		ps_sweep_value(&cfg->sweep, cfg->memo.vals[i]);
	if (ps_sweep(&cfg->sweep, &err))
		qopt_debug(cfg->ctx, "unread initializers kept: %s", err.msg);
}

void hadamard_rotate_memo_free(struct hadamard_rotate_memo *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
