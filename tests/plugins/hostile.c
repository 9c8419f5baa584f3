/*
 * tests/plugins/hostile.c - passes that end the process under qopt:
 * "t-exit" calls exit(0) (qopt must not exit 0 without an output),
 * "t-crash" dies of SIGSEGV, "t-bus" of SIGBUS (qopt must name the
 * pass).
 *
 * Files that fail under a mapping (docs/hostile-input.md):
 * "t-truncate" reads every initializer, truncates the file named by
 * its option "file" (the input model or its external data) to 0 bytes,
 * then reads them all again, as an input changed by another process
 * mid-run. "t-refuse" adds a 4 MiB deferred initializer whose recipe,
 * when the writer evaluates it straight into a mapping of the output's
 * data file, first truncates that file: its stores then land past the
 * end of the file and fault, as on a full btrfs that refuses a page.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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

/* Touches a byte of every page of every initializer. */
static unsigned read_all(qir_model *m)
{
	volatile unsigned sum = 0;
	qir_error err = { 0 };

	for (size_t i = 0; i < m->graph->ninits; i++) {
		qir_tensor *t = m->graph->inits[i]->init;
		const unsigned char *d = qir_tensor_data(t, &err);

		for (uint64_t k = 0; d && k < t->nbytes; k += 4096)
			sum += d[k];
	}
	return sum;
}

static int truncate_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	const char *file = qopt_opt_string(ctx, "file");

	(void)changed;
	read_all(m);
	if (!file || truncate(file, 0) < 0)
		return -1;
	read_all(m);
	return 0;
}

/* The file mapped at addr, from /proc/self/maps; 0 when found. */
static int mapped_file(const void *addr, char *path, size_t n)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4352];
	int rc = -1;

	while (f && rc && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char *slash = strchr(line, '/');

		if (sscanf(line, "%lx-%lx", &lo, &hi) != 2 || !slash ||
		    (uintptr_t)addr < lo || (uintptr_t)addr >= hi)
			continue;
		slash[strcspn(slash, "\n")] = 0;
		snprintf(path, n, "%s", slash);
		rc = 0;
	}
	if (f)
		fclose(f);
	return rc;
}

static int refuse_fill(void *state, qir_tensor *const *inputs,
		       size_t ninputs, void *const *dst, qir_error *err)
{
	char path[4096];

	(void)state;
	(void)inputs;
	(void)ninputs;
	(void)err;
	if (!mapped_file(dst[0], path, sizeof(path)))
		(void)truncate(path, 0);
	memset(dst[0], 0x5a, 4u << 20);
	return 0;
}

static const qir_recipe_ops refuse_ops = { .fill = refuse_fill };

static int refuse_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	static const int64_t dims[] = { 1 << 20 };
	const qir_tensor_spec spec = { .name = "refused", .dtype = QIR_FLOAT,
				       .rank = 1, .dims = dims };
	qir_tensor *t;
	qir_error err = { 0 };

	(void)ctx;
	if (qir_tensor_new_deferred(m, &refuse_ops, NULL, NULL, 0, &spec, 1,
				    &t, &err) < 0)
		return -1;
	if (!qir_graph_add_initializer(m->graph, t))
		return -1;
	*changed = 1;
	return 0;
}

static const qopt_option_spec truncate_opts[] = {
	{ .name = "file", .type = QOPT_OPT_STRING,
	  .help = "the file to truncate" },
	{ 0 }
};

static int bus_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	(void)ctx;
	(void)m;
	(void)changed;
	raise(SIGBUS);
	return 0;
}

static const qopt_pass_info passes[] = {
	{ .name = "t-exit", .summary = "calls exit(0)", .options = NULL,
	  .run = exit_run, .flags = 0 },
	{ .name = "t-crash", .summary = "dies of SIGSEGV", .options = NULL,
	  .run = crash_run, .flags = 0 },
	{ .name = "t-bus", .summary = "dies of SIGBUS", .options = NULL,
	  .run = bus_run, .flags = 0 },
	{ .name = "t-truncate", .summary = "truncates an input mid-run",
	  .options = truncate_opts, .run = truncate_run, .flags = 0 },
	{ .name = "t-refuse", .summary = "adds a tensor whose mapped output "
	  "page is refused", .options = NULL, .run = refuse_run, .flags = 0 },
	{ 0 }
};

QOPT_PLUGIN("test-hostile", "1.0", passes)
