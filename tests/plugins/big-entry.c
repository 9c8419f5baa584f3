/*
 * tests/plugins/big-entry.c - a table whose recorded pass entry size is
 * larger than qopt_pass_info, with this ABI's minor: no such plugin can
 * exist, and walking its passes with that stride would read past the
 * one entry and the terminator it provides. The loader must refuse it.
 */
#include <qopt/qopt.h>

static int run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	(void)ctx;
	(void)m;
	*changed = 0;
	return 0;
}

static const qopt_pass_info passes[] = {
	{ .name = "t-big-entry", .summary = "claims entries larger than they are", .options = NULL,
	  .run = run, .flags = 0 },
	{ 0 }
};

static const qopt_plugin_info info = {
	QOPT_ABI_MAJOR, QOPT_ABI_MINOR, sizeof(qopt_plugin_info),
	4096 * sizeof(qopt_pass_info), sizeof(qopt_option_spec),
	"test-big-entry", "1", passes,
	sizeof(qopt_pipeline_info), sizeof(qopt_pipeline_step), NULL
};

QOPT_EXPORT const qopt_plugin_info *qopt_plugin_entry(void)
{
	return &info;
}
