/*
 * tests/plugins/calib-pipe.c - the one-command form's hand-over of a
 * measured calibration file (core/manager/calib-query.c) through a
 * named pipeline: t-calib-read asks for one value's range and reads
 * option `calibration`; t-calib-echo only takes the option and says
 * what it was given; t-calib-pipe runs echo, read, echo. And
 * t-calib-blind asks for a range with no option to read it from, which
 * the one-command form refuses.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <qopt/qopt.h>

static const qopt_option_spec read_opts[] = {
	{ .name = "tensor", .type = QOPT_OPT_STRING, .default_value = "A",
	  .help = "the value to measure" },
	{ .name = "calibration", .type = QOPT_OPT_STRING,
	  .flags = QOPT_OPT_PATH, .help = "the calibration file" },
	{ 0 }
};
static const qopt_option_spec blind_opts[] = {
	{ .name = "tensor", .type = QOPT_OPT_STRING, .default_value = "A",
	  .help = "the value to measure" },
	{ 0 }
};
static const qopt_option_spec echo_opts[] = {
	{ .name = "calibration", .type = QOPT_OPT_STRING,
	  .flags = QOPT_OPT_PATH, .help = "a calibration file, only shown" },
	{ 0 }
};

static qopt_status targets(qopt_ctx *ctx, qir_model *m)
{
	const char *name = qopt_opt_string(ctx, "tensor");
	qir_value *v = qir_graph_find_value(m->graph, name);

	if (!v) {
		qopt_error(ctx, "no value '%s'", name);
		return QOPT_ENOTFOUND;
	}
	return qopt_want_range(ctx, v);
}

/* "calibration PATH (readable)" or "calibration none": the path and
 * whether the file is still there when this step runs. */
static qopt_status echo_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	const char *p = qopt_opt_is_set(ctx, "calibration") ?
			qopt_opt_string(ctx, "calibration") : NULL;

	(void)m;
	(void)changed;
	if (p)
		qopt_info(ctx, "calibration %s (%s)", p,
			  access(p, R_OK) ? "missing" : "readable");
	else
		qopt_info(ctx, "calibration none");
	return QOPT_OK;
}

/* As echo_run, and whether the file names the value asked for. */
static qopt_status read_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	const char *p = qopt_opt_is_set(ctx, "calibration") ?
			qopt_opt_string(ctx, "calibration") : NULL;
	char text[4096], key[300];
	size_t n = 0;
	FILE *f = p ? fopen(p, "r") : NULL;

	if (f) {
		n = fread(text, 1, sizeof(text) - 1, f);
		fclose(f);
	}
	text[n] = 0;
	snprintf(key, sizeof(key), "\"%s\"", qopt_opt_string(ctx, "tensor"));
	qopt_info(ctx, "read: %s", strstr(text, key) ? "holds the tensor" :
		  "no such tensor");
	return echo_run(ctx, m, changed);
}

static qopt_status blind_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	(void)m;
	(void)changed;
	qopt_info(ctx, "ran");
	return QOPT_OK;
}

static const qopt_pass_info passes[] = {
	{ .name = "t-calib-read", .summary = "asks for one value's range "
	  "and reads option calibration", .options = read_opts,
	  .run = read_run, .calibration_targets = targets },
	{ .name = "t-calib-echo", .summary = "says which calibration file "
	  "it was given", .options = echo_opts, .run = echo_run },
	{ .name = "t-calib-blind", .summary = "asks for one value's range "
	  "with no option to read it from", .options = blind_opts,
	  .run = blind_run, .calibration_targets = targets },
	{ 0 }
};

static const qopt_option_spec pipe_opts[] = {
	{ .name = "tensor", .type = QOPT_OPT_STRING,
	  .help = "handed to t-calib-read" },
	{ 0 }
};
static const char *const fwd_tensor[] = { "tensor", NULL };
static const qopt_pipeline_step pipe_steps[] = {
	{ .pass = "t-calib-echo" },
	{ .pass = "t-calib-read", .forward = fwd_tensor },
	{ .pass = "t-calib-echo" },
	{ 0 }
};
static const qopt_pipeline_info pipelines[] = {
	{ .name = "t-calib-pipe", .summary = "echo, read, echo",
	  .options = pipe_opts, .steps = pipe_steps },
	{ 0 }
};

QOPT_PLUGIN_PIPELINES("test-calib-pipe", "1", passes, pipelines)
