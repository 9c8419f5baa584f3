/*
 * passes/fp8_mha/calib_targets.c - what `qopt calibrate` measures for
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
#include <fnmatch.h>
#include "calib.h"

struct select {
	const char *const *include, *const *exclude, *const *ops;
	size_t ninclude, nexclude, nops;
	int ops_set;
};

/* A node name or its first output's, as calib_place.c matches them. */
static int glob_any(const char *const *g, size_t n, const qir_node *node)
{
	const char *out = node->noutputs && node->outputs[0] ?
		node->outputs[0]->name : NULL;
	size_t i;

	for (i = 0; i < n; i++)
		if (!fnmatch(g[i], node->name, 0) ||
		    (out && !fnmatch(g[i], out, 0)))
			return 1;
	return 0;
}

static int in_ops(const struct select *s, const qir_node *n)
{
	size_t i;

	for (i = 0; i < s->nops; i++)
		if (qir_node_is(n, s->ops[i]))
			return 1;
	return 0;
}

/* How many leading inputs of n are measured (0: n is not selected). */
static size_t slots(const struct select *s, const qir_node *n)
{
	size_t k = qir_node_is(n, "MatMul") || qir_node_is(n, "Gemm") ? 2 :
		   qir_node_is(n, "Conv") && !s->ops_set ? 1 : 0;

	if (!k || (s->ops_set && !in_ops(s, n)))
		return 0;
	if (!glob_any(s->include, s->ninclude, n) ||
	    glob_any(s->exclude, s->nexclude, n))
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
	return !v->dtype || fp8mha_is_float(v->dtype);
}

qopt_status fp8mha_calibration_targets(qopt_ctx *ctx, qir_model *m)
{
	struct select s;
	qir_node *node;
	qopt_status rc;
	size_t i, k, asked = 0;

	s.include = qopt_opt_list(ctx, "include", &s.ninclude);
	s.exclude = qopt_opt_list(ctx, "exclude", &s.nexclude);
	s.ops = qopt_opt_list(ctx, "op_types", &s.nops);
	s.ops_set = qopt_opt_is_set(ctx, "op_types");
	qir_graph_for_each_node(m->graph, node) {
		k = slots(&s, node);
		for (i = 0; i < k && i < node->ninputs; i++) {
			if (!measured(node->inputs[i]))
				continue;
			rc = qopt_want_range(ctx, node->inputs[i]);
			if (rc != QOPT_OK)
				return rc;
			asked++;
		}
	}
	if (!asked)
		qopt_info(ctx, "calibration: no MatMul, Gemm or Conv with a "
			  "non-constant float input%s", s.ops_set ||
			  qopt_opt_is_set(ctx, "include") ||
			  qopt_opt_is_set(ctx, "exclude") ?
			  " selected by include/exclude/op_types" : "");
	return QOPT_OK;
}
