/* tests/ir/const-eval.c - the constant folder. */
#include <string.h>
#include <qopt/fold.h>
#include <qopt/ir.h>
#include <qopt/kernels.h>
#include "../lib/tap.h"

static qir_model *m;
static qir_graph *g;

static qir_value *init_f(const char *name, int rank, const int64_t *dims,
			 const float *vals)
{
	qir_tensor *t = qir_tensor_new(name, QIR_FLOAT, rank, dims, NULL);

	memcpy(qir_tensor_mutable_data(t, NULL), vals, t->nbytes);
	return qir_graph_add_initializer(g, t);
}

static qir_value *init_i(const char *name, int64_t n, const int64_t *vals)
{
	qir_tensor *t = qir_tensor_new(name, QIR_INT64, 1, &n, NULL);

	memcpy(qir_tensor_mutable_data(t, NULL), vals, t->nbytes);
	return qir_graph_add_initializer(g, t);
}

static qir_value *op(const char *type, qir_value *a, qir_value *b,
		     qir_value *c)
{
	qir_node *n = qir_node_new(g, type, NULL, NULL);

	qir_node_add_input(n, a);
	if (b || c)
		qir_node_add_input(n, b);
	if (c)
		qir_node_add_input(n, c);
	return qir_node_add_output(n, NULL, type);
}

static int fvals(qir_tensor *t, const float *want, size_t n)
{
	size_t i;
	double d;

	if (!t || qir_tensor_numel(t) != n)
		return 0;
	for (i = 0; i < n; i++)
		if (qir_tensor_get_f64(t, i, &d, NULL) < 0 || d != want[i]) {
			tap_diag("element %zu: got %g want %g", i, d, want[i]);
			return 0;
		}
	return 1;
}

static int ivals(qir_tensor *t, const int64_t *want, size_t n)
{
	size_t i;
	int64_t v;

	if (!t || qir_tensor_numel(t) != n)
		return 0;
	for (i = 0; i < n; i++)
		if (qir_tensor_get_i64(t, i, &v, NULL) < 0 || v != want[i]) {
			tap_diag("element %zu: got %lld want %lld", i,
				 (long long)v, (long long)want[i]);
			return 0;
		}
	return 1;
}

static int shape_is(qir_tensor *t, int rank, const int64_t *dims)
{
	return t && t->rank == rank &&
	       (!rank || !memcmp(t->dims, dims, rank * sizeof(int64_t)));
}

static qir_tensor *fold(qir_value *v)
{
	qir_error err = { 0 };
	qir_tensor *t = NULL;

	if (qir_const_eval(v, 0, &t, &err) < 0)
		tap_diag("fold failed: %s", err.msg);
	return t;
}

static void test_chain(void)
{
	static const float wv[6] = { 1, 2, 3, 4, 5, 6 };
	static const float want[4] = { 35, 44, 44, 56 };
	int64_t d23[2] = { 2, 3 }, d32[2] = { 3, 2 }, d22[2] = { 2, 2 };
	qir_value *w, *shape, *r, *t, *mm;
	qir_node *k;
	qir_tensor *out;
	qir_error err = { 0 };

	w = init_f("w", 2, d23, wv);
	k = qir_node_new(g, "Constant", NULL, NULL);
	qir_node_set_attr_ints(k, "value_ints", d32, 2);
	shape = qir_node_add_output(k, NULL, "shape");
	r = op("Reshape", w, shape, NULL);
	t = op("Transpose", r, NULL, NULL);
	mm = op("MatMul", t, r, NULL);
	out = fold(r);
	tap_ok(shape_is(out, 2, d32) && fvals(out, wv, 6), "Reshape to [3,2]");
	qir_tensor_free(out);
	out = fold(t);
	{
		static const float tw[6] = { 1, 3, 5, 2, 4, 6 };

		tap_ok(shape_is(out, 2, d23) && fvals(out, tw, 6),
		       "Transpose (default perm)");
	}
	qir_tensor_free(out);
	out = fold(mm);
	tap_ok(shape_is(out, 2, d22) && fvals(out, want, 4) &&
	       out->storage == QIR_STORE_OWNED && !strcmp(out->name, mm->name),
	       "Reshape -> Transpose -> MatMul chain folds");
	qir_tensor_free(out);
	tap_ok(qir_const_eval(mm, 8, &out, &err) == -1 &&
	       err.code == QIR_EUNSUPPORTED && !out, "max_bytes bounds intermediates: %s",
	       err.msg);
}

static void test_errors(void)
{
	qir_error err = { 0 };
	qir_value *x, *w, *relu, *add;
	qir_tensor *out = NULL;
	float one = 1;

	x = qir_value_new(g, "input");
	qir_graph_add_input(g, x);
	w = init_f("one", 0, NULL, &one);
	relu = op("Relu", w, NULL, NULL);
	add = op("Add", relu, w, NULL);
	tap_ok(qir_const_eval(add, 0, &out, &err) == -1 &&
	       err.code == QIR_EUNSUPPORTED && strstr(err.msg, "Relu") && !out,
	       "unsupported op named: %s", err.msg);
	memset(&err, 0, sizeof(err));
	tap_ok(qir_const_eval(op("Neg", x, NULL, NULL), 0, &out, &err) == -1 &&
	       err.code == QIR_EUNSUPPORTED, "unsupported op over input: %s", err.msg);
	memset(&err, 0, sizeof(err));
	tap_ok(qir_const_eval(op("Add", x, w, NULL), 0, &out, &err) == -1 &&
	       err.code == QIR_EUNSUPPORTED && strstr(err.msg, "input"),
	       "graph input is not constant: %s", err.msg);
}

static void test_ops(void)
{
	static const float a6[6] = { 1, 2, 3, 4, 5, 6 }, b3[3] = { 10, 20, 30 };
	int64_t d23[2] = { 2, 3 }, d3 = 3;
	qir_value *a, *b, *v, *ax, *idx;
	qir_tensor *t;
	qir_node *n;

	a = init_f("a", 2, d23, a6);
	b = init_f("b", 1, &d3, b3);
	t = fold(op("Add", a, b, NULL));
	{
		static const float want[6] = { 11, 22, 33, 14, 25, 36 };

		tap_ok(shape_is(t, 2, d23) && fvals(t, want, 6), "Add broadcasts [2,3]+[3]");
	}
	qir_tensor_free(t);
	t = fold(op("Div", b, a, NULL));
	{
		static const float want[6] = { 10, 10, 10, 2.5f, 4, 5 };

		tap_ok(fvals(t, want, 6), "Div broadcasts [3]/[2,3]");
	}
	qir_tensor_free(t);
	{
		/* torch's 1/sqrt(head size): Pow(d, 0.5) of constants */
		static const float d1[1] = { 64 }, half[1] = { 0.5f };
		static const float want[1] = { 8 };
		static const float cube[6] = { 1, 8, 27, 64, 125, 216 };
		int64_t one = 1;
		static const float three[1] = { 3 };

		t = fold(op("Pow", init_f("d", 1, &one, d1),
			    init_f("half", 1, &one, half), NULL));
		tap_ok(fvals(t, want, 1), "Pow(64, 0.5) = 8");
		qir_tensor_free(t);
		t = fold(op("Pow", a, init_f("three", 1, &one, three), NULL));
		tap_ok(shape_is(t, 2, d23) && fvals(t, cube, 6),
		       "Pow broadcasts [2,3]^[1]");
		qir_tensor_free(t);
	}

	/* Integer math and Cast. */
	{
		int64_t iv[3] = { 7, -7, 9 }, two[1] = { 2 };
		static const int64_t q[3] = { 3, -3, 4 };
		qir_value *iq = op("Div", init_i("iv", 3, iv), init_i("two", 1, two), NULL);

		t = fold(iq);
		tap_ok(t && t->dtype == QIR_INT64 && ivals(t, q, 3),
		       "integer Div truncates toward zero");
		qir_tensor_free(t);
		n = qir_node_new(g, "Cast", NULL, NULL);
		qir_node_add_input(n, a);
		qir_node_set_attr_int(n, "to", QIR_FLOAT16);
		v = qir_node_add_output(n, NULL, "h");
		t = fold(v);
		tap_ok(t && t->dtype == QIR_FLOAT16 && t->nbytes == 12 &&
		       fvals(t, a6, 6), "Cast to FLOAT16");
		qir_tensor_free(t);
		n = qir_node_new(g, "Cast", NULL, NULL);
		qir_node_add_input(n, op("Mul", v, v, NULL));
		qir_node_set_attr_int(n, "to", QIR_INT32);
		t = fold(qir_node_add_output(n, NULL, "i32"));
		{
			static const int64_t sq[6] = { 1, 4, 9, 16, 25, 36 };

			tap_ok(t && t->dtype == QIR_INT32 && ivals(t, sq, 6),
			       "FLOAT16 Mul then Cast to INT32");
		}
		qir_tensor_free(t);
	}

	/* Unsqueeze: opset 17 takes axes as an input. */
	{
		int64_t axes[1] = { 0 }, want[3] = { 1, 2, 3 };

		ax = init_i("axes", 1, axes);
		t = fold(op("Unsqueeze", a, ax, NULL));
		tap_ok(shape_is(t, 3, want), "Unsqueeze axes input (opset 13+)");
		qir_tensor_free(t);
		qir_model_set_opset(m, "", 11);
		n = qir_node_new(g, "Unsqueeze", NULL, NULL);
		qir_node_add_input(n, a);
		axes[0] = -1;
		qir_node_set_attr_ints(n, "axes", axes, 1);
		t = fold(qir_node_add_output(n, NULL, "u"));
		{
			int64_t w2[3] = { 2, 3, 1 };

			tap_ok(shape_is(t, 3, w2), "Unsqueeze axes attribute (opset 11)");
		}
		qir_tensor_free(t);
		qir_model_set_opset(m, "", 17);
		/* Squeeze without axes drops every 1. */
		t = fold(op("Squeeze", op("Unsqueeze", a, ax, NULL), NULL, NULL));
		tap_ok(shape_is(t, 2, d23) && fvals(t, a6, 6),
		       "Squeeze without axes");
		qir_tensor_free(t);
	}

	/* Concat, Slice, Gather, Shape, ConstantOfShape. */
	{
		static const float cat[9] = { 1, 2, 3, 4, 5, 6, 10, 20, 30 };
		int64_t one3[2] = { 1, 3 }, d33[2] = { 3, 3 };
		qir_value *b13;
		qir_node *cn;

		b13 = init_f("b13", 2, one3, b3);
		cn = qir_node_new(g, "Concat", NULL, NULL);
		qir_node_add_input(cn, a);
		qir_node_add_input(cn, b13);
		qir_node_set_attr_int(cn, "axis", 0);
		t = fold(qir_node_add_output(cn, NULL, "cat"));
		tap_ok(shape_is(t, 2, d33) && fvals(t, cat, 9), "Concat axis 0");
		qir_tensor_free(t);
	}
	{
		int64_t st[1] = { -1 }, en[1] = { INT64_MIN }, axs[1] = { 1 }, stp[1] = { -2 };
		static const float want[4] = { 3, 1, 6, 4 };
		int64_t d22[2] = { 2, 2 };

		n = qir_node_new(g, "Slice", NULL, NULL);
		qir_node_add_input(n, a);
		qir_node_add_input(n, init_i("st", 1, st));
		qir_node_add_input(n, init_i("en", 1, en));
		qir_node_add_input(n, init_i("axs", 1, axs));
		qir_node_add_input(n, init_i("stp", 1, stp));
		t = fold(qir_node_add_output(n, NULL, "sl"));
		tap_ok(shape_is(t, 2, d22) && fvals(t, want, 4),
		       "Slice with a negative step along axis 1");
		qir_tensor_free(t);
	}
	{
		int64_t iv[2] = { -1, 0 };
		static const float want[4] = { 3, 1, 6, 4 };
		int64_t d22[2] = { 2, 2 };

		idx = init_i("idx", 2, iv);
		n = qir_node_new(g, "Gather", NULL, NULL);
		qir_node_add_input(n, a);
		qir_node_add_input(n, idx);
		qir_node_set_attr_int(n, "axis", 1);
		t = fold(qir_node_add_output(n, NULL, "ga"));
		tap_ok(shape_is(t, 2, d22) && fvals(t, want, 4),
		       "Gather axis 1 with a negative index");
		qir_tensor_free(t);
	}
	{
		qir_value *x = qir_value_new(g, "img");
		int64_t dims[4] = { 1, 3, 4, 4 }, w3[1] = { 3 };
		static const float sevens[3] = { 7, 7, 7 };
		qir_tensor *seven;
		qir_value *sh, *sl;

		qir_value_set_type(x, QIR_FLOAT, 4, dims, NULL);
		qir_graph_add_input(g, x);
		sh = op("Shape", x, NULL, NULL);
		t = fold(sh);
		tap_ok(t && t->dtype == QIR_INT64 && ivals(t, dims, 4),
		       "Shape of a statically shaped graph input");
		qir_tensor_free(t);
		n = qir_node_new(g, "Gather", NULL, NULL);
		qir_node_add_input(n, sh);
		qir_node_add_input(n, init_i("one", 1, &w3[0]));
		sl = qir_node_add_output(n, NULL, "dim1");
		/* index 3 -> dims[3] == 4; build ConstantOfShape([3]) next */
		t = fold(sl);
		tap_ok(t && ivals(t, &dims[3], 1), "Gather over Shape");
		qir_tensor_free(t);
		n = qir_node_new(g, "ConstantOfShape", NULL, NULL);
		qir_node_add_input(n, init_i("three", 1, w3));
		seven = qir_tensor_new("", QIR_FLOAT, 0, NULL, NULL);
		*(float *)qir_tensor_mutable_data(seven, NULL) = 7;
		qir_node_set_attr_tensor(n, "value", seven);
		t = fold(qir_node_add_output(n, NULL, "cos"));
		tap_ok(t && t->rank == 1 && fvals(t, sevens, 3), "ConstantOfShape");
		qir_tensor_free(t);
	}
}

int main(void)
{
	m = qir_model_new(9, 17, NULL);
	g = m->graph;
	test_chain();
	test_errors();
	test_ops();
	qir_model_free(m);
	return tap_done();
}
