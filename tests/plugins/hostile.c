/*
 * tests/plugins/hostile.c - passes that end the process under qopt:
 * "t-exit" calls exit(0) (qopt must not exit 0 without an output),
 * "t-crash" dies of SIGSEGV (qopt must name the pass).
 */
#include <signal.h>
#include <stdlib.h>
#include <qopt/qopt.h>

static int exit_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	(void)ctx;
	(void)m;
	(void)changed;
	exit(0);
}

static int crash_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	(void)ctx;
	(void)m;
	(void)changed;
	raise(SIGSEGV);
	return 0;
}

static const qopt_pass_info passes[] = {
	{ .name = "t-exit", .summary = "calls exit(0)", .options = NULL,
	  .run = exit_run, .flags = 0 },
	{ .name = "t-crash", .summary = "dies of SIGSEGV", .options = NULL,
	  .run = crash_run, .flags = 0 },
	{ 0 }
};

QOPT_PLUGIN("test-hostile", "1.0", passes)
