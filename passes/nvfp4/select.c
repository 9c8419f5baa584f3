/*
 * passes/nvfp4/select.c - which weights the pipeline asked
 * for: include/exclude globs over node and weight names, op types
 * (passes/support/targets.h).
 *
 * A glob is matched against the consumer node's name, the value the
 * consumer reads, the stored weight's name and the Constant node that
 * holds it, so "*.experts.*.down_proj*" finds per-expert weights
 * whether the exporter named the node or the tensor. A glob that
 * matches nothing is reported (ps_targets_report): a silent no-op is
 * how unquantized models ship.
 */
#include <stdlib.h>

#include "nvfp4.h"

const struct ps_skip_kind nvfp4_skip_export_float = {
	"left float (not marked by the export)", PS_SKIP_INFO
};

const struct ps_skip_kind nvfp4_skip_mixed = {
	"skipped (shared with a non-selected consumer)", PS_SKIP_INFO
};

int nvfp4_has_placeholder(const struct nvfp4_weight *w)
{
	size_t i;

	for (i = 0; i < w->uses.n; i++)
		if (w->uses.v[i].placeholder)
			return 1;
	return 0;
}

struct sel_state {
	int any_in, all_in, excluded_by, op_ok_any, pattern;
	const char *bad_node;
};

static void select_use(struct nvfp4_cfg *cfg, struct nvfp4_weight *w,
		       const struct ps_use *u, struct sel_state *st)
{
	const char *names[4];
	int in, ex, op_ok;

	names[0] = u->node->name;
	names[1] = u->input->name;
	names[2] = w->stored->name;
	names[3] = w->constant ? w->constant->name : NULL;
	in = ps_globs_match(&cfg->tg.include, names, 4);
	ex = ps_globs_match(&cfg->tg.exclude, names, 4);
	op_ok = ps_targets_op(&cfg->tg, u->node->op_type);
	if (ex >= 0 && st->excluded_by < 0)
		st->excluded_by = ex;
	st->any_in |= in >= 0 && ex < 0 && op_ok;
	if (in >= 0 && ex < 0 && op_ok && st->pattern < 0)
		st->pattern = in;	/* for the coverage per pattern */
	if (in < 0 || ex >= 0 || !op_ok) {
		st->all_in = 0;
		if (!st->bad_node)
			st->bad_node = u->node->name;
	}
	st->op_ok_any |= op_ok;
}

void nvfp4_select(struct nvfp4_cfg *cfg, struct nvfp4_weight *w)
{
	struct sel_state st = { 0 };
	size_t i;

	st.excluded_by = st.pattern = -1;
	st.all_in = 1;
	for (i = 0; i < w->uses.n; i++)
		select_use(cfg, w, &w->uses.v[i], &st);
	w->pattern = st.pattern;
	if (w->skip.kind || nvfp4_has_placeholder(w))
		return;	/* an exporter's mark overrides the targets */
	/* An export that marks its NVFP4 weights chose the rest to stay
	 * float (an LM head, a tied embedding): only include overrides. */
	if (cfg->placeholders && !qopt_opt_is_set(cfg->ctx, "include"))
		ps_skip_set(&w->skip, &nvfp4_skip_export_float, "the export "
			    "marks its NVFP4 weights with trt::TRT_FP4QDQ and "
			    "not this one (include = ... selects it)");
	else if (!st.op_ok_any)
		ps_skip_set(&w->skip, &ps_skip_op_type,
			    "consumer op type %s not in op_types",
			    w->uses.v[0].node->op_type);
	else if (st.excluded_by >= 0 && !st.any_in)
		ps_skip_set(&w->skip, &ps_skip_excluded, "excluded by '%s'",
			    cfg->tg.exclude.pat[st.excluded_by]);
	else if (!st.any_in)
		ps_skip_set(&w->skip, &ps_skip_not_included,
			    "no include pattern matches");
	else if (!st.all_in)
		ps_skip_set(&w->skip, &nvfp4_skip_mixed, "also read by '%s', "
			    "which the targets leave alone", st.bad_node);
}
