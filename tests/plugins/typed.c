/* tests/plugins/typed.c - options with allowed words and ranges, checked
 * by the manager; t-typed logs what it read. */
#include <qopt/qopt.h>

static const char *const modes[] = { "fast", "exact", NULL };
static const char *const ops[] = { "MatMul", "Gemm", NULL };

static const qopt_option_spec typed_opts[] = {
	{ .name = "mode", .type = QOPT_OPT_ENUM, .default_value = "fast",
	  .choices = modes, .help = "how" },
	{ .name = "level", .type = QOPT_OPT_INT, .default_value = "3",
	  .flags = QOPT_OPT_HAS_MIN | QOPT_OPT_HAS_MAX, .min = 1, .max = 9,
	  .help = "how hard" },
	{ .name = "ratio", .type = QOPT_OPT_FLOAT, .default_value = "0.5",
	  .flags = QOPT_OPT_HAS_MAX, .max = 1, .help = "a fraction" },
	{ .name = "ops", .type = QOPT_OPT_LIST, .default_value = "MatMul",
	  .choices = ops, .help = "op types" },
	/* ABI 4.1: a power of two from 2, or 0, with no range */
	{ .name = "block", .type = QOPT_OPT_INT, .default_value = "0",
	  .flags = QOPT_OPT_POW2, .help = "a block size" },
	{ 0 }
};

static int typed_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	size_t n;

	(void)m;
	qopt_opt_list(ctx, "ops", &n);
	qopt_info(ctx, "mode=%s(%d) level=%lld ratio=%g ops=%zu",
		  qopt_opt_string(ctx, "mode"), qopt_opt_enum(ctx, "mode"),
		  (long long)qopt_opt_int(ctx, "level"),
		  qopt_opt_float(ctx, "ratio"), n);
	*changed = 0;
	return 0;
}

/* ABI 4.4: an option the pipeline must give. */
static const qopt_option_spec required_opts[] = {
	{ .name = "target", .type = QOPT_OPT_STRING,
	  .flags = QOPT_OPT_REQUIRED, .help = "what to work on" },
	{ .name = "level", .type = QOPT_OPT_INT, .default_value = "1",
	  .help = "how hard" },
	{ 0 }
};

static int required_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	(void)m;
	qopt_info(ctx, "target=%s", qopt_opt_string(ctx, "target"));
	*changed = 0;
	return 0;
}

static const qopt_pass_info passes[] = {
	{ .name = "t-typed", .summary = "options with words and ranges", .options = typed_opts,
	  .run = typed_run, .flags = 0 },
	{ .name = "t-required", .summary = "an option it cannot run without",
	  .options = required_opts, .run = required_run, .flags = 0 },
	{ 0 }
};

QOPT_PLUGIN("test-typed", "1", passes)
