/* tests/plugins/needs-symbol.c - a plugin of this very ABI that calls a
 * public function no libqopt has (linked without it): the loader must
 * name the function from the plugin's symbol table, not from the
 * dynamic linker's message. */
#include <qopt/qopt.h>

qopt_status qopt_not_in_any_release(qopt_ctx *ctx);

static qopt_status run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	(void)m;
	(void)changed;
	return qopt_not_in_any_release(ctx);
}

static const qopt_pass_info passes[] = {
	{ .name = "t-needs-symbol", .summary = "uses a function nobody has",
	  .run = run },
	{ 0 }
};

QOPT_PLUGIN("test-needs-symbol", "1", passes)
