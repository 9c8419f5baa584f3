/*
 * passes/infer_shapes/plugin.c - the infer-shapes pass: writes the
 * element types and shapes qopt's inference gives (qir_model_infer,
 * docs/shape-inference.md) into the model as value_info, as
 * onnx.shape_inference does, so other tools and readers see them. The
 * IR already holds these types for every pass; only the file changes.
 * Declared types are kept; where inference disagrees with one, the
 * pass says so, naming the value.
 */
#include <stdio.h>
#include <stdlib.h>
#include <qopt/qopt.h>
#include "../support/fail.h"

static void note(void *arg, const char *msg)
{
	qopt_ctx *ctx = arg;

	qopt_info(ctx, "note: %s", msg);
	qopt_stat_add(ctx, "declared types inference disagrees with", 1);
}

struct walk {
	qopt_ctx *ctx;
	int *changed;
	int failed;
};

/* Declares one inferred value: copying its own shape onto itself makes
 * the type the value's declaration (written as value_info). */
static int declare(struct walk *w, qir_value *v)
{
	qir_error err = { 0 };

	if (!qir_value_type_inferred(v))
		return 0;
	if (!qopt_may_rewrite(w->ctx, "declare the type of '%s'", v->name))
		return 0;
	if (qir_value_copy_shape(v, v, v->dtype, &err) < 0) {
		ps_fail(w->ctx, err.code, "%s", err.msg);
		return -1;
	}
	qopt_stat_add(w->ctx, "types written", 1);
	*w->changed = 1;
	return 0;
}

static int declare_graph(qir_graph *g, void *arg)
{
	struct walk *w = arg;
	qir_node *n;

	/* a Loop body's inputs are typed from the Loop's */
	for (size_t i = 0; g->parent && i < g->ninputs; i++)
		if (declare(w, g->inputs[i]) < 0)
			return -1;
	qir_graph_for_each_node(g, n)
		for (size_t i = 0; i < n->noutputs; i++) {
			qir_value *v = n->outputs[i];

			if (!v)
				continue;
			if (declare(w, v) < 0)
				return -1;
			if (v->dtype == QIR_UNDEFINED) {
				qopt_stat_add(w->ctx, "values left untyped", 1);
				qopt_debug(w->ctx, "no type for '%s' (%s)", v->name,
					   QIR_NODE_LABEL(n));
			}
		}
	return 0;
}

static qopt_status is_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	qir_infer_opts o = QIR_INFER_OPTS_INIT;
	struct walk w = { .ctx = ctx, .changed = changed };
	qir_error err = { 0 };

	o.note = note;
	o.arg = ctx;
	*changed = 0;
	if (qir_model_infer(m, &o, &err) < 0) {
		ps_fail(ctx, err.code, "%s", err.msg);
		return ps_status(-1);
	}
	return qir_graph_walk(m->graph, declare_graph, &w) ? QOPT_EPASS :
							     QOPT_OK;
}

static const qopt_pass_info is_passes[] = {
	{ .name = "infer-shapes",
	  .summary = "write the inferred element types and shapes of "
	  "intermediate values as value_info",
	  .options = NULL,
	  .run = is_run,
	  .flags = 0 },
	{ 0 }
};

QOPT_PLUGIN("infer-shapes", "1.0", is_passes)
