/* tests/plugins/dup.c - registers a pass name good.so already has. */
#include <qopt/qopt.h>

static int run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	(void)ctx;
	(void)m;
	(void)changed;
	return 0;
}

static const qopt_pass_info passes[] = {
	{ .name = "t-dup-unique", .summary = "fine on its own", .options = NULL,
	  .run = run, .flags = 0 },
	{ .name = "t-opts", .summary = "clashes with test-good", .options = NULL,
	  .run = run, .flags = 0 },
	{ 0 }
};

QOPT_PLUGIN("test-dup", "1", passes)
