/*
 * passes/mxfp8/select.c - which linear layers the targets (include,
 * exclude, op_types) select; weight.c asks it for every reader of a
 * shared weight, plugin.c for every layer.
 */
#include "select.h"

int mxfp8_match(struct mxfp8_cfg *cfg, qir_node *n, struct ps_skip *s)
{
	const char *names[3];
	int slot = ps_weight_slot(n), in, ex;

	names[0] = n->name;
	names[1] = slot >= 0 && n->inputs[slot] ? n->inputs[slot]->name : NULL;
	names[2] = n->inputs[0] ? n->inputs[0]->name : NULL;
	in = ps_globs_match(&cfg->tg.include, names, 3);
	ex = ps_globs_match(&cfg->tg.exclude, names, 3);
	cfg->match_in = in;
	if (!ps_targets_op(&cfg->tg, n->op_type))
		ps_skip_set(s, &ps_skip_op_type, "op type %s not in op_types",
			    n->op_type);
	else if (ex >= 0)
		ps_skip_set(s, &ps_skip_excluded, "excluded by '%s'",
			    cfg->tg.exclude.pat[ex]);
	else if (in < 0)
		ps_skip_set(s, &ps_skip_not_included,
			    "no include pattern matches");
	return s->kind != NULL;
}
