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
/* Graphs only a linear check survives: a pipeline naming itself twice
 * (exponential to walk before the cycle closes), 30 levels each naming
 * the next twice (2^30 passes) and 34 nested without a cycle. */
static const qopt_pipeline_step self_steps[] = {
	{ .pass = "al-note" }, { .pass = "al-self" }, { .pass = "al-self" },
	{ 0 }
};
#define AL_TWICE(n, next) \
	static const qopt_pipeline_step dag##n[] = { \
		{ .pass = next }, { .pass = next }, { 0 } };
#define AL_ONCE(n, next) \
	static const qopt_pipeline_step nest##n[] = { { .pass = next }, { 0 } };
AL_TWICE(1, "al-dag2")
AL_TWICE(2, "al-dag3")
AL_TWICE(3, "al-dag4")
AL_TWICE(4, "al-dag5")
AL_TWICE(5, "al-dag6")
AL_TWICE(6, "al-dag7")
AL_TWICE(7, "al-dag8")
AL_TWICE(8, "al-dag9")
AL_TWICE(9, "al-dag10")
AL_TWICE(10, "al-dag11")
AL_TWICE(11, "al-dag12")
AL_TWICE(12, "al-dag13")
AL_TWICE(13, "al-dag14")
AL_TWICE(14, "al-dag15")
AL_TWICE(15, "al-dag16")
AL_TWICE(16, "al-dag17")
AL_TWICE(17, "al-dag18")
AL_TWICE(18, "al-dag19")
AL_TWICE(19, "al-dag20")
AL_TWICE(20, "al-dag21")
AL_TWICE(21, "al-dag22")
AL_TWICE(22, "al-dag23")
AL_TWICE(23, "al-dag24")
AL_TWICE(24, "al-dag25")
AL_TWICE(25, "al-dag26")
AL_TWICE(26, "al-dag27")
AL_TWICE(27, "al-dag28")
AL_TWICE(28, "al-dag29")
AL_TWICE(29, "al-dag30")
AL_TWICE(30, "al-note")
AL_ONCE(1, "al-nest2")
AL_ONCE(2, "al-nest3")
AL_ONCE(3, "al-nest4")
AL_ONCE(4, "al-nest5")
AL_ONCE(5, "al-nest6")
AL_ONCE(6, "al-nest7")
AL_ONCE(7, "al-nest8")
AL_ONCE(8, "al-nest9")
AL_ONCE(9, "al-nest10")
AL_ONCE(10, "al-nest11")
AL_ONCE(11, "al-nest12")
AL_ONCE(12, "al-nest13")
AL_ONCE(13, "al-nest14")
AL_ONCE(14, "al-nest15")
AL_ONCE(15, "al-nest16")
AL_ONCE(16, "al-nest17")
AL_ONCE(17, "al-nest18")
AL_ONCE(18, "al-nest19")
AL_ONCE(19, "al-nest20")
AL_ONCE(20, "al-nest21")
AL_ONCE(21, "al-nest22")
AL_ONCE(22, "al-nest23")
AL_ONCE(23, "al-nest24")
AL_ONCE(24, "al-nest25")
AL_ONCE(25, "al-nest26")
AL_ONCE(26, "al-nest27")
AL_ONCE(27, "al-nest28")
AL_ONCE(28, "al-nest29")
AL_ONCE(29, "al-nest30")
AL_ONCE(30, "al-nest31")
AL_ONCE(31, "al-nest32")
AL_ONCE(32, "al-nest33")
AL_ONCE(33, "al-nest34")
AL_ONCE(34, "al-note")
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
	{ .name = "al-self", .summary = "names itself twice", .steps = self_steps },
	{ .name = "al-dag1", .summary = "the next level twice", .steps = dag1 },
	{ .name = "al-dag2", .summary = "the next level twice", .steps = dag2 },
	{ .name = "al-dag3", .summary = "the next level twice", .steps = dag3 },
	{ .name = "al-dag4", .summary = "the next level twice", .steps = dag4 },
	{ .name = "al-dag5", .summary = "the next level twice", .steps = dag5 },
	{ .name = "al-dag6", .summary = "the next level twice", .steps = dag6 },
	{ .name = "al-dag7", .summary = "the next level twice", .steps = dag7 },
	{ .name = "al-dag8", .summary = "the next level twice", .steps = dag8 },
	{ .name = "al-dag9", .summary = "the next level twice", .steps = dag9 },
	{ .name = "al-dag10", .summary = "the next level twice", .steps = dag10 },
	{ .name = "al-dag11", .summary = "the next level twice", .steps = dag11 },
	{ .name = "al-dag12", .summary = "the next level twice", .steps = dag12 },
	{ .name = "al-dag13", .summary = "the next level twice", .steps = dag13 },
	{ .name = "al-dag14", .summary = "the next level twice", .steps = dag14 },
	{ .name = "al-dag15", .summary = "the next level twice", .steps = dag15 },
	{ .name = "al-dag16", .summary = "the next level twice", .steps = dag16 },
	{ .name = "al-dag17", .summary = "the next level twice", .steps = dag17 },
	{ .name = "al-dag18", .summary = "the next level twice", .steps = dag18 },
	{ .name = "al-dag19", .summary = "the next level twice", .steps = dag19 },
	{ .name = "al-dag20", .summary = "the next level twice", .steps = dag20 },
	{ .name = "al-dag21", .summary = "the next level twice", .steps = dag21 },
	{ .name = "al-dag22", .summary = "the next level twice", .steps = dag22 },
	{ .name = "al-dag23", .summary = "the next level twice", .steps = dag23 },
	{ .name = "al-dag24", .summary = "the next level twice", .steps = dag24 },
	{ .name = "al-dag25", .summary = "the next level twice", .steps = dag25 },
	{ .name = "al-dag26", .summary = "the next level twice", .steps = dag26 },
	{ .name = "al-dag27", .summary = "the next level twice", .steps = dag27 },
	{ .name = "al-dag28", .summary = "the next level twice", .steps = dag28 },
	{ .name = "al-dag29", .summary = "the next level twice", .steps = dag29 },
	{ .name = "al-dag30", .summary = "the next level twice", .steps = dag30 },
	{ .name = "al-nest1", .summary = "the next level once", .steps = nest1 },
	{ .name = "al-nest2", .summary = "the next level once", .steps = nest2 },
	{ .name = "al-nest3", .summary = "the next level once", .steps = nest3 },
	{ .name = "al-nest4", .summary = "the next level once", .steps = nest4 },
	{ .name = "al-nest5", .summary = "the next level once", .steps = nest5 },
	{ .name = "al-nest6", .summary = "the next level once", .steps = nest6 },
	{ .name = "al-nest7", .summary = "the next level once", .steps = nest7 },
	{ .name = "al-nest8", .summary = "the next level once", .steps = nest8 },
	{ .name = "al-nest9", .summary = "the next level once", .steps = nest9 },
	{ .name = "al-nest10", .summary = "the next level once", .steps = nest10 },
	{ .name = "al-nest11", .summary = "the next level once", .steps = nest11 },
	{ .name = "al-nest12", .summary = "the next level once", .steps = nest12 },
	{ .name = "al-nest13", .summary = "the next level once", .steps = nest13 },
	{ .name = "al-nest14", .summary = "the next level once", .steps = nest14 },
	{ .name = "al-nest15", .summary = "the next level once", .steps = nest15 },
	{ .name = "al-nest16", .summary = "the next level once", .steps = nest16 },
	{ .name = "al-nest17", .summary = "the next level once", .steps = nest17 },
	{ .name = "al-nest18", .summary = "the next level once", .steps = nest18 },
	{ .name = "al-nest19", .summary = "the next level once", .steps = nest19 },
	{ .name = "al-nest20", .summary = "the next level once", .steps = nest20 },
	{ .name = "al-nest21", .summary = "the next level once", .steps = nest21 },
	{ .name = "al-nest22", .summary = "the next level once", .steps = nest22 },
	{ .name = "al-nest23", .summary = "the next level once", .steps = nest23 },
	{ .name = "al-nest24", .summary = "the next level once", .steps = nest24 },
	{ .name = "al-nest25", .summary = "the next level once", .steps = nest25 },
	{ .name = "al-nest26", .summary = "the next level once", .steps = nest26 },
	{ .name = "al-nest27", .summary = "the next level once", .steps = nest27 },
	{ .name = "al-nest28", .summary = "the next level once", .steps = nest28 },
	{ .name = "al-nest29", .summary = "the next level once", .steps = nest29 },
	{ .name = "al-nest30", .summary = "the next level once", .steps = nest30 },
	{ .name = "al-nest31", .summary = "the next level once", .steps = nest31 },
	{ .name = "al-nest32", .summary = "the next level once", .steps = nest32 },
	{ .name = "al-nest33", .summary = "the next level once", .steps = nest33 },
	{ .name = "al-nest34", .summary = "the next level once", .steps = nest34 },
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
