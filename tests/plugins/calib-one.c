/*
 * tests/plugins/calib-one.c - a pass whose calibration_targets (ABI 3.0)
 * asks `qopt calibrate` for exactly one value, named by its option, and
 * on request breaks the rules: changes the model while asked, or fails.
 * Run as a pass, it reports what qopt_want_range() answers outside the
 * query (QOPT_EUSAGE).
 */
#include <string.h>
#include <qopt/qopt.h>

static const qopt_option_spec opts[] = {
	{ .name = "tensor", .type = QOPT_OPT_STRING, .default_value = "A",
	  .help = "the value to measure" },
	{ .name = "misbehave", .type = QOPT_OPT_STRING, .default_value = "no",
	  .help = "no, mutate (change the model when asked), fail, foreign "
		  "(ask for a value of another model), freed (of a freed one)" },
	{ 0 }
};

static qir_value *find(qir_model *m, const char *name)
{
	qir_node *n;
	size_t i;

	for (i = 0; i < m->graph->ninputs; i++)
		if (!strcmp(m->graph->inputs[i]->name, name))
			return m->graph->inputs[i];
	qir_graph_for_each_node(m->graph, n)
		for (i = 0; i < n->noutputs; i++)
			if (n->outputs[i] && !strcmp(n->outputs[i]->name, name))
				return n->outputs[i];
	return NULL;
}

/* Asks for the input of a model of its own, live or freed; what the
 * query answers is returned, and ignored as a careless pass would. */
static qopt_status other_model(qopt_ctx *ctx, int freed)
{
	qir_error err = { 0 };
	qir_model *o = qir_model_new(8, 17, &err);
	qir_value *x = o ? qir_value_new(o->graph, "X") : NULL;

	if (!x || qir_graph_add_input(o->graph, x) < 0) {
		qir_model_free(o);
		return QOPT_ENOMEM;
	}
	if (freed)
		qir_model_free(o);
	(void)qopt_want_range(ctx, x);
	if (!freed)
		qir_model_free(o);
	return QOPT_OK;
}

static qopt_status targets(qopt_ctx *ctx, qir_model *m)
{
	const char *name = qopt_opt_string(ctx, "tensor");
	const char *bad = qopt_opt_string(ctx, "misbehave");
	qir_value *v = find(m, name);

	if (!strcmp(bad, "mutate") &&
	    qir_model_set_metadata(m, "calib-one", "changed") < 0)
		return QOPT_ENOMEM;
	if (!strcmp(bad, "fail")) {
		qopt_error(ctx, "planned failure");
		return QOPT_EPASS;
	}
	if (!v) {
		qopt_error(ctx, "no value '%s'", name);
		return QOPT_ENOTFOUND;
	}
	if (!strcmp(bad, "foreign") || !strcmp(bad, "freed"))
		return other_model(ctx, !strcmp(bad, "freed"));
	return qopt_want_range(ctx, v);
}

static qopt_status run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	qopt_status s = qopt_want_range(ctx, m->graph->inputs[0]);

	(void)changed;
	qopt_info(ctx, "qopt_want_range outside calibration_targets: %d (%s)",
		  (int)s, qopt_status_str(s));
	return QOPT_OK;
}

static const qopt_pass_info passes[] = {
	{ .name = "t-calib-one", .summary = "asks for one value's range",
	  .options = opts, .run = run, .calibration_targets = targets },
	{ 0 }
};

QOPT_PLUGIN("test-calib-one", "1", passes)
