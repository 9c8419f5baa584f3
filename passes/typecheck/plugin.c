/*
 * passes/typecheck/plugin.c - the typecheck pass: options and the run.
 * It changes nothing; what it finds are warnings (--strict makes them
 * errors).
 */
#include <stdlib.h>
#include <string.h>

#include "typecheck.h"
#include "../support/fail.h"

static const char *const expects[] = { "any", "float16", "bfloat16", NULL };

static qopt_status typecheck_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	struct typecheck_cfg cfg;
	int e = qopt_opt_enum(ctx, "expect"), rc = -1;

	*changed = 0;
	memset(&cfg, 0, sizeof(cfg));
	cfg.ctx = ctx;
	cfg.m = m;
	cfg.expect = e == 1 ? QIR_FLOAT16 : e == 2 ? QIR_BFLOAT16 : 0;
	if (ps_targets_init(&cfg.tg, ctx, PS_TARGET_INCLUDE) == 0 &&
	    typecheck_precisions(&cfg) == 0 && typecheck_islands(&cfg) == 0) {
		qopt_info(ctx, "%llu finding(s)%s",
			  (unsigned long long)cfg.findings,
			  cfg.findings ? " (warnings above; --strict fails the "
			  "run)" : ": what a strongly typed builder sees is "
			  "consistent");
		rc = 0;
	}
	free(cfg.nodes);
	ps_targets_fini(&cfg.tg);
	return ps_status(rc);
}

static const qopt_option_spec typecheck_opts[] = {
	{ .name = "expect", .type = QOPT_OPT_ENUM, .default_value = "any",
	  .choices = expects,
	  .help = "the precision the model is meant to compute in: with "
	  "float16 or bfloat16, every FLOAT island that 'allow' does not "
	  "name is a warning" },
	/* read through the toolkit's include globs */
	{ .name = "include", .type = QOPT_OPT_LIST, .default_value = NULL,
	  .help = "allow: globs over node and output names that may stay "
	  "FLOAT (an island holding one is asked for)" },
	{ 0 }
};

static const qopt_pass_info typecheck_passes[] = {
	{ .name = "typecheck",
	  .summary = "what TensorRT's strongly typed builder sees: each "
	  "node's precision, FLOAT islands and their Casts, mixed float "
	  "inputs, Q/DQ scale types; counts per precision (changes nothing)",
	  .options = typecheck_opts, .run = typecheck_run },
	{ 0 }
};

QOPT_PLUGIN("typecheck", "1.0", typecheck_passes)
