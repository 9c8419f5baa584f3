/* tests/plugins/newer-minor.c - a plugin built against a later minor of
 * this ABI than the running libqopt that uses nothing this one lacks
 * (no later function, no later table field): it must load.
 * newer-field.c and needs-newer.c use what this libqopt lacks. */
#include <qopt/qopt.h>

static int run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	(void)ctx;
	(void)m;
	(void)changed;
	return 0;
}

static const qopt_pass_info passes[] = {
	{ .name = "t-newer-minor", .summary = "from a later minor", .options = NULL,
	  .run = run, .flags = 0 },
	{ 0 }
};

static const qopt_plugin_info info = {
	QOPT_ABI_MAJOR, QOPT_ABI_MINOR + 1, sizeof(qopt_plugin_info),
	sizeof(qopt_pass_info), sizeof(qopt_option_spec),
	"test-newer-minor", "1", passes,
	sizeof(qopt_pipeline_info), sizeof(qopt_pipeline_step), NULL
};

QOPT_EXPORT const qopt_plugin_info *qopt_plugin_entry(void)
{
	return &info;
}
