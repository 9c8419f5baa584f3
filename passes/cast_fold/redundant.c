/*
 * redundant.c - Casts that do nothing or can be done ahead of time:
 *   Cast to the type its input already has  -> removed;
 *   Cast(A->B) -> Cast(B->C), A->B exact    -> second Cast reads A;
 *   Cast of a constant                       -> a converted constant.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cast_fold.h"

static int is_fp8(int t)
{
	return t >= QIR_FLOAT8E4M3FN && t <= QIR_FLOAT8E5M2FNUZ;
}

/* 1 when every value of type a is exactly a value of type b. */
static int widens(int a, int b)
{
	static const struct { int from; int to[8]; } tab[] = {
		{ QIR_BOOL, { QIR_INT8, QIR_UINT8, QIR_INT16, QIR_UINT16,
			      QIR_INT32, QIR_INT64, QIR_FLOAT, QIR_DOUBLE } },
		{ QIR_INT8, { QIR_INT16, QIR_INT32, QIR_INT64, QIR_FLOAT16,
			      QIR_BFLOAT16, QIR_FLOAT, QIR_DOUBLE } },
		{ QIR_UINT8, { QIR_UINT16, QIR_INT16, QIR_INT32, QIR_INT64,
			       QIR_FLOAT16, QIR_BFLOAT16, QIR_FLOAT,
			       QIR_DOUBLE } },
		{ QIR_INT16, { QIR_INT32, QIR_INT64, QIR_FLOAT, QIR_DOUBLE } },
		{ QIR_UINT16, { QIR_UINT32, QIR_INT32, QIR_INT64, QIR_UINT64,
				QIR_FLOAT, QIR_DOUBLE } },
		{ QIR_INT32, { QIR_INT64, QIR_DOUBLE } },
		{ QIR_UINT32, { QIR_UINT64, QIR_INT64, QIR_DOUBLE } },
		{ QIR_FLOAT16, { QIR_FLOAT, QIR_DOUBLE } },
		{ QIR_BFLOAT16, { QIR_FLOAT, QIR_DOUBLE } },
		{ QIR_FLOAT, { QIR_DOUBLE } },
	};
	size_t i, k;

	if (is_fp8(a))
		return b == QIR_FLOAT16 || b == QIR_BFLOAT16 ||
		       b == QIR_FLOAT || b == QIR_DOUBLE;
	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (tab[i].from == a)
			for (k = 0; k < 8 && tab[i].to[k]; k++)
				if (tab[i].to[k] == b)
					return 1;
	return 0;
}

static int cast_to(const qir_node *c)
{
	return qir_node_attr_dtype(c, "to");
}

/* Cast to the type it already has. */
static int fold_identity(struct cast_fold_state *s, qir_node *c)
{
	qir_value *x = c->inputs[0], *out = c->outputs[0];
	int to = cast_to(c);

	if (!to || qir_value_elem_type(x) != to)
		return 0;
	/* A graph output keeps its name only when the input can take it. */
	if (out->is_output && (!x->producer || x->is_output || x->is_input ||
			       x->nuses != 1 || x->graph != c->graph))
		return 0;
	if (s->report)
		return 0;
	if (!qopt_may_rewrite(s->ctx, "remove %s: input '%s' is already %s",
			      QIR_NODE_LABEL(c), x->name, qir_dtype_name(to)))
		return CAST_FOLD_DECLINED;
	if (out->is_output) {
		if (cast_fold_take_over(s, c, out, x) < 0)
			return -1;
	} else {
		if (qir_value_replace_all_uses(out, x) < 0 ||
		    qir_node_erase(c, NULL) < 0)
			return -1;
	}
	qopt_stat_add(s->ctx, "redundant casts removed", 1);
	return 1;
}

/* Cast -> Cast where the first only widens: the second reads the
 * original value; the first stays for its other consumers. */
static int fold_chain(struct cast_fold_state *s, qir_node *c)
{
	qir_value *mid = c->inputs[0];
	qir_node *c1 = mid->producer;
	qir_value *x;
	int a, b;

	if (!qir_node_is(c1, "Cast") || !c1->ninputs || !(x = c1->inputs[0]))
		return 0;
	a = qir_value_elem_type(x);
	b = cast_to(c1);
	if (!a || !b || !widens(a, b))
		return 0;
	if (s->report)
		return 0;
	if (!qopt_may_rewrite(s->ctx, "%s reads '%s' (%s) directly: the "
			      "Cast producing '%s' only widens to %s",
			      QIR_NODE_LABEL(c), x->name, qir_dtype_name(a),
			      mid->name, qir_dtype_name(b)))
		return CAST_FOLD_DECLINED;
	if (qir_node_set_input(c, 0, x) < 0)
		return -1;
	ps_sweep_mark(&s->sweep, c1);
	qopt_stat_add(s->ctx, "widening casts bypassed", 1);
	return 1;
}

static int put(void *dst, int dt, uint64_t i, int isf, double d, int64_t v)
{
	if (dt == QIR_FLOAT || dt == QIR_DOUBLE || dt == QIR_FLOAT16 ||
	    dt == QIR_BFLOAT16) {
		double x = isf ? d : (double)v;
		float f = (float)x;

		if (!isf && (v > (1 << 24) || v < -(1 << 24)) &&
		    dt != QIR_DOUBLE)
			return -1;	/* would round twice */
		if (dt == QIR_FLOAT)
			((float *)dst)[i] = f;
		else if (dt == QIR_DOUBLE)
			((double *)dst)[i] = x;
		else
			((uint16_t *)dst)[i] = dt == QIR_FLOAT16 ?
				qk_f32_to_f16(f) : qk_f32_to_bf16(f);
		return 0;
	}
	if (dt == QIR_BOOL) {
		((uint8_t *)dst)[i] = isf ? d != 0.0 : v != 0;
		return 0;
	}
	if (isf) {
		/* ONNX leaves out-of-range float->int undefined: no fold. */
		if (!isfinite(d) || d >= 9.2e18 || d <= -9.2e18)
			return -1;
		v = (int64_t)trunc(d);
	}
#define PUT_INT(T, lo, hi) do { \
		if (v < (lo) || v > (hi)) return -1; \
		((T *)dst)[i] = (T)v; return 0; } while (0)
	switch (dt) {
	case QIR_INT8: PUT_INT(int8_t, INT8_MIN, INT8_MAX);
	case QIR_UINT8: PUT_INT(uint8_t, 0, UINT8_MAX);
	case QIR_INT16: PUT_INT(int16_t, INT16_MIN, INT16_MAX);
	case QIR_UINT16: PUT_INT(uint16_t, 0, UINT16_MAX);
	case QIR_INT32: PUT_INT(int32_t, INT32_MIN, INT32_MAX);
	case QIR_UINT32: PUT_INT(uint32_t, 0, (int64_t)UINT32_MAX);
	case QIR_INT64: PUT_INT(int64_t, INT64_MIN, INT64_MAX);
	case QIR_UINT64: PUT_INT(uint64_t, 0, INT64_MAX);
	default: return -1;
	}
#undef PUT_INT
}

static int plain_type(int dt)
{
	switch (dt) {
	case QIR_FLOAT: case QIR_DOUBLE: case QIR_FLOAT16: case QIR_BFLOAT16:
	case QIR_INT8: case QIR_UINT8: case QIR_INT16: case QIR_UINT16:
	case QIR_INT32: case QIR_UINT32: case QIR_INT64: case QIR_BOOL:
		return 1;
	default:
		return 0;
	}
}

/* Caller owns: t converted to dt, or NULL when a value has no defined
 * conversion. */
static qir_tensor *convert(qir_tensor *t, int dt, const char *name)
{
	int isf = qir_dtype_is_float(t->dtype);
	uint64_t i, n = qir_tensor_numel(t);
	qir_tensor *out;
	void *dst;

	if (!plain_type(t->dtype) || !plain_type(dt) ||
	    (t->dtype == QIR_DOUBLE && (dt == QIR_FLOAT16 ||
					dt == QIR_BFLOAT16)))
		return NULL;
	out = qir_tensor_new(name, dt, t->rank, t->dims, NULL);
	if (!out)
		return NULL;
	dst = qir_tensor_mutable_data(out, NULL);
	for (i = 0; i < n; i++) {
		double d = 0;
		int64_t v = 0;

		if ((isf ? qir_tensor_get_f64(t, i, &d, NULL) :
		     qir_tensor_get_i64(t, i, &v, NULL)) < 0 ||
		    put(dst, dt, i, isf, d, v) < 0) {
			qir_tensor_free(out);
			return NULL;
		}
	}
	return out;
}

static int fold_const(struct cast_fold_state *s, qir_node *c)
{
	qir_value *x = c->inputs[0], *out = c->outputs[0], *nv;
	qir_tensor *t = qir_value_const(x), *ct;
	int to = cast_to(c);

	if (!t || !to || out->is_output)
		return 0;
	ct = s->report ? NULL : convert(t, to, out->name);
	if (!ct)
		return 0;
	if (!qopt_may_rewrite(s->ctx, "fold %s of constant '%s' into a %s "
			      "constant", QIR_NODE_LABEL(c), x->name,
			      qir_dtype_name(to))) {
		qir_tensor_free(ct);
		return CAST_FOLD_DECLINED;
	}
	nv = qir_graph_add_initializer(c->graph, ct);
	if (!nv || cast_fold_take_over(s, c, out, nv) < 0)
		return -1;
	if (x->producer)
		ps_sweep_mark(&s->sweep, x->producer);
	else
		cast_fold_drop_if_unused(x);
	qopt_stat_add(s->ctx, "constant casts folded", 1);
	return 1;
}

int cast_fold_fold_redundant(struct cast_fold_state *s, qir_node *c)
{
	int r;

	if (!c->ninputs || !c->inputs[0] || !c->noutputs || !c->outputs[0])
		return 0;
	if ((r = fold_identity(s, c)) != 0)
		return r;
	if ((r = fold_const(s, c)) != 0)
		return r;
	return fold_chain(s, c);
}
