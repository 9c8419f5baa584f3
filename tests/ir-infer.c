/* tests/ir-infer.c - qir_model_infer through the public API: what a
 * pass sees (inferred types on values it did not type), what stays a
 * declaration, recomputation after a rewire, notes on disagreement,
 * and the Q/DQ family's element types (FP8, FP4, INT4). */
#include <string.h>
#include <qopt/ir.h>
#include "tap.h"

static qir_node *op1(qir_graph *g, const char *op, qir_value *in,
		     qir_value *in2, qir_value **out)
{
	qir_node *n = qir_node_new(g, op, NULL, op);

	qir_node_add_input(n, in);
	if (in2)
		qir_node_add_input(n, in2);
	*out = qir_node_add_output(n, NULL, op);
	return n;
}

static int dims_are(const qir_value *v, int rank, const int64_t *d)
{
	if (v->rank != rank)
		return 0;
	for (int i = 0; i < rank; i++)
		if (v->dims[i].value != d[i])
			return 0;
	return 1;
}

static int notes;
static char last_note[1024];

static void note(void *arg, const char *msg)
{
	(void)arg;
	notes++;
	snprintf(last_note, sizeof(last_note), "%s", msg);
}

static void test_basic(void)
{
	qir_error err = { 0 };
	qir_model *m = qir_model_new(9, 21, NULL);
	qir_graph *g = m->graph;
	int64_t xd[] = { 2, 3, 4 }, wd[] = { 4, 5 }, want[] = { 2, 3, 5 };
	int64_t bd[] = { 5 };
	qir_value *x = qir_value_new(g, "x"), *w, *b, *mm, *add, *relu, *cmp;
	qir_infer_opts o = { .note = note };

	qir_value_set_type(x, QIR_FLOAT, 3, xd, &err);
	qir_graph_add_input(g, x);
	w = qir_graph_add_initializer(g, qir_tensor_new("w", QIR_FLOAT, 2, wd, NULL));
	b = qir_graph_add_initializer(g, qir_tensor_new("b", QIR_FLOAT, 1, bd, NULL));
	op1(g, "MatMul", x, w, &mm);
	op1(g, "Add", mm, b, &add);
	op1(g, "Relu", add, NULL, &relu);
	op1(g, "Greater", relu, b, &cmp);
	qir_graph_add_output(g, cmp);
	tap_ok(qir_model_infer(m, &o, &err) == 0, "infer runs");
	tap_ok(mm->dtype == QIR_FLOAT && dims_are(mm, 3, want) &&
	       qir_value_type_inferred(mm), "MatMul [2,3,4]x[4,5] -> FLOAT[2,3,5], marked inferred");
	tap_ok(relu->dtype == QIR_FLOAT && dims_are(relu, 3, want),
	       "broadcast Add and Relu keep [2,3,5]");
	tap_ok(cmp->dtype == QIR_BOOL && dims_are(cmp, 3, want),
	       "a comparison is BOOL");
	tap_ok(!qir_value_type_inferred(x), "a declared input is not inferred");

	/* a pass declares a type: inference keeps it and says it disagrees */
	int64_t bad[] = { 2, 3, 7 };
	qir_value_set_type(relu, QIR_FLOAT, 3, bad, &err);
	notes = 0;
	tap_ok(qir_model_infer(m, &o, &err) == 0 && notes == 1 &&
	       dims_are(relu, 3, bad) && !qir_value_type_inferred(relu) &&
	       strstr(last_note, "'Relu'") != NULL,
	       "a declaration is kept; the disagreement is a note naming it");

	/* rewire: Relu now reads x (rank 3, last dim 4), re-inferred */
	qir_value_set_type(relu, QIR_UNDEFINED, -1, NULL, &err);
	qir_node_set_input(relu->producer, 0, x);
	notes = 0;
	tap_ok(qir_model_infer(m, &o, &err) == 0 && notes == 0 &&
	       dims_are(relu, 3, xd) && qir_value_type_inferred(relu),
	       "after a rewire the untyped value is inferred again");
	qir_model_free(m);
}

static void test_qdq(void)
{
	static const struct { int zp; const char *what; } zps[] = {
		{ QIR_FLOAT8E4M3FN, "FLOAT8E4M3FN" }, { QIR_FLOAT8E5M2, "FLOAT8E5M2" },
		{ QIR_FLOAT4E2M1, "FLOAT4E2M1" }, { QIR_INT4, "INT4" },
	};
	for (size_t i = 0; i < sizeof(zps) / sizeof(*zps); i++) {
		qir_error err = { 0 };
		qir_model *m = qir_model_new(11, 23, NULL);
		qir_graph *g = m->graph;
		int64_t xd[] = { 4, 32 };
		qir_value *x = qir_value_new(g, "x"), *s, *z, *q, *dq;
		qir_node *qn;

		qir_value_set_type(x, QIR_FLOAT16, 2, xd, &err);
		qir_graph_add_input(g, x);
		s = qir_graph_add_initializer(g, qir_tensor_new("s", QIR_FLOAT16, 0, NULL, NULL));
		z = qir_graph_add_initializer(g, qir_tensor_new("z", zps[i].zp, 0, NULL, NULL));
		qn = op1(g, "QuantizeLinear", x, s, &q);
		qir_node_add_input(qn, z);
		op1(g, "DequantizeLinear", q, s, &dq);
		qir_graph_add_output(g, dq);
		tap_ok(qir_model_infer(m, NULL, &err) == 0 && q->dtype == zps[i].zp &&
		       dims_are(q, 2, xd) && dq->dtype == QIR_FLOAT16 &&
		       dims_are(dq, 2, xd),
		       "Q with a %s zero point: %s codes, DQ back to the scale's FLOAT16",
		       zps[i].what, zps[i].what);
		qir_model_free(m);
	}
}

int main(void)
{
	test_basic();
	test_qdq();
	return tap_done();
}
