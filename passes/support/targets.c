/*
 * passes/support/targets.c - target selection (targets.h).
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "targets.h"

static const char *const *list(qopt_ctx *ctx, const char *name, size_t *n)
{
	const char *const *v = qopt_opt_list(ctx, name, n);

	if (!v)
		*n = 0;
	return v;
}

static int globs_init(struct ps_globs *g, qopt_ctx *ctx, const char *option,
		      int declared)
{
	memset(g, 0, sizeof(*g));
	g->option = option;
	if (declared) {
		g->pat = list(ctx, option, &g->n);
		g->set = qopt_opt_is_set(ctx, option);
	}
	g->hits = calloc(g->n + 1, sizeof(*g->hits));
	return g->hits ? 0 : -1;
}

int ps_targets_init(struct ps_targets *t, qopt_ctx *ctx, unsigned which)
{
	memset(t, 0, sizeof(*t));
	if (which & PS_TARGET_OP_TYPES)
		t->op_types = list(ctx, "op_types", &t->nop_types);
	if (which & PS_TARGET_MIN_SIZE)
		t->min_size = qopt_opt_int(ctx, "min_size");
	if (globs_init(&t->include, ctx, "include",
		       (which & PS_TARGET_INCLUDE) != 0) ||
	    globs_init(&t->exclude, ctx, "exclude",
		       (which & PS_TARGET_EXCLUDE) != 0)) {
		qopt_error(ctx, "out of memory");
		return -1;
	}
	return 0;
}

void ps_targets_fini(struct ps_targets *t)
{
	free(t->include.hits);
	free(t->exclude.hits);
	t->include.hits = t->exclude.hits = NULL;
}

/* "node=NAME": the node named NAME exactly (names[0]), no other name
 * and no glob, so a selection can name one node whatever the other
 * names of the model are (qopt plan's). */
static int pattern_matches(const char *pat, const char *const *names,
			   size_t nnames)
{
	size_t k = sizeof(PS_NODE_PREFIX) - 1;

	if (!strncmp(pat, PS_NODE_PREFIX, k))
		return nnames && names[0] && names[0][0] &&
		       !strcmp(pat + k, names[0]);
	for (size_t j = 0; j < nnames; j++)
		if (names[j] && names[j][0] && !fnmatch(pat, names[j], 0))
			return 1;
	return 0;
}

int ps_globs_match(struct ps_globs *g, const char *const *names,
		   size_t nnames)
{
	int first = -1;

	for (size_t i = 0; i < g->n; i++) {
		if (!pattern_matches(g->pat[i], names, nnames))
			continue;
		g->hits[i]++;
		if (first < 0)
			first = (int)i;
	}
	return first;
}

int ps_targets_op(const struct ps_targets *t, const char *op)
{
	for (size_t i = 0; i < t->nop_types; i++)
		if (!strcmp(t->op_types[i], op))
			return 1;
	return 0;
}

static void report(qopt_ctx *ctx, const struct ps_globs *g, const char *what)
{
	if (!g->set)
		return;
	for (size_t i = 0; i < g->n; i++)
		if (!g->hits[i])
			qopt_warn(ctx, "%s pattern '%s' matches no %s",
				  g->option, g->pat[i], what);
}

void ps_targets_report(qopt_ctx *ctx, const struct ps_targets *t,
		       const char *what)
{
	report(ctx, &t->include, what);
	report(ctx, &t->exclude, what);
}
