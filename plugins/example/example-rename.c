/*
 * example-rename.c - an out-of-tree qopt plugin with two passes and a
 * named pipeline (ABI 3.0). example-rename renames the intermediate
 * values whose name matches a glob and records how many in the model's
 * metadata; example-stamp records a text there. example-tidy is the
 * pipeline of both: users write it like a pass, and the manager runs
 * its steps as passes of their own (bisect, --print-after and the
 * statistics see each). Built against an installed qopt (see Makefile).
 *
 *	qopt --load ./example-rename.so \
 *	     --passes 'example-rename:match=conv*;relu*:prefix=x_' \
 *	     model.onnx -o out.onnx
 *	qopt --load ./example-rename.so --print-pipeline \
 *	     --passes 'example-tidy:match=conv*:text=done'
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qopt/qopt.h>

static const qopt_option_spec options[] = {
	{ .name = "match", .type = QOPT_OPT_LIST, .default_value = "*",
	  .help = "globs of value names to rename" },
	{ .name = "prefix", .type = QOPT_OPT_STRING, .default_value = "renamed_",
	  .help = "text put before the name" },
	{ 0 }
};

static int matches(const char *name, const char *const *globs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (fnmatch(globs[i], name, 0) == 0)
			return 1;
	return 0;
}

/* Graph inputs and outputs are the model's interface: keep them. */
/* 1 renamed, 0 left alone, < 0 a qopt_status negated. */
static int rename_value(qopt_ctx *ctx, qir_value *v, const char *prefix)
{
	qir_error err = { 0 };
	char *name;
	int rc;

	if (!v || v->is_input || v->is_output)
		return 0;
	/* Ask the gate before every single rewrite: qopt bisect may
	 * stop here. */
	if (!qopt_may_rewrite(ctx, "rename %s", v->name)) {
		qopt_stat_add(ctx, "skipped (bisect)", 1);
		return 0;
	}
	name = malloc(strlen(prefix) + strlen(v->name) + 1);
	if (!name) {
		qopt_error(ctx, "out of memory");
		return -QOPT_ENOMEM;
	}
	sprintf(name, "%s%s", prefix, v->name);
	rc = qir_value_rename(v, name, &err);
	free(name);
	if (rc < 0) {
		qopt_error(ctx, "cannot rename %s: %s", v->name, err.msg);
		return -err.code;
	}
	qopt_stat_add(ctx, "values renamed", 1);
	return 1;
}

/* run() returns a qopt_status: QOPT_OK, or the failure's code after a
 * message saying what went wrong. */
static qopt_status run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	size_t nglobs, i;
	const char *const *globs = qopt_opt_list(ctx, "match", &nglobs);
	const char *prefix = qopt_opt_string(ctx, "prefix");
	int64_t renamed = 0;
	char count[32];
	qir_node *n;

	qir_graph_for_each_node(m->graph, n) {
		for (i = 0; i < n->noutputs; i++) {
			qir_value *v = n->outputs[i];
			int rc;

			if (!v || !matches(v->name, globs, nglobs))
				continue;
			rc = rename_value(ctx, v, prefix);
			if (rc < 0)
				return -rc;
			renamed += rc;
		}
	}
	if (!renamed)
		return QOPT_OK;
	snprintf(count, sizeof(count), "%lld", (long long)renamed);
	if (qopt_may_rewrite(ctx, "metadata example-rename.count = %s",
			     count) &&
	    qir_model_set_metadata(m, "example-rename.count", count) < 0) {
		qopt_error(ctx, "cannot set metadata");
		return QOPT_ENOMEM;
	}
	qopt_info(ctx, "renamed %lld values", (long long)renamed);
	*changed = 1;
	return QOPT_OK;
}

static const qopt_option_spec stamp_options[] = {
	{ .name = "text", .type = QOPT_OPT_STRING, .default_value = "stamped",
	  .help = "the value of metadata entry example-stamp" },
	{ 0 }
};

/* Records the text as metadata "example-stamp": one rewrite. */
static qopt_status stamp(qopt_ctx *ctx, qir_model *m, int *changed)
{
	const char *text = qopt_opt_string(ctx, "text");

	if (!qopt_may_rewrite(ctx, "metadata example-stamp = %s", text))
		return QOPT_OK;
	if (qir_model_set_metadata(m, "example-stamp", text) < 0) {
		qopt_error(ctx, "cannot set metadata");
		return QOPT_ENOMEM;
	}
	qopt_stat_add(ctx, "stamps", 1);
	*changed = 1;
	return QOPT_OK;
}

static const qopt_pass_info passes[] = {
	{ .name = "example-rename",
	  .summary = "prefixes the names of matching intermediate values",
	  .options = options, .run = run, .flags = QOPT_PASS_HAS_TARGETS },
	{ .name = "example-stamp",
	  .summary = "records a text in the model's metadata",
	  .options = stamp_options, .run = stamp },
	{ 0 }
};

/* The pipeline's own options: what users write on example-tidy. A
 * step gets those it forwards (when set, or defaulted here; an option
 * left unset and without a default leaves the pass's own default). */
static const qopt_option_spec tidy_options[] = {
	{ .name = "match", .type = QOPT_OPT_LIST, .default_value = NULL,
	  .help = "handed to example-rename" },
	{ .name = "prefix", .type = QOPT_OPT_STRING, .default_value = "tidy_",
	  .help = "handed to example-rename" },
	{ .name = "stamp", .type = QOPT_OPT_BOOL, .default_value = "yes",
	  .help = "run example-stamp" },
	{ .name = "text", .type = QOPT_OPT_STRING, .default_value = NULL,
	  .help = "handed to example-stamp" },
	{ 0 }
};
static const char *const rename_forward[] = { "match", "prefix", NULL };
static const char *const stamp_forward[] = { "text", NULL };

static const qopt_pipeline_step tidy_steps[] = {
	{ .pass = "example-rename", .forward = rename_forward },
	{ .pass = "example-stamp", .when = "stamp", .forward = stamp_forward },
	{ 0 }
};

static const qopt_pipeline_info pipelines[] = {
	{ .name = "example-tidy",
	  .summary = "example-rename, then example-stamp",
	  .options = tidy_options, .steps = tidy_steps,
	  .flags = QOPT_PASS_HAS_TARGETS },
	{ 0 }
};

QOPT_PLUGIN_PIPELINES("example-rename", "1.0", passes, pipelines)
