/*
 * passes/fp8/match.c - what the rewrites match on: op kinds, sole
 * and all consumers, constants (folded when computed), scales, types.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp8.h"

int fp8_is_op(const qir_node *n, const char *op)
{
	return n && (!n->domain || !n->domain[0] ||
		     !strcmp(n->domain, "ai.onnx")) && !strcmp(n->op_type, op);
}

int fp8_is_q(const qir_node *n)
{
	return fp8_is_op(n, "QuantizeLinear") && n->ninputs >= 2 &&
	       n->inputs[0] && n->inputs[1] && n->noutputs >= 1 &&
	       n->outputs[0];
}

int fp8_is_dq(const qir_node *n)
{
	return fp8_is_op(n, "DequantizeLinear") && n->ninputs >= 2 &&
	       n->inputs[0] && n->inputs[1] && n->noutputs >= 1 &&
	       n->outputs[0];
}

int fp8_is_float(int dtype)
{
	return dtype == QIR_FLOAT || dtype == QIR_FLOAT16 ||
	       dtype == QIR_BFLOAT16;
}

qir_node *fp8_sole_user(qir_value *v)
{
	if (!v || v->is_output || v->nuses != 1)
		return NULL;
	return v->uses[0].node;
}

int fp8_all_users_are(qir_value *v, const char *op, char *why, size_t n)
{
	char label[160];
	size_t i;

	if (v->is_output) {
		snprintf(why, n, "'%s' is a graph output", v->name);
		return 0;
	}
	if (!v->nuses) {
		snprintf(why, n, "'%s' has no consumer", v->name);
		return 0;
	}
	for (i = 0; i < v->nuses; i++) {
		if (!fp8_is_op(v->uses[i].node, op)) {
			snprintf(why, n, "'%s' is also read by %s", v->name,
				 qir_node_label(v->uses[i].node, label,
						sizeof(label)));
			return 0;
		}
	}
	return 1;
}

qir_tensor *fp8_const(qir_value *v, int *owned)
{
	qir_tensor *t = qir_value_const(v);
	qir_error err = { 0 };

	*owned = 0;
	if (t)
		return t;
	if (!v->producer)
		return NULL;
	if (qir_const_eval(v, FP8_FOLD_MAX_BYTES, &t, &err))
		return NULL;
	*owned = 1;
	return t;
}

int fp8_scalar(qir_value *v, double *out)
{
	int owned;
	qir_tensor *t = fp8_const(v, &owned);
	int rc = -1;

	if (!t)
		return -1;
	if (fp8_is_float(t->dtype) && qir_tensor_numel(t) == 1 &&
	    !qir_tensor_get_f64(t, 0, out, NULL))
		rc = 0;
	if (owned)
		qir_tensor_free(t);
	return rc;
}

int fp8_one_element(qir_value *v)
{
	double c;
	int i;

	if (!v)
		return 0;
	/* A known dim other than 1 says no without folding anything (the
	 * folder would walk an activation back to the graph inputs). */
	for (i = 0; i < v->rank; i++)
		if (v->dims[i].value >= 0 && v->dims[i].value != 1)
			return 0;
	if (v->rank >= 0) {
		for (i = 0; i < v->rank && v->dims[i].value == 1; i++)
			;
		if (i == v->rank)
			return 1;
	}
	return !fp8_scalar(v, &c);
}

int fp8_scale_f32(qir_node *qdq, float **out, uint64_t *count)
{
	int owned;
	qir_tensor *t = fp8_const(qdq->inputs[1], &owned);
	uint64_t i, n;
	float *f = NULL;
	int rc = -1;

	*out = NULL;
	if (!t)
		return -1;
	n = qir_tensor_numel(t);
	if (!fp8_is_float(t->dtype) || t->rank > 1 || n == 0 ||
	    qir_node_attr_int(qdq, "block_size", 0))
		goto out;
	f = malloc(n * sizeof(*f));
	if (!f)
		goto out;
	for (i = 0; i < n; i++) {
		double d;

		if (qir_tensor_get_f64(t, i, &d, NULL))
			goto out;
		f[i] = (float)d;
	}
	*out = f;
	*count = n;
	f = NULL;
	rc = 0;
out:
	free(f);
	if (owned)
		qir_tensor_free(t);
	return rc;
}

int fp8_q_fp8_type(const qir_node *q)
{
	int t = 0;

	if (q->ninputs >= 3 && q->inputs[2])
		t = qir_value_elem_type(q->inputs[2]);
	else
		t = (int)qir_node_attr_int(q, "output_dtype", 0);
	return t == QIR_FLOAT8E4M3FN || t == QIR_FLOAT8E5M2 ? t : 0;
}

/* Ops whose output has the element type of their first input. */
static int keeps_type(const qir_node *n)
{
	static const char *const ops[] = { "Add", "Sub", "Mul", "Div",
		"MatMul", "Softmax", "Reshape", "Transpose", "Identity",
		"Squeeze", "Unsqueeze", "Where", "LayerNormalization", "Erf",
		NULL };
	int i;

	for (i = 0; ops[i]; i++)
		if (fp8_is_op(n, ops[i]))
			return 1;
	return 0;
}

int fp8_float_type(qir_value *v, int depth)
{
	qir_node *p;
	int t = v ? qir_value_elem_type(v) : 0;
	size_t i;

	if (t || !v || depth <= 0 || !(p = v->producer))
		return t;
	if (fp8_is_dq(p)) {
		t = (int)qir_node_attr_int(p, "output_dtype", 0);
		return t ? t : qir_value_elem_type(p->inputs[1]);
	}
	if (fp8_is_op(p, "Cast"))
		return (int)qir_node_attr_int(p, "to", 0);
	if (!keeps_type(p))
		return 0;
	/* Where's condition is BOOL: its values come after it. */
	for (i = fp8_is_op(p, "Where") ? 1 : 0; i < p->ninputs; i++)
		if ((t = fp8_float_type(p->inputs[i], depth - 1)) &&
		    fp8_is_float(t))
			return t;
	return 0;
}

/* Exporters spell the domain "trt" or "trt.plugins" and the op with or
 * without underscores, in any case: compare letters and digits only. */
int fp8_custom_kind(const qir_node *n)
{
	char norm[64];
	size_t i, k = 0;

	if (!n->domain || (strcmp(n->domain, "trt") &&
			   strcmp(n->domain, "trt.plugins")))
		return FP8_NOT_CUSTOM;
	for (i = 0; n->op_type[i] && k + 1 < sizeof(norm); i++)
		if (isalnum((unsigned char)n->op_type[i]))
			norm[k++] = (char)tolower((unsigned char)n->op_type[i]);
	norm[k] = 0;
	if (!strcmp(norm, "trtfp8quantizelinear"))
		return FP8_CUSTOM_Q;
	if (!strcmp(norm, "trtfp8dequantizelinear"))
		return FP8_CUSTOM_DQ;
	return FP8_NOT_CUSTOM;
}
