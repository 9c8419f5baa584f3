/* tests/plugins/malformed.c - a pass without a run function. */
#include <qopt/qopt.h>

static const qopt_pass_info passes[] = {
	{ .name = "t-norun", .summary = "has no run function", .options = NULL,
	  .run = NULL, .flags = 0 },
	{ 0 }
};

QOPT_PLUGIN("test-malformed", "1", passes)
