/*
 * passes/fp8/calib_targets.c - what `qopt calibrate` measures for
 * fp8-mha (qopt_pass_info.calibration_targets).
 *
 * The placement (calib_place.c) reads the range of every non-constant
 * input A or B of a MatMul/Gemm of op_types whose name or first output
 * matches include and not exclude, except values already quantized
 * (a DQ's output) and Softmax outputs (through Casts; fixed scale).
 * This asks for at least those: the non-constant float (or untyped)
 * inputs A and B of the MatMul/Gemm nodes so selected, and input X of
 * every Conv selected by include/exclude, except direct Softmax
 * outputs. Values the placement then skips (DQ outputs, Softmax through
 * a Cast, attention blocks left in float) are measured anyway: a file
 * serves more than one setting of the other options, and the
 * measurement is cheap next to a second calibration run. Conv is
 * measured as it always was (for other users of the file; fp8-mha
 * places nothing on Conv) unless op_types is set, which then names
 * exactly the operators measured.
 */
#include <stdlib.h>

#include "calib.h"

/* How many leading inputs of n are measured (0: n is not selected):
 * the placement's rule (names through the toolkit's globs), with Conv
 * kept unless op_types was set. */
static size_t slots(struct ps_targets *t, int ops_set, const qir_node *n)
{
	const char *names[2] = { n->name, n->noutputs && n->outputs[0] ?
				 n->outputs[0]->name : NULL };
	size_t k = qir_node_is(n, "MatMul") || qir_node_is(n, "Gemm") ? 2 :
		   qir_node_is(n, "Conv") && !ops_set ? 1 : 0;

	if (!k || (ops_set && !(ps_targets_op(t, n->op_type) &&
				qir_node_is(n, n->op_type))))
		return 0;
	if (ps_globs_match(&t->include, names, 2) < 0 ||
	    ps_globs_match(&t->exclude, names, 2) >= 0)
		return 0;
	return k;
}

static int measured(qir_value *v)
{
	const qir_node *p = v ? v->producer : NULL;

	if (!v || qir_value_const(v))
		return 0;
	if (p && qir_node_is(p, "Softmax"))
		return 0;
	return !v->dtype || fp8_is_float(v->dtype);
}

qopt_status fp8_mha_calibration_targets(qopt_ctx *ctx, qir_model *m)
{
	struct ps_targets t;
	qir_node *node;
	qopt_status rc = QOPT_OK;
	size_t i, k, asked = 0;
	int ops_set = qopt_opt_is_set(ctx, "op_types");

	if (ps_targets_init(&t, ctx, PS_TARGET_INCLUDE | PS_TARGET_EXCLUDE |
			    PS_TARGET_OP_TYPES)) {
		ps_targets_fini(&t);
		return QOPT_ENOMEM;
	}
	qir_graph_for_each_node(m->graph, node) {
		k = slots(&t, ops_set, node);
		for (i = 0; rc == QOPT_OK && i < k && i < node->ninputs; i++) {
			if (!measured(node->inputs[i]))
				continue;
			rc = qopt_want_range(ctx, node->inputs[i]);
			asked += rc == QOPT_OK;
		}
		if (rc != QOPT_OK)
			break;
	}
	ps_targets_fini(&t);
	if (rc == QOPT_OK && !asked)
		qopt_info(ctx, "calibration: no MatMul, Gemm or Conv with a "
			  "non-constant float input%s", ops_set ||
			  qopt_opt_is_set(ctx, "include") ||
			  qopt_opt_is_set(ctx, "exclude") ?
			  " selected by include/exclude/op_types" : "");
	return rc;
}

/* fp8: the placement's layers (op_types, include/exclude) in every
 * graph, If branches and Loop bodies included (`qopt calibrate`
 * exposes them through the subgraph's outputs): input X of a Conv or
 * ConvTranspose, inputs A and B of a MatMul or Gemm; then the inputs
 * of each Add after such a Conv, since the residual rule may quantize
 * either (residual.c). */
static int fp8_selected(const qir_node *n, void *arg)
{
	struct ps_targets *t = arg;
	const char *names[2] = { n->name, n->noutputs && n->outputs[0] ?
				 n->outputs[0]->name : NULL };

	return ps_targets_op(t, n->op_type) && qir_node_is(n, n->op_type) &&
	       ps_globs_match(&t->include, names, 2) >= 0 &&
	       ps_globs_match(&t->exclude, names, 2) < 0;
}

static qopt_status fp8_ask(qopt_ctx *ctx, qir_node *n, size_t k,
			   size_t *asked)
{
	size_t i;
	qopt_status rc = QOPT_OK;

	for (i = 0; rc == QOPT_OK && i < k && i < n->ninputs; i++) {
		if (!measured(n->inputs[i]))
			continue;
		rc = qopt_want_range(ctx, n->inputs[i]);
		*asked += rc == QOPT_OK;
	}
	return rc;
}

qopt_status fp8_calibration_targets(qopt_ctx *ctx, qir_model *m)
{
	struct ps_targets t;
	qir_node **nodes = NULL;
	qir_error err = { 0 };
	qopt_status rc = QOPT_OK;
	size_t i, count = 0, asked = 0, k;

	if (ps_targets_init(&t, ctx, PS_TARGET_INCLUDE | PS_TARGET_EXCLUDE |
			    PS_TARGET_OP_TYPES)) {
		ps_targets_fini(&t);
		return QOPT_ENOMEM;
	}
	if (qir_graph_nodes(m->graph, "", NULL, 1, &nodes, &count, &err)) {
		ps_targets_fini(&t);
		return QOPT_ENOMEM;
	}
	for (i = 0; rc == QOPT_OK && i < count; i++) {
		qir_node *n = nodes[i];

		if (fp8_selected(n, &t))
			k = qir_node_is(n, "Conv") ||
			    qir_node_is(n, "ConvTranspose") ? 1 : 2;
		else
			k = fp8_residual_slot(n, fp8_selected, &t) >= 0 ? 2 : 0;
		rc = fp8_ask(ctx, n, k, &asked);
	}
	free(nodes);
	ps_targets_fini(&t);
	if (rc == QOPT_OK && !asked)
		qopt_info(ctx, "calibration: no Conv, ConvTranspose, MatMul or "
			  "Gemm with a non-constant float input%s",
			  qopt_opt_is_set(ctx, "op_types") ||
			  qopt_opt_is_set(ctx, "include") ||
			  qopt_opt_is_set(ctx, "exclude") ?
			  " selected by include/exclude/op_types" : "");
	return rc;
}
