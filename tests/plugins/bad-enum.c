/* tests/plugins/bad-enum.c - an enum option without choices; built with
 * BAD_PATH, an int option flagged as a path; with BAD_POW2, a float
 * option flagged as a power of two; with BAD_REQUIRED, a required option
 * with a default; with BAD_FLAG, an option flag bit no qopt knows (a
 * later minor's). */
#include <qopt/qopt.h>

static const qopt_option_spec opts[] = {
#if defined(BAD_REQUIRED)
	{ .name = "target", .type = QOPT_OPT_STRING, .default_value = "x",
	  .flags = QOPT_OPT_REQUIRED, .help = "required, yet defaulted" },
#elif defined(BAD_FLAG)
	{ .name = "target", .type = QOPT_OPT_STRING, .flags = 1u << 20,
	  .help = "a flag from the future" },
#elif defined(BAD_POW2)
	{ .name = "scale", .type = QOPT_OPT_FLOAT, .flags = QOPT_OPT_POW2,
	  .help = "not an integer, so not a power of two" },
#elif defined(BAD_PATH)
	{ .name = "count", .type = QOPT_OPT_INT, .flags = QOPT_OPT_PATH,
	  .help = "not a string, so not a path" },
#else
	{ .name = "mode", .type = QOPT_OPT_ENUM, .default_value = NULL,
	  .help = "no words" },
#endif
	{ 0 }
};

static int run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	(void)ctx;
	(void)m;
	*changed = 0;
	return 0;
}

static const qopt_pass_info passes[] = {
	{ .name = "t-bad-enum", .summary = "malformed option", .options = opts,
	  .run = run, .flags = 0 },
	{ 0 }
};

QOPT_PLUGIN("test-bad-enum", "1", passes)
