/*
 * tests/plugins/old-minor.c - a plugin as ABI 2.0 built it: its option
 * entries end after `help` (2.1 added choices, flags, min, max), and its
 * table records 2.0's minor and entry sizes. The loader must read it
 * with those sizes and treat the missing fields as unset.
 */
#include <qopt/qopt.h>

struct opt_2_0 {
	const char *name;
	qopt_opt_type type;
	const char *default_value;
	const char *help;
};


static const struct opt_2_0 opts[] = {
	{ "level", QOPT_OPT_INT, "7", "an int" },
	{ "name", QOPT_OPT_STRING, "old", "a string" },
	{ 0 }
};

static int run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	(void)m;
	qopt_info(ctx, "old plugin: level=%lld name=%s",
		  (long long)qopt_opt_int(ctx, "level"),
		  qopt_opt_string(ctx, "name"));
	*changed = 0;
	return 0;
}

static const qopt_pass_info passes[] = {
	{ .name = "t-old-minor", .summary = "built against ABI 2.0", .options = (const qopt_option_spec *)(const void *)opts,
	  .run = run, .flags = 0 },
	{ 0 }
};

static const qopt_plugin_info info = {
	QOPT_ABI_MAJOR, 0, offsetof(qopt_plugin_info, pipeline_size),
	sizeof(qopt_pass_info), sizeof(struct opt_2_0), "test-old-minor", "1",
	passes, 0, 0, NULL
};

QOPT_EXPORT const qopt_plugin_info *qopt_plugin_entry(void)
{
	return &info;
}
