/* tests/plugins/malformed.c - a pass without a run function. */
#include <qopt/qopt.h>

static const qopt_pass_info passes[] = {
	{ "t-norun", "has no run function", NULL, NULL, 0 },
	{ 0 }
};

QOPT_PLUGIN("test-malformed", "1", passes)
