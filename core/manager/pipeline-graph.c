/*
 * core/manager/pipeline-graph.c - a named pipeline's graph of pipelines,
 * checked before it is expanded: a cycle, nesting deeper than
 * PM_GRAPH_MAX_DEPTH pipelines and an expansion of more than
 * PM_GRAPH_MAX_STEPS passes are each refused with their own message.
 *
 * Expanding first and checking on the way is exponential: a pipeline
 * naming another twice doubles the work at every level, so 30 levels
 * (or a cycle walked down every branch before it closes) take minutes.
 * One depth-first walk with colours visits each pipeline once: grey
 * ones are on the current path (reaching one again is a cycle), black
 * ones are done and remember their height and their number of steps.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qopt/pass.h>
#include "manager/pipeline.h"
#include "manager/pipeline-internal.h"

enum { WHITE, GREY, BLACK };

struct graph {
	const struct pm_registry *r;
	pm_session *s;
	unsigned char *colour;	/* by index in r->aliases */
	size_t *height;		/* pipelines on its longest chain */
	size_t *steps;		/* passes it expands to, capped */
	size_t stack[PM_GRAPH_MAX_DEPTH + 1];
	size_t depth;
	const char *top;
};

static long alias_at(const struct pm_registry *r, const char *name)
{
	size_t i;

	/* A pass wins over a pipeline of the same name, as in expansion. */
	if (pm_registry_find(r, name))
		return -1;
	for (i = 0; i < r->naliases; i++)
		if (!strcmp(r->aliases[i]->info->name, name))
			return (long)i;
	return -1;
}

static const char *name_of(const struct graph *g, size_t i)
{
	return g->r->aliases[i]->info->name;
}

/* Appends "a -> b" pieces; a path too long for buf ends in "...". */
static void add_name(char *buf, size_t n, size_t *len, const char *name)
{
	int w;

	if (*len >= n)
		return;
	w = snprintf(buf + *len, n - *len, "%s%s", *len ? " -> " : "", name);
	*len += w > 0 ? (size_t)w : 0;
	if (*len >= n && n > 4)
		memcpy(buf + n - 4, "...", 4);
}

static void report(const struct graph *g, size_t at, const char *fmt,
		   const char *path)
{
	const struct pm_alias *a = g->r->aliases[at];
	char what[512];

	snprintf(what, sizeof(what), fmt, a->info->name);
	pm_msg_line(g->s, "qopt: error: %s: malformed plugin table: %s%s%s%s: %s",
		    a->plugin->path, what,
		    strcmp(g->top, a->info->name) ? " (expanding '" : "",
		    strcmp(g->top, a->info->name) ? g->top : "",
		    strcmp(g->top, a->info->name) ? "')" : "", path);
}

/* j, grey, is on the stack: the cycle is the stack from j on. */
static int cycle(const struct graph *g, size_t j)
{
	char path[2048];
	size_t len = 0, d = 0;

	while (g->stack[d] != j)
		d++;
	for (; d < g->depth; d++)
		add_name(path, sizeof(path), &len, name_of(g, g->stack[d]));
	add_name(path, sizeof(path), &len, name_of(g, j));
	report(g, g->stack[g->depth - 1],
	       "pipeline '%s' expands to itself", path);
	return 1;
}

/* The stack, then from j (black, or none when j is (size_t)-1) down its
 * longest chain. */
static int too_deep(const struct graph *g, size_t j)
{
	char path[4096];
	size_t len = 0, d, k;

	for (d = 0; d < g->depth; d++)
		add_name(path, sizeof(path), &len, name_of(g, g->stack[d]));
	while (j != (size_t)-1) {
		const struct pm_alias *a = g->r->aliases[j];
		size_t next = (size_t)-1;

		add_name(path, sizeof(path), &len, a->info->name);
		for (k = 0; k < a->nsteps && g->height[j] > 1; k++) {
			long c = alias_at(g->r, a->info->steps[k].pass);

			if (c >= 0 && g->height[c] == g->height[j] - 1) {
				next = (size_t)c;
				break;
			}
		}
		j = next;
	}
	report(g, g->stack[0], "pipeline '%s' nests pipelines more than "
	       PM_GRAPH_STR(PM_GRAPH_MAX_DEPTH) " deep", path);
	return 1;
}

static int walk(struct graph *g, size_t i)
{
	const struct pm_alias *a = g->r->aliases[i];
	size_t k, h = 1, n = 0;

	if (g->depth == PM_GRAPH_MAX_DEPTH)
		return too_deep(g, i);
	g->colour[i] = GREY;
	g->stack[g->depth++] = i;
	for (k = 0; k < a->nsteps; k++) {
		long c = alias_at(g->r, a->info->steps[k].pass);
		size_t j = (size_t)c;

		if (c < 0) {	/* a pass (an unknown one is reported later) */
			n++;
			continue;
		}
		if (g->colour[j] == GREY)
			return cycle(g, j);
		if (g->colour[j] == WHITE && walk(g, j))
			return 1;
		if (g->depth + g->height[j] > PM_GRAPH_MAX_DEPTH)
			return too_deep(g, j);
		if (h < g->height[j] + 1)
			h = g->height[j] + 1;
		n += g->steps[j];
		if (n > PM_GRAPH_MAX_STEPS)
			n = PM_GRAPH_MAX_STEPS + 1;
	}
	g->depth--;
	g->colour[i] = BLACK;
	g->height[i] = h;
	g->steps[i] = n;
	if (n > PM_GRAPH_MAX_STEPS) {
		report(g, i, "pipeline '%s' expands to more than "
		       PM_GRAPH_STR(PM_GRAPH_MAX_STEPS) " passes", "refused "
		       "(a pipeline naming another several times multiplies "
		       "its steps)");
		return 1;
	}
	return 0;
}

int pm_pipeline_graph_check(pm_session *s, const struct pm_registry *r,
			    const struct pm_alias *top)
{
	struct graph g = { .r = r, .s = s, .top = top->info->name };
	long at = alias_at(r, top->info->name);
	int rc;

	if (at < 0)
		return 0;
	g.colour = calloc(r->naliases, 1);
	g.height = calloc(r->naliases, sizeof(*g.height));
	g.steps = calloc(r->naliases, sizeof(*g.steps));
	rc = g.colour && g.height && g.steps ? walk(&g, (size_t)at) : -1;
	free(g.colour);
	free(g.height);
	free(g.steps);
	return rc;
}
