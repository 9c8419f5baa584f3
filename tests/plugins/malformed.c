/* tests/plugins/malformed.c - a pass without a run function. */
#include <qopt/qopt.h>

static const qopt_pass_info passes[] = {
	{ "t-norun", "has no run function", NULL, NULL, 0 },
	{ 0 }
};

static const qopt_plugin_info info = {
	QOPT_ABI_VERSION, "test-malformed", "1", passes
};

QOPT_EXPORT const qopt_plugin_info *qopt_plugin_entry(void)
{
	return &info;
}
