/*
 * passes/support/targets.c - target selection (targets.h).
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "targets.h"
#include "suggest.h"

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
	g->near = calloc(g->n + 1, sizeof(*g->near));
	g->near_score = malloc((g->n + 1) * sizeof(*g->near_score));
	if (!g->hits || !g->near || !g->near_score)
		return -1;
	for (size_t i = 0; i < g->n; i++)
		g->near_score[i] = (size_t)-1;
	return 0;
}

static void globs_fini(struct ps_globs *g)
{
	for (size_t i = 0; g->near && i < g->n; i++)
		free(g->near[i]);
	free(g->near);
	free(g->near_score);
	free(g->hits);
	g->near = NULL;
	g->near_score = NULL;
	g->hits = NULL;
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
	globs_fini(&t->include);
	globs_fini(&t->exclude);
}

/* A pattern that has matched nothing yet keeps the nearest name it was
 * offered, copied (the pass may rename or drop the node later); out of
 * memory only loses the suggestion. */
static void note_near(struct ps_globs *g, size_t i, const char *name)
{
	size_t score;
	char *copy;

	if (!g->set || !g->near || g->hits[i] || !g->near_score[i])
		return;
	score = ps_near_score(g->pat[i], name);
	if (score >= g->near_score[i] || !(copy = strdup(name)))
		return;
	free(g->near[i]);
	g->near[i] = copy;
	g->near_score[i] = score;
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
		if (!pattern_matches(g->pat[i], names, nnames)) {
			/* near names for the "did you mean" of a pattern
			 * that matches nothing */
			for (size_t j = 0; j < nnames; j++)
				if (names[j] && names[j][0])
					note_near(g, i, names[j]);
			continue;
		}
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
	for (size_t i = 0; i < g->n; i++) {
		const char *near = g->near ? g->near[i] : NULL;

		if (!g->hits[i])
			qopt_warn(ctx, "%s pattern '%s' matches no %s%s%s%s",
				  g->option, g->pat[i], what,
				  near ? " (did you mean '" : "",
				  near ? near : "", near ? "'?)" : "");
	}
}

void ps_targets_report(qopt_ctx *ctx, const struct ps_targets *t,
		       const char *what)
{
	report(ctx, &t->include, what);
	report(ctx, &t->exclude, what);
}
