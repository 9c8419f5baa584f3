/*
 * passes/hadamard_rotate/once.c - exactly once. Every rotated weight is
 * recorded in the model's metadata (HADAMARD_ROTATE_META_KEY: "weight=NAME axis=A
 * block=B;" per rotation), and a later run skips weights recorded
 * there; an activation that already passes through a MatMul by a
 * normalized Sylvester constant (what this pass inserts, and what
 * exporters leave when they bake a Hadamard into the graph) is not
 * rotated again.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hadamard_rotate.h"

int hadamard_rotate_recorded(const struct hadamard_rotate_cfg *cfg, const char *weight)
{
	const char *texts[2] = { cfg->prior, cfg->record };
	size_t len = strlen(weight);

	for (int i = 0; i < 2; i++) {
		const char *p = texts[i];

		while (p && (p = strstr(p, "weight=")) != NULL) {
			p += 7;
			if (!strncmp(p, weight, len) && p[len] == ' ')
				return 1;
		}
	}
	return 0;
}

int hadamard_rotate_record(struct hadamard_rotate_cfg *cfg, const char *weight, int axis, size_t block)
{
	size_t add = strlen(weight) + 64;
	char *r = realloc(cfg->record, cfg->record_len + add);

	if (!r)
		return -1;
	cfg->record = r;
	cfg->record_len += (size_t)snprintf(r + cfg->record_len, add,
					    "weight=%s axis=%d block=%zu;",
					    weight, axis, block);
	return 0;
}

/* Appends this run's entries to what the model already recorded. */
int hadamard_rotate_record_flush(struct hadamard_rotate_cfg *cfg)
{
	size_t lp = cfg->prior ? strlen(cfg->prior) : 0;
	char *all;
	int rc;

	if (!cfg->record_len)
		return 0;
	all = malloc(lp + cfg->record_len + 1);
	if (!all)
		return -1;
	memcpy(all, cfg->prior ? cfg->prior : "", lp);
	memcpy(all + lp, cfg->record, cfg->record_len + 1);
	rc = qir_model_set_metadata(cfg->m, HADAMARD_ROTATE_META_KEY, all);
	free(all);
	return rc;
}

int hadamard_rotate_is_sylvester(qir_tensor *t)
{
	int64_t b = t->rank == 2 ? t->dims[0] : 0;
	double s, tol, v;

	if (b < 2 || (b & (b - 1)) || t->dims[1] != b)
		return 0;
	if (t->dtype != QIR_FLOAT && t->dtype != QIR_FLOAT16 &&
	    t->dtype != QIR_BFLOAT16)
		return 0;
	s = 1 / sqrt((double)b);
	tol = s * 1e-2; /* BFLOAT16 holds 1/sqrt(b) to 0.4 % */
	for (int64_t i = 0; i < b; i++)
		for (int64_t j = 0; j < b; j++) {
			double want = __builtin_popcountll((uint64_t)(i & j)) & 1 ?
					      -s : s;

			if (qir_tensor_get_f64(t, (uint64_t)(i * b + j), &v, NULL) ||
			    fabs(v - want) > tol)
				return 0;
		}
	return 1;
}

static int sylvester_value(qir_value *v)
{
	qir_tensor *t = v ? qir_value_const(v) : NULL;

	return t && hadamard_rotate_is_sylvester(t);
}

qir_node *hadamard_rotate_upstream_hadamard(qir_value *v)
{
	for (int hop = 0; hop < 6 && v && v->producer; hop++) {
		qir_node *p = v->producer;

		if (p->domain[0] || p->ninputs < 1)
			return NULL;
		if (!strcmp(p->op_type, "MatMul") && p->ninputs == 2) {
			if (sylvester_value(p->inputs[1]) ||
			    sylvester_value(p->inputs[0]))
				return p;
			return NULL;
		}
		if (strcmp(p->op_type, "Reshape") &&
		    strcmp(p->op_type, "Identity"))
			return NULL;
		v = p->inputs[0];
	}
	return NULL;
}
