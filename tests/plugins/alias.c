/*
 * tests/plugins/alias.c - named pipelines (ABI 3.0) for the manager's
 * tests: two passes, pipelines over them (options forwarded, fixed and
 * `when`; a default equal to the step's own is not handed on), one
 * nesting another, and pipelines whose steps are wrong in
 * ways only expansion can tell (a cycle, an unknown pass, a forwarded
 * option the step's pass lacks).
 *
 * Built a second time with ALIAS_BAD_WHEN, ALIAS_DUP or ALIAS_BIG_STEP,
 * it is a plugin the loader must refuse (or, for ALIAS_DUP, one whose
 * pipelines clash with a name of the first build, or with a pass of
 * good.c).
 */
#include <stdio.h>
#include <string.h>
#include <qopt/qopt.h>

#if !defined(ALIAS_DUP)
static const qopt_option_spec note_opts[] = {
	{ .name = "tag", .type = QOPT_OPT_STRING, .default_value = "none",
	  .help = "text recorded" },
	{ .name = "n", .type = QOPT_OPT_INT, .default_value = "1",
	  .help = "a number recorded" },
	{ 0 }
};

/* Records "tag=T n=N" as metadata al-note.K (K: entries so far). */
static int note_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	char key[64], val[256];

	snprintf(key, sizeof(key), "al-note.%zu", m->nmetadata);
	snprintf(val, sizeof(val), "tag=%s n=%lld",
		 qopt_opt_string(ctx, "tag"),
		 (long long)qopt_opt_int(ctx, "n"));
	if (!qopt_may_rewrite(ctx, "note %s", val))
		return 0;
	if (qir_model_set_metadata(m, key, val) < 0) {
		qopt_error(ctx, "cannot set metadata");
		return -1;
	}
	qopt_stat_add(ctx, "notes", 1);
	if (qopt_opt_is_set(ctx, "tag"))
		qopt_stat_add(ctx, "tags given", 1);
	qopt_info(ctx, "%s", val);
	*changed = 1;
	return 0;
}

static const qopt_option_spec ren_opts[] = {
	{ .name = "match", .type = QOPT_OPT_LIST, .default_value = "",
	  .help = "exact names of intermediate values to rename" },
	{ 0 }
};

/* Renames each listed intermediate value to r_NAME. */
static int ren_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	size_t n, i, j;
	const char *const *names = qopt_opt_list(ctx, "match", &n);
	qir_error err = { 0 };
	char to[256];
	qir_node *node;

	qir_graph_for_each_node(m->graph, node) {
		for (j = 0; j < node->noutputs; j++) {
			qir_value *v = node->outputs[j];

			for (i = 0; v && !v->is_output && i < n; i++) {
				if (strcmp(v->name, names[i]))
					continue;
				if (!qopt_may_rewrite(ctx, "rename %s", v->name))
					break;
				snprintf(to, sizeof(to), "r_%s", v->name);
				if (qir_value_rename(v, to, &err) < 0) {
					qopt_error(ctx, "%s", err.msg);
					return -1;
				}
				qopt_stat_add(ctx, "renamed", 1);
				*changed = 1;
				break;
			}
		}
	}
	return 0;
}

static const qopt_pass_info passes[] = {
	{ .name = "al-note", .summary = "records its options as metadata",
	  .options = note_opts, .run = note_run },
	{ .name = "al-ren", .summary = "renames the values it is told to",
	  .options = ren_opts, .run = ren_run,
	  .flags = QOPT_PASS_HAS_TARGETS },
	{ 0 }
};
#endif

static const qopt_option_spec both_opts[] = {
	{ .name = "tag", .type = QOPT_OPT_STRING, .default_value = "dflt",
	  .help = "handed to al-note" },
	{ .name = "note", .type = QOPT_OPT_BOOL, .default_value = "yes",
	  .help = "run al-note" },
	{ .name = "match", .type = QOPT_OPT_LIST, .default_value = NULL,
	  .help = "handed to al-ren" },
	{ 0 }
};
static const char *const fwd_tag[] = { "tag", NULL };
static const char *const fwd_match[] = { "match", NULL };
static const char *const fix_n2[] = { "n=2", NULL };
#if !defined(ALIAS_DUP)
static const char *const fix_no_note[] = { "note=no", NULL };
static const char *const fix_outer[] = { "tag=outer", NULL };
#endif

static const qopt_pipeline_step both_steps[] = {
#if defined(ALIAS_BAD_WHEN)
	{ .pass = "al-note", .when = "tag", .fixed = fix_n2 },
#else
	{ .pass = "al-note", .when = "note", .forward = fwd_tag,
	  .fixed = fix_n2 },
#endif
	{ .pass = "al-ren", .forward = fwd_match },
	{ 0 }
};

#if !defined(ALIAS_DUP)
static const qopt_option_spec outer_opts[] = {
	{ .name = "match", .type = QOPT_OPT_LIST, .default_value = NULL,
	  .help = "handed to al-both" },
	{ 0 }
};
static const qopt_pipeline_step outer_steps[] = {
	{ .pass = "al-both", .forward = fwd_match, .fixed = fix_no_note },
	{ .pass = "al-note", .fixed = fix_outer },
	{ 0 }
};
static const qopt_pipeline_step loop_a_steps[] = {
	{ .pass = "al-note" }, { .pass = "al-loop-b" }, { 0 }
};
static const qopt_pipeline_step loop_b_steps[] = {
	{ .pass = "al-loop-a" }, { 0 }
};
static const qopt_pipeline_step ghost_steps[] = {
	{ .pass = "al-note" }, { .pass = "al-missing" }, { 0 }
};
static const qopt_option_spec badfwd_opts[] = {
	{ .name = "tag", .type = QOPT_OPT_STRING, .help = "not al-ren's" },
	{ 0 }
};
static const qopt_pipeline_step badfwd_steps[] = {
	{ .pass = "al-ren", .forward = fwd_tag }, { 0 }
};
/* Its default is al-note's own: not handed on unless the user sets it. */
static const qopt_option_spec same_opts[] = {
	{ .name = "tag", .type = QOPT_OPT_STRING, .default_value = "none",
	  .help = "handed to al-note" },
	{ 0 }
};
static const qopt_pipeline_step same_steps[] = {
	{ .pass = "al-note", .forward = fwd_tag }, { 0 }
};
#endif

static const qopt_pipeline_info pipelines[] = {
#if defined(ALIAS_DUP)
	/* named like a pass of tests/plugins/good.c */
	{ .name = "t-opts", .summary = "clashes with good.so's pass",
	  .options = both_opts, .steps = both_steps },
#endif
	{ .name = "al-both", .summary = "al-note then al-ren",
	  .options = both_opts, .steps = both_steps,
	  .flags = QOPT_PASS_HAS_TARGETS },
#if !defined(ALIAS_DUP)
	{ .name = "al-outer", .summary = "al-both without its note, then a note",
	  .options = outer_opts, .steps = outer_steps },
	{ .name = "al-loop-a", .summary = "expands to itself through al-loop-b",
	  .steps = loop_a_steps },
	{ .name = "al-loop-b", .summary = "expands to al-loop-a",
	  .steps = loop_b_steps },
	{ .name = "al-ghost", .summary = "names a pass nobody provides",
	  .steps = ghost_steps },
	{ .name = "al-badfwd", .summary = "forwards an option al-ren lacks",
	  .options = badfwd_opts, .steps = badfwd_steps },
	{ .name = "al-same", .summary = "forwards tag, whose default is al-note's",
	  .options = same_opts, .steps = same_steps },
#endif
	{ 0 }
};

#if defined(ALIAS_DUP)
/* Only a pipeline, named like one of the first build's. */
QOPT_PLUGIN_PIPELINES("test-alias-dup", "1", NULL, pipelines)
#elif defined(ALIAS_BIG_STEP)
/* Claims step entries larger than this qopt knows. */
static const qopt_plugin_info info = {
	.abi_major = QOPT_ABI_MAJOR, .abi_minor = QOPT_ABI_MINOR,
	.info_size = sizeof(qopt_plugin_info),
	.pass_size = sizeof(qopt_pass_info),
	.option_size = sizeof(qopt_option_spec),
	.name = "test-alias-big", .version = "1", .passes = passes,
	.pipeline_size = sizeof(qopt_pipeline_info),
	.step_size = sizeof(qopt_pipeline_step) + 8,
	.pipelines = pipelines,
};

QOPT_EXPORT const qopt_plugin_info *qopt_plugin_entry(void)
{
	return &info;
}
#else
QOPT_PLUGIN_PIPELINES("test-alias", "1", passes, pipelines)
#endif
