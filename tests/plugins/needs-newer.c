/* tests/plugins/needs-newer.c - a plugin calling a function a later
 * libqopt will have and this one does not (linked without it: the
 * loader, not the linker, has to explain). */
#include <qopt/qopt.h>

int qopt_from_a_later_release(qopt_ctx *ctx);

static int run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	(void)m;
	(void)changed;
	return qopt_from_a_later_release(ctx);
}

static const qopt_pass_info passes[] = {
	{ .name = "t-needs-newer", .summary = "uses a function from a later release", .options = NULL,
	  .run = run, .flags = 0 },
	{ 0 }
};

static const qopt_plugin_info info = {
	QOPT_ABI_MAJOR, QOPT_ABI_MINOR + 1, sizeof(qopt_plugin_info),
	sizeof(qopt_pass_info), sizeof(qopt_option_spec),
	"test-needs-newer", "1", passes,
	sizeof(qopt_pipeline_info), sizeof(qopt_pipeline_step), NULL
};

QOPT_EXPORT const qopt_plugin_info *qopt_plugin_entry(void)
{
	return &info;
}
