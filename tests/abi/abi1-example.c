/*
 * tests/abi/abi1-example.c - plugins/example/example-rename.c as qopt 0.1
 * (plugin ABI 1) shipped it, kept verbatim below this comment for
 * tests/abi/plugins.sh, which ports it with tools/qopt-port-abi1.py.
 *
 * example-rename.c - an out-of-tree qopt pass: renames the intermediate
 * values whose name matches a glob, then records what it did in the
 * model's metadata. Built against an installed qopt (see Makefile).
 *
 *	qopt --load ./example-rename.so \
 *	     --passes 'example-rename:match=conv*;relu*:prefix=x_' \
 *	     model.onnx -o out.onnx
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qopt/qopt.h>

static const qopt_option_spec options[] = {
	{ "match", QOPT_OPT_LIST, "*", "globs of value names to rename" },
	{ "prefix", QOPT_OPT_STRING, "renamed_", "text put before the name" },
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
		return -1;
	}
	sprintf(name, "%s%s", prefix, v->name);
	rc = qir_value_rename(v, name, &err);
	free(name);
	if (rc < 0) {
		qopt_error(ctx, "cannot rename %s: %s", v->name, err.msg);
		return -1;
	}
	qopt_stat_add(ctx, "values renamed", 1);
	return 1;
}

static int run(qopt_ctx *ctx, qir_model *m, int *changed)
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
				return -1;
			renamed += rc;
		}
	}
	if (!renamed)
		return 0;
	snprintf(count, sizeof(count), "%lld", (long long)renamed);
	if (qopt_may_rewrite(ctx, "metadata example-rename.count = %s",
			     count) &&
	    qir_model_set_metadata(m, "example-rename.count", count) < 0) {
		qopt_error(ctx, "cannot set metadata");
		return -1;
	}
	qopt_info(ctx, "renamed %lld values", (long long)renamed);
	*changed = 1;
	return 0;
}

static const qopt_pass_info passes[] = {
	{ "example-rename", "prefixes the names of matching intermediate values",
	  options, run, QOPT_PASS_HAS_TARGETS },
	{ 0 }
};

static const qopt_plugin_info info = {
	QOPT_ABI_VERSION, "example-rename", "1.0", passes
};

QOPT_EXPORT const qopt_plugin_info *qopt_plugin_entry(void)
{
	return &info;
}
