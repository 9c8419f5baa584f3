/*
 * tests/plugins/good.c - a well-formed plugin with several passes that
 * exercise the manager: typed options, failure, warnings, a broken IR,
 * a targeted pass that can match nothing, a pass that lies about
 * changing the IR, a pass returning any status.
 */
#include <stdio.h>
#include <string.h>
#include <qopt/qopt.h>

static const qopt_option_spec opts_opts[] = {
	{ .name = "flag", .type = QOPT_OPT_BOOL, .default_value = "no",
	  .help = "a bool" },
	{ .name = "block_size", .type = QOPT_OPT_INT, .default_value = "16",
	  .help = "an int" },
	{ .name = "ratio", .type = QOPT_OPT_FLOAT, .default_value = "0.5",
	  .help = "a float" },
	{ .name = "label", .type = QOPT_OPT_STRING, .default_value = NULL,
	  .help = "a string" },
	{ .name = "names", .type = QOPT_OPT_LIST, .default_value = "",
	  .help = "a list" },
	{ 0 }
};

/* Records its option values as metadata "t-opts.N", so tests can see
 * what the manager handed over. */
static qopt_status opts_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	char key[64], val[512];
	size_t n, i, len;
	const char *const *names = qopt_opt_list(ctx, "names", &n);
	const char *label = qopt_opt_string(ctx, "label");

	len = (size_t)snprintf(val, sizeof(val), "flag=%d block_size=%lld ratio=%g label=%s set=%d names=",
			       qopt_opt_bool(ctx, "flag"),
			       (long long)qopt_opt_int(ctx, "block_size"),
			       qopt_opt_float(ctx, "ratio"),
			       label ? label : "(null)",
			       qopt_opt_is_set(ctx, "block_size"));
	for (i = 0; i < n && len < sizeof(val); i++)
		len += (size_t)snprintf(val + len, sizeof(val) - len, "%s%s",
					i ? "|" : "", names[i]);
	snprintf(key, sizeof(key), "t-opts.%zu", m->nmetadata);
	if (!qopt_may_rewrite(ctx, "metadata %s", key))
		return 0;
	if (qir_model_set_metadata(m, key, val) < 0) {
		qopt_error(ctx, "cannot set metadata");
		return QOPT_ENOMEM;
	}
	qopt_stat_add(ctx, "options recorded", 1);
	qopt_info(ctx, "%s", val);
	*changed = 1;
	return 0;
}

static qopt_status fail_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	(void)m;
	(void)changed;
	qopt_error(ctx, "planned failure for the test");
	return QOPT_EPASS;
}

static qopt_status warn_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	(void)m;
	(void)changed;
	qopt_warn(ctx, "planned warning for the test");
	return 0;
}

/* A node reading a value nothing defines: the verifier must object. */
static qopt_status break_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	qir_graph *g = m->graph;
	qir_value *ghost = qir_value_new(g, "ghost");
	qir_node *n = qir_node_new(g, "Identity", NULL, "broken");

	if (!ghost || !n) {
		qopt_error(ctx, "cannot build the broken node");
		return QOPT_ENOMEM;
	}
	if (qir_node_add_input(n, ghost) < 0 ||
	    !qir_node_add_output(n, NULL, "broken_out")) {
		qopt_error(ctx, "cannot build the broken node");
		return QOPT_ENOMEM;
	}
	*changed = 1;
	return 0;
}

static const qopt_option_spec targets_opts[] = {
	{ .name = "match", .type = QOPT_OPT_LIST, .default_value = "",
	  .help = "node name prefixes to tag" },
	{ 0 }
};

static qopt_status targets_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	size_t n, i;
	const char *const *match = qopt_opt_list(ctx, "match", &n);
	qir_node *node;

	qir_graph_for_each_node(m->graph, node) {
		for (i = 0; i < n; i++) {
			if (strncmp(node->name, match[i], strlen(match[i])))
				continue;
			if (!qopt_may_rewrite(ctx, "tag %s", node->name))
				continue;
			if (qir_node_set_attr_int(node, "t_tagged", 1) < 0) {
				qopt_error(ctx, "out of memory tagging %s",
					   node->name);
				return QOPT_ENOMEM;
			}
			qopt_stat_add(ctx, "nodes tagged", 1);
			*changed = 1;
		}
	}
	return 0;
}

/* Changes the model but says it did not. */
static qopt_status lazy_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	(void)changed;
	if (qopt_may_rewrite(ctx, "metadata t-lazy") &&
	    qir_model_set_metadata(m, "t-lazy", "yes") < 0) {
		qopt_error(ctx, "out of memory setting metadata");
		return QOPT_ENOMEM;
	}
	return 0;
}

/* Progress for a terminal; and an option it never declared (with
 * misuse=yes), which must fail the pass. */
static const qopt_option_spec misuse_opts[] = {
	{ .name = "misuse", .type = QOPT_OPT_BOOL, .default_value = "no",
	  .help = "read an undeclared option" },
	{ 0 }
};

static qopt_status misuse_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	uint64_t i;

	(void)m;
	(void)changed;
	for (i = 0; i <= 1000; i++)
		qopt_progress(ctx, i, 1000, "steps");
	if (qopt_opt_bool(ctx, "misuse"))
		qopt_opt_int(ctx, "undeclared");
	return 0;
}

/* Returns what it is told (rc), logging an error first unless quiet:
 * how the manager reports each kind of return. */
static const qopt_option_spec status_opts[] = {
	{ .name = "rc", .type = QOPT_OPT_INT, .default_value = "16",
	  .help = "the value run() returns" },
	{ .name = "quiet", .type = QOPT_OPT_BOOL, .default_value = "no",
	  .help = "return without a message" },
	{ 0 }
};

static qopt_status status_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	int rc = (int)qopt_opt_int(ctx, "rc");

	(void)m;
	(void)changed;
	if (!qopt_opt_bool(ctx, "quiet"))
		qopt_error(ctx, "returning %d as told", rc);
	return rc;
}

/* Reads the file its path option names: the manager makes a relative
 * path from a pipeline file relative to that file's folder. */
static const qopt_option_spec path_opts[] = {
	{ .name = "file", .type = QOPT_OPT_STRING, .flags = QOPT_OPT_PATH,
	  .help = "a file to read" },
	{ .name = "word", .type = QOPT_OPT_STRING,
	  .help = "not a path: kept as written" },
	{ 0 }
};

static qopt_status path_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	const char *file = qopt_opt_string(ctx, "file");
	char line[256] = "";
	FILE *f;

	(void)m;
	(void)changed;
	f = file ? fopen(file, "r") : NULL;
	if (!f) {
		qopt_error(ctx, "cannot open '%s'", file ? file : "(unset)");
		return QOPT_EIO;
	}
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	fclose(f);
	line[strcspn(line, "\n")] = 0;
	qopt_info(ctx, "read '%s' from %s; word=%s", line, file,
		  qopt_opt_string(ctx, "word") ? qopt_opt_string(ctx, "word") :
		  "(unset)");
	return QOPT_OK;
}

static const qopt_pass_info passes[] = {
	{ .name = "t-opts", .summary = "records its options as metadata", .options = opts_opts,
	  .run = opts_run, .flags = 0 },
	{ .name = "t-fail", .summary = "always fails", .options = NULL,
	  .run = fail_run, .flags = 0 },
	{ .name = "t-warn", .summary = "always warns", .options = NULL,
	  .run = warn_run, .flags = 0 },
	{ .name = "t-break", .summary = "leaves an invalid IR", .options = NULL,
	  .run = break_run, .flags = 0 },
	{ .name = "t-targets", .summary = "tags nodes whose name starts with a prefix", .options = targets_opts,
	  .run = targets_run, .flags = QOPT_PASS_HAS_TARGETS },
	{ .name = "t-lazy", .summary = "changes the IR but reports no change", .options = NULL,
	  .run = lazy_run, .flags = 0 },
	{ .name = "t-misuse", .summary = "progress, and API misuse on request", .options = misuse_opts,
	  .run = misuse_run, .flags = 0 },
	{ .name = "t-status", .summary = "returns the status it is told",
	  .options = status_opts, .run = status_run },
	{ .name = "t-path", .summary = "reads the file it is given",
	  .options = path_opts, .run = path_run },
	{ 0 }
};

QOPT_PLUGIN("test-good", "1.2.3", passes)
