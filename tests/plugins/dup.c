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
	{ "t-dup-unique", "fine on its own", NULL, run, 0 },
	{ "t-opts", "clashes with test-good", NULL, run, 0 },
	{ 0 }
};

QOPT_PLUGIN("test-dup", "1", passes)
