/*
 * passes/nvfp4_weights/select.c - which weights the pipeline asked
 * for: include/exclude globs over node and weight names, op types.
 *
 * A glob is matched against the consumer node's name, the value the
 * consumer reads, the stored weight's name and the Constant node that
 * holds it, so "*.experts.*.down_proj*" finds per-expert weights
 * whether the exporter named the node or the tensor. A glob that
 * matches nothing is reported: a silent no-op is how unquantized
 * models ship.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvfp4.h"

int nvfp4_glob_setup(struct nvfp4_cfg *cfg)
{
	cfg->include_hits = calloc(cfg->ninclude + 1, sizeof(uint64_t));
	cfg->exclude_hits = calloc(cfg->nexclude + 1, sizeof(uint64_t));
	if (!cfg->include_hits || !cfg->exclude_hits) {
		nvfp4_glob_teardown(cfg);
		return -1;
	}
	return 0;
}

void nvfp4_glob_teardown(struct nvfp4_cfg *cfg)
{
	free(cfg->include_hits);
	free(cfg->exclude_hits);
	cfg->include_hits = cfg->exclude_hits = NULL;
}

int nvfp4_op_selected(const struct nvfp4_cfg *cfg, const char *op)
{
	size_t i;

	for (i = 0; i < cfg->nop_types; i++)
		if (!strcmp(cfg->op_types[i], op))
			return 1;
	return 0;
}

int nvfp4_has_placeholder(const struct nvfp4_weight *w)
{
	size_t i;

	for (i = 0; i < w->nuses; i++)
		if (w->uses[i].placeholder)
			return 1;
	return 0;
}

/* Index of the first glob matching any name, or -1. Every glob that
 * matches counts a hit (a weight is counted once per glob by the
 * caller's `seen` marks). */
static int match_any(const char *const *globs, size_t n, uint8_t *seen,
		     const char *const *names, size_t nnames)
{
	int first = -1;
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < nnames; j++) {
			if (!names[j] || !names[j][0] ||
			    fnmatch(globs[i], names[j], 0))
				continue;
			seen[i] = 1;
			if (first < 0)
				first = (int)i;
			break;
		}
	}
	return first;
}

static void skip(struct nvfp4_weight *w, const char *counter,
		 const char *fmt, const char *a, const char *b)
{
	w->skip = counter;
	snprintf(w->why, sizeof(w->why), fmt, a, b);
}

struct sel_state {
	uint8_t *iseen, *eseen;
	int any_in, all_in, excluded_by, op_ok_all, op_ok_any;
	const char *bad_node;
};

static void select_use(struct nvfp4_cfg *cfg, struct nvfp4_weight *w,
		       const struct nvfp4_use *u, struct sel_state *st)
{
	const char *names[4];
	int in, ex, op_ok;

	names[0] = u->node->name;
	names[1] = u->input->name;
	names[2] = w->stored->name;
	names[3] = w->constant ? w->constant->name : NULL;
	in = match_any(cfg->include, cfg->ninclude, st->iseen, names, 4);
	ex = match_any(cfg->exclude, cfg->nexclude, st->eseen, names, 4);
	op_ok = nvfp4_op_selected(cfg, u->node->op_type);
	if (ex >= 0 && st->excluded_by < 0)
		st->excluded_by = ex;
	st->any_in |= in >= 0 && ex < 0 && op_ok;
	if (in < 0 || ex >= 0 || !op_ok) {
		st->all_in = 0;
		if (!st->bad_node)
			st->bad_node = u->node->name;
	}
	st->op_ok_any |= op_ok;
	st->op_ok_all &= op_ok;
}

void nvfp4_select(struct nvfp4_cfg *cfg, struct nvfp4_weight *w)
{
	struct sel_state st = { 0 };
	size_t i;

	st.iseen = calloc(cfg->ninclude + 1, 1);
	st.eseen = calloc(cfg->nexclude + 1, 1);
	st.excluded_by = -1;
	st.all_in = st.op_ok_all = 1;
	if (!st.iseen || !st.eseen)
		goto out;
	for (i = 0; i < w->nuses; i++)
		select_use(cfg, w, &w->uses[i], &st);
	for (i = 0; i < cfg->ninclude; i++)
		cfg->include_hits[i] += st.iseen[i];
	for (i = 0; i < cfg->nexclude; i++)
		cfg->exclude_hits[i] += st.eseen[i];
	if (w->skip || nvfp4_has_placeholder(w))
		goto out;	/* an exporter's mark overrides the targets */
	if (!st.op_ok_any)
		skip(w, "skipped (op type not selected)",
		     "consumer op type %s not in op_types%s",
		     w->uses[0].node->op_type, "");
	else if (st.excluded_by >= 0 && !st.any_in)
		skip(w, "skipped (excluded)", "excluded by '%s'%s",
		     cfg->exclude[st.excluded_by], "");
	else if (!st.any_in)
		skip(w, "skipped (not included)",
		     "no include pattern matches%s%s", "", "");
	else if (!st.all_in)
		skip(w, "skipped (shared with a non-selected consumer)",
		     "also read by '%s', which the targets leave alone%s",
		     st.bad_node, "");
out:
	free(st.iseen);
	free(st.eseen);
}

int nvfp4_glob_report(struct nvfp4_cfg *cfg)
{
	size_t i;

	for (i = 0; i < cfg->ninclude; i++) {
		if (cfg->include_hits[i] || !cfg->include_explicit)
			continue;
		qopt_warn(cfg->ctx, "include pattern '%s' matches no weight",
			  cfg->include[i]);
	}
	for (i = 0; i < cfg->nexclude; i++) {
		if (cfg->exclude_hits[i])
			continue;
		qopt_warn(cfg->ctx, "exclude pattern '%s' matches no weight",
			  cfg->exclude[i]);
	}
	/* --strict turns these warnings into a failed pass (the manager). */
	return 0;
}
