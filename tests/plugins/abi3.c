/*
 * tests/plugins/abi3.c - a plugin as ABI 3.1 built it. Its tables have
 * 4.0's layout (4.0 changed the caller-allocated option structs, not
 * the plugin tables), but a 3.x plugin may fill a qir_save_opts or a
 * qir_upgrade_report without the size field 4.0 put first: another
 * major, refused, pointing at the 3 -> 4 porting notes.
 */
#include <qopt/qopt.h>

static qopt_status run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	(void)ctx;
	(void)m;
	*changed = 0;
	return QOPT_OK;
}

static const qopt_pass_info passes[] = {
	{ .name = "t-abi3", .summary = "a pass of an ABI 3.1 plugin",
	  .run = run },
	{ 0 }
};

static const qopt_plugin_info info = {
	.abi_major = 3, .abi_minor = 1, .info_size = sizeof(qopt_plugin_info),
	.pass_size = sizeof(qopt_pass_info),
	.option_size = sizeof(qopt_option_spec),
	.name = "t-abi3", .version = "1.0", .passes = passes,
};

const qopt_plugin_info *qopt_plugin_entry(void)
{
	return &info;
}
