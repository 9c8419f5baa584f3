/* tests/plugins/bad-abi.c - a plugin built for a later ABI major. */
#include <qopt/qopt.h>

static int run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	(void)ctx;
	(void)m;
	(void)changed;
	return 0;
}

static const qopt_pass_info passes[] = {
	{ .name = "t-future", .summary = "from the future", .options = NULL,
	  .run = run, .flags = 0 },
	{ 0 }
};

static const qopt_plugin_info info = {
	QOPT_ABI_MAJOR + 40, 0, sizeof(qopt_plugin_info),
	sizeof(qopt_pass_info), sizeof(qopt_option_spec),
	"test-bad-abi", "9", passes,
	sizeof(qopt_pipeline_info), sizeof(qopt_pipeline_step), NULL
};

QOPT_EXPORT const qopt_plugin_info *qopt_plugin_entry(void)
{
	return &info;
}
