/*
 * tests/plugins/counter.c - many gated rewrites: each sets one metadata
 * entry PREFIX.I = "ok"; "t-corrupt" writes "CORRUPT" at rewrite
 * number `bad` of its run (what tests/cli/bisect-check.c looks for).
 */
#include <math.h>
#include <stdio.h>
#include <qopt/qopt.h>

static const qopt_option_spec count_opts[] = {
	{ .name = "count", .type = QOPT_OPT_INT, .default_value = "20",
	  .help = "rewrites per run" },
	{ .name = "prefix", .type = QOPT_OPT_STRING, .default_value = "count",
	  .help = "metadata key prefix" },
	{ .name = "bad", .type = QOPT_OPT_INT, .default_value = "0",
	  .help = "rewrite (1-based) that corrupts; 0: none" },
	{ 0 }
};

static qopt_status count_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	int64_t i, n = qopt_opt_int(ctx, "count"), bad = qopt_opt_int(ctx, "bad");
	const char *prefix = qopt_opt_string(ctx, "prefix");
	char key[128];

	for (i = 1; i <= n; i++) {
		snprintf(key, sizeof(key), "%s.%lld", prefix, (long long)i);
		if (!qopt_may_rewrite(ctx, "set %s", key)) {
			qopt_stat_add(ctx, "skipped", 1);
			continue;
		}
		if (qir_model_set_metadata(m, key, i == bad ? "CORRUPT" : "ok") < 0) {
			qopt_error(ctx, "cannot set metadata %s", key);
			return QOPT_ENOMEM;
		}
		qopt_stat_add(ctx, "entries set", 1);
		*changed = 1;
	}
	{
		/* one record: strings escaped, a non-finite number null */
		const qopt_field f[] = { { "prefix", prefix, 0 },
			{ "count", NULL, (double)n },
			{ "quote\"d\n", "back\\slash\t", 0 },
			{ "none", NULL, HUGE_VAL } };

		qopt_record(ctx, "t-count run", f, 4);
	}
	return 0;
}

/* Rewrites every element of every FLOAT initializer; only rewrite
 * number `bad` changes a value (adds 1), so a numeric checker can
 * tell where it went wrong. */
static qopt_status perturb_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	int64_t bad = qopt_opt_int(ctx, "bad"), k = 0;
	qir_error err = { 0 };
	size_t i;
	uint64_t j;

	for (i = 0; i < m->graph->ninits; i++) {
		qir_tensor *t = m->graph->inits[i]->init;
		float *d;

		if (t->dtype != QIR_FLOAT)
			continue;
		d = qir_tensor_mutable_data(t, &err);
		if (!d) {
			qopt_error(ctx, "%s: %s", t->name, err.msg);
			return err.code;
		}
		for (j = 0; j < qir_tensor_numel(t); j++) {
			if (!qopt_may_rewrite(ctx, "%s[%llu]", t->name,
					      (unsigned long long)j))
				continue;
			if (++k == bad)
				d[j] += 1.0f;
			*changed = 1;
		}
	}
	return 0;
}

static const qopt_pass_info passes[] = {
	{ .name = "t-count", .summary = "sets COUNT metadata entries, one rewrite each", .options = count_opts,
	  .run = count_run, .flags = 0 },
	{ .name = "t-corrupt", .summary = "like t-count, but rewrite BAD writes CORRUPT", .options = count_opts,
	  .run = count_run, .flags = 0 },
	{ .name = "t-perturb", .summary = "touches every float weight; rewrite BAD adds 1", .options = count_opts,
	  .run = perturb_run, .flags = 0 },
	{ 0 }
};

QOPT_PLUGIN("test-counter", "0.1", passes)
