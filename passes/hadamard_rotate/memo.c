/*
 * passes/hadamard_rotate/memo.c - string -> value map, so that each
 * rotated weight, rotated activation and rotation constant is made
 * once and shared. A model has at most thousands of them: a scan.
 * The memo's values stay alive until the walk is over: an initializer
 * it holds is removed only afterwards, once nothing reads it.
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

int hr_memo_holds(const struct hr_memo *m, const qir_value *v)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->vals[i] == v)
			return 1;
	return 0;
}

void hr_drop_unused(struct hr_cfg *cfg, qir_value *v)
{
	qir_error err = { 0 };

	if (!ps_unused_initializer(v) || hr_memo_holds(&cfg->memo, v))
		return;
	if (qir_graph_remove_initializer(v->graph, v, &err))
		qopt_debug(cfg->ctx, "'%s' kept: %s", v->name, err.msg);
}

void hr_memo_drop_unused(struct hr_cfg *cfg)
{
	struct hr_memo *m = &cfg->memo;
	qir_error err = { 0 };

	for (size_t i = 0; i < m->n; i++) {
		qir_value *v = m->vals[i];

		if (!ps_unused_initializer(v))
			continue;
		/* every key naming v forgets it before v is freed */
		for (size_t j = i; j < m->n; j++)
			if (m->vals[j] == v)
				m->vals[j] = NULL;
		if (qir_graph_remove_initializer(v->graph, v, &err))
			qopt_debug(cfg->ctx, "'%s' kept: %s", v->name, err.msg);
	}
}

void hr_memo_free(struct hr_memo *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
