/* tests/ir/infer.c - qir_model_infer through the public API: what a
 * pass sees (inferred types on values it did not type), what stays a
 * declaration, recomputation after a rewire, notes on disagreement,
 * the Q/DQ family's element types (FP8, FP4, INT4), and the shapes of
 * ConvTranspose, Pad, Resize/Upsample and Einsum, hostile forms
 * included (they must leave the shape unknown, never crash). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <qopt/ir.h>
#include "../lib/tap.h"

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

/* One node of op over a FLOAT input x (rank xr, dims xd: -1 unknown,
 * named "n"), output y; more inputs with fx_add / fx_ints / fx_floats. */
struct fx {
	qir_model *m;
	qir_node *n;
	qir_value *y;
};

static qir_value *fx_input(struct fx *f, int dtype, int rank, const int64_t *d)
{
	qir_value *v = qir_value_new(f->m->graph, "x");

	qir_value_set_type(v, dtype, rank, d, NULL);
	for (int i = 0; i < rank; i++)
		if (d[i] < 0)
			v->dims[i].param = strdup("n");
	qir_graph_add_input(f->m->graph, v);
	return v;
}

static void fx_new(struct fx *f, int64_t opset, const char *op, int xr,
		   const int64_t *xd)
{
	f->m = qir_model_new(9, opset, NULL);
	f->n = qir_node_new(f->m->graph, op, NULL, op);
	qir_node_add_input(f->n, fx_input(f, QIR_FLOAT, xr, xd));
	f->y = qir_node_add_output(f->n, NULL, "y");
}

/* Appends a FLOAT graph input of the given shape (a weight, a
 * non-constant argument), or an empty optional input when rank < -1. */
static void fx_add(struct fx *f, int rank, const int64_t *d)
{
	qir_node_add_input(f->n, rank < -1 ? NULL : fx_input(f, QIR_FLOAT, rank, d));
}

/* Appends a 1-D INT64 (or dtype) constant holding v[0..n-1]. */
static void fx_ints(struct fx *f, int dtype, size_t n, const int64_t *v)
{
	int64_t d = (int64_t)n;
	qir_tensor *t = qir_tensor_new("c", dtype, 1, &d, NULL);
	void *p = qir_tensor_mutable_data(t, NULL);

	for (size_t i = 0; i < n; i++) {
		if (dtype == QIR_INT64)
			((int64_t *)p)[i] = v[i];
		else
			((int32_t *)p)[i] = (int32_t)v[i];
	}
	qir_node_add_input(f->n, qir_graph_add_initializer(f->m->graph, t));
}

static void fx_floats(struct fx *f, size_t n, const float *v)
{
	int64_t d = (int64_t)n;
	qir_tensor *t = qir_tensor_new("c", QIR_FLOAT, 1, &d, NULL);

	if (n)
		memcpy(qir_tensor_mutable_data(t, NULL), v, n * sizeof(*v));
	qir_node_add_input(f->n, qir_graph_add_initializer(f->m->graph, t));
}

/* Infers, frees the model, and says whether y came out FLOAT with
 * rank r and dims want (-1: unknown; rank -1: shape unknown). */
static int fx_check(struct fx *f, int r, const int64_t *want)
{
	qir_error err = { 0 };
	int ok = qir_model_infer(f->m, NULL, &err) == 0 &&
		 f->y->dtype == QIR_FLOAT && (r < 0 ? f->y->rank == -1 :
					       dims_are(f->y, r, want));

	if (!ok && f->y->rank >= 0)
		for (int i = 0; i < f->y->rank; i++)
			tap_diag("y dim %d: %lld", i, (long long)f->y->dims[i].value);
	qir_model_free(f->m);
	return ok;
}

/* 1 when y's dim i is unknown and named name (inferred, not freed). */
static int named(const struct fx *f, int i, const char *name)
{
	const qir_dim *d = &f->y->dims[i];

	return f->y->rank > i && d->value < 0 && d->param &&
	       !strcmp(d->param, name);
}

#define I64(...) ((const int64_t[]){ __VA_ARGS__ })
#define F32(...) ((const float[]){ __VA_ARGS__ })
#define NI64(...) (sizeof(I64(__VA_ARGS__)) / sizeof(int64_t)), I64(__VA_ARGS__)
#define NF32(...) (sizeof(F32(__VA_ARGS__)) / sizeof(float)), F32(__VA_ARGS__)

/* ConvTranspose X[1,1,3,3] (or xd) W[wc,2,3,3] (or wd). */
static void ct_new(struct fx *f, const int64_t *xd, const int64_t *wd)
{
	fx_new(f, 17, "ConvTranspose", 4, xd ? xd : I64(1, 1, 3, 3));
	fx_add(f, 4, wd ? wd : I64(1, 2, 3, 3));
}

static void test_conv_transpose(void)
{
	struct fx f;

	ct_new(&f, NULL, NULL);
	tap_ok(fx_check(&f, 4, I64(1, 2, 5, 5)), "ConvTranspose: (3-1)+3 = 5, W.shape[1] channels");
	ct_new(&f, NULL, NULL);
	qir_node_set_attr_ints(f.n, "strides", I64(3, 2), 2);
	qir_node_set_attr_ints(f.n, "output_shape", I64(10, 8), 2);
	tap_ok(fx_check(&f, 4, I64(1, 2, 10, 8)), "ConvTranspose: output_shape wins");
	ct_new(&f, NULL, NULL);
	qir_node_set_attr_ints(f.n, "strides", I64(3, 2), 2);
	qir_node_set_attr_ints(f.n, "output_padding", I64(1, 1), 2);
	tap_ok(fx_check(&f, 4, I64(1, 2, 10, 8)), "ConvTranspose: strides and output_padding");
	ct_new(&f, NULL, NULL);
	qir_node_set_attr_ints(f.n, "strides", I64(3, 2), 2);
	qir_node_set_attr_ints(f.n, "pads", I64(1, 2, 1, 2), 4);
	tap_ok(fx_check(&f, 4, I64(1, 2, 7, 3)), "ConvTranspose: pads subtract");
	ct_new(&f, NULL, I64(1, 1, 2, 2));
	qir_node_set_attr_ints(f.n, "dilations", I64(2, 2), 2);
	tap_ok(fx_check(&f, 4, I64(1, 1, 5, 5)), "ConvTranspose: dilated kernel");
	ct_new(&f, I64(-1, 2, 3, 4), I64(2, 3, 3, 3));
	qir_node_set_attr_int(f.n, "group", 2);
	qir_node_set_attr_ints(f.n, "kernel_shape", I64(3, 1), 2);
	qir_model_infer(f.m, NULL, NULL);
	tap_ok(named(&f, 0, "n") && fx_check(&f, 4, I64(-1, 6, 5, 4)),
	       "ConvTranspose: group multiplies channels, kernel_shape read, batch name kept");
	ct_new(&f, NULL, NULL);
	qir_node_set_attr_string(f.n, "auto_pad", "SAME_UPPER");
	qir_node_set_attr_ints(f.n, "strides", I64(2, 2), 2);
	tap_ok(fx_check(&f, 4, I64(1, 2, 6, 6)), "ConvTranspose: SAME_UPPER gives in * stride");

	/* hostile or ambiguous: unknown dims, never a guess */
	ct_new(&f, NULL, I64(1, 2, 1, 1));
	qir_node_set_attr_string(f.n, "auto_pad", "SAME_LOWER");
	qir_node_set_attr_ints(f.n, "strides", I64(2, 2), 2);
	tap_ok(fx_check(&f, 4, I64(1, 2, -1, -1)),
	       "ConvTranspose: SAME with kernel < stride (spec and onnx differ): unknown");
	ct_new(&f, NULL, NULL);
	qir_node_set_attr_ints(f.n, "strides", I64(INT64_MAX, 2), 2);
	qir_node_set_attr_ints(f.n, "pads", I64(0, 9, 0, 9), 4);
	tap_ok(fx_check(&f, 4, I64(1, 2, -1, -1)),
	       "ConvTranspose: overflowing stride, pads above the size: unknown");
	ct_new(&f, NULL, NULL);
	qir_node_set_attr_ints(f.n, "strides", I64(-3, 0), 2);
	qir_node_set_attr_int(f.n, "group", -1);
	tap_ok(fx_check(&f, 4, I64(1, -1, -1, -1)),
	       "ConvTranspose: negative and zero strides, negative group: unknown");
	ct_new(&f, NULL, NULL);
	qir_node_set_attr_ints(f.n, "strides", I64(2, 2, 2), 3);
	tap_ok(fx_check(&f, 4, I64(1, 2, -1, -1)), "ConvTranspose: strides of the wrong length");
	ct_new(&f, NULL, NULL);
	qir_node_set_attr_ints(f.n, "output_shape", I64(10), 1);
	tap_ok(fx_check(&f, 4, I64(1, 2, -1, -1)), "ConvTranspose: output_shape of the wrong length");
	int64_t many[70] = { 0 };
	ct_new(&f, NULL, NULL);
	qir_node_set_attr_ints(f.n, "kernel_shape", many, 70);
	tap_ok(fx_check(&f, 4, I64(1, 2, -1, -1)), "ConvTranspose: 70 kernel dims: unknown");
	fx_new(&f, 17, "ConvTranspose", 4, I64(1, 1, 3, 3));
	fx_add(&f, 3, I64(1, 2, 3));
	tap_ok(fx_check(&f, -1, NULL), "ConvTranspose: W of another rank: typed, no shape");
}

/* Pad of x[1,3,4,5] (or xd) at opset, pads as an INT64 input. */
static void pad_new(struct fx *f, int64_t opset, int r, const int64_t *xd)
{
	fx_new(f, opset, "Pad", r, xd);
}

static void test_pad(void)
{
	const int64_t *x4 = I64(1, 3, 4, 5);
	struct fx f;

	pad_new(&f, 13, 4, x4);
	fx_ints(&f, QIR_INT64, NI64(0, 0, 1, 2, 0, 0, 3, 4));
	tap_ok(fx_check(&f, 4, I64(1, 3, 8, 11)), "Pad-11+: in + begin + end");
	pad_new(&f, 10, 4, x4);
	qir_node_set_attr_ints(f.n, "pads", I64(0, 0, 1, 1, 0, 0, 1, 1), 8);
	tap_ok(fx_check(&f, 4, I64(1, 3, 6, 7)), "Pad-2: the pads attribute");
	pad_new(&f, 18, 4, x4);
	fx_ints(&f, QIR_INT64, NI64(1, 2, 3, 4));
	fx_add(&f, -2, NULL);
	fx_ints(&f, QIR_INT64, NI64(-1, 2));
	tap_ok(fx_check(&f, 4, I64(1, 3, 10, 9)), "Pad-18: axes input, negative axis");
	pad_new(&f, 13, 4, x4);
	fx_ints(&f, QIR_INT32, NI64(0, 0, -1, -1, 0, 0, -1, 0));
	tap_ok(fx_check(&f, 4, I64(1, 3, 2, 4)), "Pad: negative pads crop (INT32 pads read)");
	pad_new(&f, 13, 2, I64(-1, 3));
	fx_ints(&f, QIR_INT64, NI64(0, 1, 0, 1));
	qir_model_infer(f.m, NULL, NULL);
	tap_ok(named(&f, 0, "n") && fx_check(&f, 2, I64(-1, 5)),
	       "Pad: an unpadded unknown dim keeps its name");
	pad_new(&f, 13, 2, I64(-1, 3));
	fx_ints(&f, QIR_INT64, NI64(1, 0, -1, 0));
	qir_model_infer(f.m, NULL, NULL);
	tap_ok(!named(&f, 0, "n") && fx_check(&f, 2, I64(-1, 3)),
	       "Pad: a padded unknown dim loses it");

	/* hostile: rank kept, dims unknown */
	pad_new(&f, 13, 4, x4);
	fx_add(&f, 1, I64(8));
	tap_ok(fx_check(&f, 4, I64(-1, -1, -1, -1)), "Pad: pads not constant: rank only");
	pad_new(&f, 13, 4, x4);
	fx_ints(&f, QIR_INT64, NI64(0, 0, 1, 2, 0, 0, 3));
	tap_ok(fx_check(&f, 4, I64(-1, -1, -1, -1)), "Pad: 7 pads for rank 4");
	pad_new(&f, 13, 2, I64(4, 5));
	fx_ints(&f, QIR_INT64, NI64(INT64_MAX, -9, 1, 0));
	tap_ok(fx_check(&f, 2, I64(-1, -1)), "Pad: overflowing and below-zero sums");
	pad_new(&f, 18, 4, x4);
	fx_ints(&f, QIR_INT64, NI64(1, 2, 3, 4));
	fx_add(&f, -2, NULL);
	fx_ints(&f, QIR_INT64, NI64(3, -1));
	tap_ok(fx_check(&f, 4, I64(-1, -1, -1, -1)), "Pad: a repeated axis");
	pad_new(&f, 18, 4, x4);
	fx_ints(&f, QIR_INT64, NI64(1, 2));
	fx_add(&f, -2, NULL);
	fx_ints(&f, QIR_INT64, NI64(4));
	tap_ok(fx_check(&f, 4, I64(-1, -1, -1, -1)), "Pad: an axis out of range");
	pad_new(&f, 10, 4, x4);
	qir_node_set_attr_int(f.n, "pads", 3);
	tap_ok(fx_check(&f, 4, I64(-1, -1, -1, -1)), "Pad-2: pads not a list");
}

/* Resize at opset over x (rank 4), roi absent. */
static void rs_new(struct fx *f, int64_t opset, const int64_t *xd)
{
	fx_new(f, opset, "Resize", 4, xd ? xd : I64(1, 1, 2, 4));
	if (opset >= 11)
		fx_add(f, -2, NULL);
}

static void rs_sizes(struct fx *f, int64_t opset, const int64_t *xd,
		     const char *policy, size_t n, const int64_t *sz)
{
	rs_new(f, opset, xd);
	fx_add(f, -2, NULL);
	fx_ints(f, QIR_INT64, n, sz);
	if (policy)
		qir_node_set_attr_string(f->n, "keep_aspect_ratio_policy", policy);
}

static void test_resize(void)
{
	const int64_t *x22 = I64(1, 1, 2, 2), *unk = I64(-1, -1, -1, -1);
	struct fx f;

	rs_new(&f, 10, NULL);
	fx_floats(&f, NF32(1, 1, 2, 3));
	tap_ok(fx_check(&f, 4, I64(1, 1, 4, 12)), "Resize-10: scales input 1");
	rs_new(&f, 13, NULL);
	fx_floats(&f, NF32(1, 1, 0.6f, 0.6f));
	tap_ok(fx_check(&f, 4, I64(1, 1, 1, 2)), "Resize-13: floor(in * scale)");
	rs_sizes(&f, 13, NULL, NULL, NI64(1, 1, 7, 8));
	tap_ok(fx_check(&f, 4, I64(1, 1, 7, 8)), "Resize-13: sizes");
	rs_new(&f, 11, NULL);
	fx_floats(&f, 0, NULL);
	fx_ints(&f, QIR_INT64, NI64(1, 1, 7, 8));
	tap_ok(fx_check(&f, 4, I64(1, 1, 7, 8)), "Resize-11: sizes beside an empty scales");
	rs_sizes(&f, 18, I64(-1, 3, 4, 4), NULL, NI64(7, 8));
	qir_node_set_attr_ints(f.n, "axes", I64(-2, 3), 2);
	qir_model_infer(f.m, NULL, NULL);
	tap_ok(named(&f, 0, "n") && fx_check(&f, 4, I64(-1, 3, 7, 8)),
	       "Resize-18: sizes on axes, other dims kept with their names");
	rs_sizes(&f, 18, x22, "not_larger", NI64(7, 8));
	qir_node_set_attr_ints(f.n, "axes", I64(2, 3), 2);
	tap_ok(fx_check(&f, 4, I64(1, 1, 7, 7)), "Resize-18: not_larger takes the smaller scale");
	rs_sizes(&f, 18, x22, "not_smaller", NI64(7, 8));
	qir_node_set_attr_ints(f.n, "axes", I64(2, 3), 2);
	tap_ok(fx_check(&f, 4, I64(1, 1, 8, 8)), "Resize-18: not_smaller the larger");
	rs_sizes(&f, 18, NULL, "not_larger", NI64(1, 1, 1, 3));
	tap_ok(fx_check(&f, 4, I64(1, 1, 1, 2)), "Resize-18: not_larger on every axis");
	rs_new(&f, 19, I64(1, 1, 3, 5));
	fx_floats(&f, NF32(2.5f, 0.5f));
	qir_node_set_attr_ints(f.n, "axes", I64(3, 2), 2);
	tap_ok(fx_check(&f, 4, I64(1, 1, 1, 12)), "Resize-19: scales on axes");
	fx_new(&f, 9, "Upsample", 4, x22);
	fx_floats(&f, NF32(1, 1, 2, 3));
	tap_ok(fx_check(&f, 4, I64(1, 1, 4, 6)), "Upsample-9: scales input");
	fx_new(&f, 7, "Upsample", 4, x22);
	qir_node_set_attr_floats(f.n, "scales", F32(1, 1, 2, 3), 4);
	tap_ok(fx_check(&f, 4, I64(1, 1, 4, 6)), "Upsample-7: scales attribute");

	/* hostile or outside what a constant tells: rank only */
	rs_new(&f, 13, NULL);
	fx_floats(&f, NF32(1, 1, 2, 2));
	fx_ints(&f, QIR_INT64, NI64(1, 1, 4, 8));
	tap_ok(fx_check(&f, 4, unk), "Resize: both scales and sizes");
	rs_new(&f, 13, NULL);
	tap_ok(fx_check(&f, 4, unk), "Resize: neither scales nor sizes");
	rs_new(&f, 13, NULL);
	fx_floats(&f, NF32(1, 2, 2));
	tap_ok(fx_check(&f, 4, unk), "Resize: 3 scales for rank 4");
	rs_new(&f, 13, NULL);
	fx_floats(&f, NF32(-1.0f, 0.0f, NAN, 1e30f));
	tap_ok(fx_check(&f, 4, unk), "Resize: negative, zero, NaN, overflowing scales");
	rs_new(&f, 13, I64(1, 1, (1 << 24) + 1, 4));
	fx_floats(&f, NF32(1, 1, 1, INFINITY));
	tap_ok(fx_check(&f, 4, I64(1, 1, -1, -1)), "Resize: a dim not exact in float, an infinite scale");
	rs_sizes(&f, 13, NULL, NULL, NI64(1, 1, -7, 0));
	tap_ok(fx_check(&f, 4, unk), "Resize: negative and zero sizes");
	rs_sizes(&f, 18, NULL, NULL, NI64(7, 8));
	qir_node_set_attr_ints(f.n, "axes", I64(3, -1), 2);
	tap_ok(fx_check(&f, 4, unk), "Resize: a repeated axis");
	rs_sizes(&f, 18, I64(1, 1, -1, 4), "not_larger", NI64(7, 8));
	qir_node_set_attr_ints(f.n, "axes", I64(2, 3), 2);
	tap_ok(fx_check(&f, 4, I64(1, 1, -1, -1)), "Resize: keep_aspect_ratio_policy over an unknown dim");
	rs_sizes(&f, 18, NULL, "wider", NI64(1, 1, 7, 8));
	tap_ok(fx_check(&f, 4, unk), "Resize: an unknown keep_aspect_ratio_policy");
	rs_new(&f, 13, NULL);
	fx_floats(&f, NF32(1, 1, 2, 2));
	qir_node_set_attr_string(f.n, "coordinate_transformation_mode", "tf_crop_and_resize");
	tap_ok(fx_check(&f, 4, unk), "Resize: tf_crop_and_resize scales the roi: unknown");
	rs_new(&f, 13, NULL);
	fx_ints(&f, QIR_INT64, NI64(1, 1, 2, 2));
	tap_ok(fx_check(&f, 4, unk), "Resize: INT64 scales");
	fx_new(&f, 7, "Upsample", 4, x22);
	qir_node_set_attr_ints(f.n, "scales", I64(1, 1, 2, 2), 4);
	tap_ok(fx_check(&f, 4, unk), "Upsample-7: scales not FLOATS");
}

/* Einsum of equation eq over inputs of ranks r0, r1 (r1 < 0: one). */
static int ein(const char *eq, int r0, const int64_t *d0, int r1,
	       const int64_t *d1, int r, const int64_t *want)
{
	struct fx f;

	fx_new(&f, 12, "Einsum", r0, d0);
	if (r1 >= 0)
		fx_add(&f, r1, d1);
	if (eq)
		qir_node_set_attr_string(f.n, "equation", eq);
	return fx_check(&f, r, want);
}

static void test_einsum(void)
{
	const int64_t *x23 = I64(2, 3), *y34 = I64(3, 4);
	char eq[200], *p = eq, *big;
	int64_t d20[20];
	struct fx f;

	tap_ok(ein("ij,jk->ik", 2, x23, 2, y34, 2, I64(2, 4)), "Einsum: explicit matmul");
	tap_ok(ein("ij,jk", 2, x23, 2, y34, 2, I64(2, 4)), "Einsum: implicit, letters used once");
	tap_ok(ein("ji", 2, x23, -1, NULL, 2, I64(3, 2)), "Einsum: implicit output in alphabetical order");
	tap_ok(ein(" i j , j k -> i k ", 2, x23, 2, y34, 2, I64(2, 4)), "Einsum: spaces");
	tap_ok(ein("ii->i", 2, I64(3, 3), -1, NULL, 1, I64(3)), "Einsum: diagonal");
	tap_ok(ein("i,i->", 1, I64(3), 1, I64(3), 0, NULL), "Einsum: a scalar output");
	tap_ok(ein("...ii->...i", 3, I64(7, 3, 3), -1, NULL, 2, I64(7, 3)), "Einsum: ellipsis kept");
	tap_ok(ein("...ii", 3, I64(7, 3, 3), -1, NULL, 1, I64(7)), "Einsum: implicit ellipsis first, repeated letters summed");
	tap_ok(ein("aB->Ba", 2, x23, -1, NULL, 2, I64(3, 2)), "Einsum: upper case letters");
	fx_new(&f, 12, "Einsum", 4, I64(-1, 5, 2, 3));
	fx_add(&f, 4, I64(1, 5, 3, 4));
	qir_node_set_attr_string(f.n, "equation", "...ij,...jk->...ik");
	qir_model_infer(f.m, NULL, NULL);
	tap_ok(named(&f, 0, "n") && fx_check(&f, 4, I64(-1, 5, 2, 4)),
	       "Einsum: ellipsis dims broadcast (1 gives way, a name kept)");

	/* malformed: typed, no shape */
	tap_ok(ein("ij,jk->ik", 2, x23, 2, I64(4, 5), -1, NULL), "Einsum: a letter of two sizes");
	tap_ok(ein("ijk", 2, x23, -1, NULL, -1, NULL), "Einsum: more letters than dims");
	tap_ok(ein("ij->iz", 2, x23, -1, NULL, -1, NULL), "Einsum: an output letter no input has");
	tap_ok(ein("ij->ii", 2, x23, -1, NULL, -1, NULL), "Einsum: a repeated output letter");
	tap_ok(ein("ij,jk,kl->il", 2, x23, 2, y34, -1, NULL), "Einsum: more terms than inputs");
	tap_ok(ein("ij->ij", 2, x23, 2, y34, -1, NULL), "Einsum: fewer terms than inputs");
	tap_ok(ein("i$j->ij", 2, x23, -1, NULL, -1, NULL), "Einsum: a stray character");
	tap_ok(ein("..ij", 2, x23, -1, NULL, -1, NULL), "Einsum: two dots");
	tap_ok(ein("....ij", 2, x23, -1, NULL, -1, NULL), "Einsum: four dots");
	tap_ok(ein("ij->->ij", 2, x23, -1, NULL, -1, NULL), "Einsum: two arrows");
	tap_ok(ein("...i...->i", 2, x23, -1, NULL, -1, NULL), "Einsum: two ellipses in a term");
	tap_ok(ein("ij->...i...", 2, x23, -1, NULL, -1, NULL), "Einsum: two ellipses in the output");
	tap_ok(ein("", 2, x23, -1, NULL, -1, NULL), "Einsum: empty equation for a matrix");
	tap_ok(ein(NULL, 2, x23, -1, NULL, -1, NULL), "Einsum: no equation");
	tap_ok(ein("...i,...i->...i", 3, I64(2, 3, 4), 2, I64(3, 4), -1, NULL),
	       "Einsum: ellipses of different dim counts");
	tap_ok(ein("...i,...i", 2, I64(2, 3), 2, I64(4, 3), -1, NULL),
	       "Einsum: ellipsis dims that do not broadcast");
	tap_ok(ein("aB", 2, x23, -1, NULL, -1, NULL), "Einsum: implicit mix of cases (order differs by runtime)");
	tap_ok(ein("ij,jk->ik", -1, NULL, 2, y34, -1, NULL), "Einsum: an input of unknown rank");
	for (int i = 0; i < 199; i++)
		*p++ = 'a' + i % 26;
	*p = 0;
	tap_ok(ein(eq, 2, x23, -1, NULL, -1, NULL), "Einsum: 199 letters for 2 dims");
	big = malloc(5000);
	memset(big, 'a', 4999);
	big[4999] = 0;
	tap_ok(ein(big, 2, x23, -1, NULL, -1, NULL), "Einsum: an equation over the length read");
	free(big);
	/* 20 + 20 letters: an output rank above the 32 inference keeps */
	for (int i = 0; i < 20; i++)
		d20[i] = 1;
	p = eq;
	for (int i = 0; i < 20; i++)
		*p++ = 'a' + i;
	*p++ = ',';
	for (int i = 0; i < 20; i++)
		*p++ = 'A' + i;
	memcpy(p, "->", 2);
	p += 2;
	for (int i = 0; i < 20; i++) {
		*p++ = 'a' + i;
		*p++ = 'A' + i;
	}
	*p = 0;
	tap_ok(ein(eq, 20, d20, 20, d20, -1, NULL), "Einsum: an output of rank 40");
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

/* LSTM X (W [dirs, 4h, in], R [dirs, 4h, h]) with outputs Y, Y_h, Y_c:
 * 1 when Y has rank yr and dims yd, and Y_h, Y_c rank hr dims hd. */
static int lstm(int64_t opset, const int64_t *xd, const char *dir,
		int64_t h_attr, int64_t layout, int yr, const int64_t *yd,
		int hr, const int64_t *hd)
{
	struct fx f;
	qir_error err = { 0 };
	qir_value *yh, *yc;
	int ok;

	fx_new(&f, opset, "LSTM", 3, xd);
	fx_add(&f, 3, I64(2, 32, 5));
	fx_add(&f, 3, I64(2, 32, 8));
	yh = qir_node_add_output(f.n, NULL, "yh");
	yc = qir_node_add_output(f.n, NULL, "yc");
	if (dir)
		qir_node_set_attr_string(f.n, "direction", dir);
	if (h_attr)
		qir_node_set_attr_int(f.n, "hidden_size", h_attr);
	if (layout)
		qir_node_set_attr_int(f.n, "layout", layout);
	ok = qir_model_infer(f.m, NULL, &err) == 0 &&
	     f.y->dtype == QIR_FLOAT && yh->dtype == QIR_FLOAT &&
	     yc->dtype == QIR_FLOAT &&
	     (yr < 0 ? f.y->rank == -1 : dims_are(f.y, yr, yd)) &&
	     (hr < 0 ? yh->rank == -1 : dims_are(yh, hr, hd) &&
				    dims_are(yc, hr, hd));
	qir_model_free(f.m);
	return ok;
}

static void test_recurrent(void)
{
	struct fx f;

	tap_ok(lstm(17, I64(7, 3, 5), "bidirectional", 8, 0, 4, I64(7, 2, 3, 8),
		    3, I64(2, 3, 8)),
	       "LSTM: Y [seq, dirs, batch, h], Y_h and Y_c [dirs, batch, h]");
	tap_ok(lstm(17, I64(7, 3, 5), NULL, 0, 0, 4, I64(7, 2, 3, 8), 3,
		    I64(2, 3, 8)),
	       "LSTM without direction or hidden_size: W's dirs, R's h");
	tap_ok(lstm(17, I64(3, 7, 5), "forward", 8, 1, 4, I64(3, 7, 1, 8), 3,
		    I64(3, 1, 8)),
	       "LSTM layout 1: batch first in X, Y and the states");
	tap_ok(lstm(17, I64(-1, 3, 5), "reverse", 8, 0, 4, I64(-1, 1, 3, 8), 3,
		    I64(1, 3, 8)),
	       "LSTM: an unknown sequence length stays unknown");
	tap_ok(lstm(17, I64(7, 3, 5), "sideways", 8, 0, 4, I64(7, -1, 3, 8), 3,
		    I64(-1, 3, 8)),
	       "LSTM: an unknown direction leaves dirs unknown");
	tap_ok(lstm(17, I64(7, 3, 5), NULL, 0, 2, -1, NULL, -1, NULL),
	       "LSTM: layout 2 (not ONNX's) leaves every shape unknown");
	fx_new(&f, 17, "GRU", 3, I64(4, 2, 6));
	fx_add(&f, 3, I64(1, 48, 6));
	qir_node_set_attr_int(f.n, "hidden_size", 16);
	tap_ok(fx_check(&f, 4, I64(4, 1, 2, 16)), "GRU: Y [seq, 1, batch, h]");
	fx_new(&f, 17, "RNN", 2, I64(4, 6));
	fx_add(&f, 3, I64(1, 16, 6));
	tap_ok(fx_check(&f, -1, NULL), "RNN: X of rank 2 leaves the shape unknown");
}

static void test_depth_space(void)
{
	struct fx f;

	fx_new(&f, 17, "DepthToSpace", 4, I64(1, 8, 3, 5));
	qir_node_set_attr_int(f.n, "blocksize", 2);
	tap_ok(fx_check(&f, 4, I64(1, 2, 6, 10)), "DepthToSpace: C / b^2, H b, W b");
	fx_new(&f, 17, "DepthToSpace", 4, I64(1, 6, 3, 5));
	qir_node_set_attr_int(f.n, "blocksize", 2);
	tap_ok(fx_check(&f, 4, I64(1, -1, 6, 10)),
	       "DepthToSpace: channels b^2 does not divide stay unknown");
	fx_new(&f, 17, "SpaceToDepth", 4, I64(1, 3, 4, 6));
	qir_node_set_attr_int(f.n, "blocksize", 2);
	tap_ok(fx_check(&f, 4, I64(1, 12, 2, 3)), "SpaceToDepth: C b^2, H / b, W / b");
	fx_new(&f, 17, "SpaceToDepth", 4, I64(1, 3, 5, 6));
	qir_node_set_attr_int(f.n, "blocksize", 2);
	tap_ok(fx_check(&f, 4, I64(1, 12, -1, 3)),
	       "SpaceToDepth: a dim b does not divide stays unknown");
	fx_new(&f, 17, "SpaceToDepth", 4, I64(1, 3, 4, 6));
	qir_node_set_attr_int(f.n, "blocksize", INT64_C(4000000000));
	tap_ok(fx_check(&f, -1, NULL),
	       "SpaceToDepth: a blocksize whose square overflows leaves the shape unknown");
	fx_new(&f, 17, "DepthToSpace", 4, I64(1, 8, 3, 5));
	qir_node_set_attr_int(f.n, "blocksize", 0);
	tap_ok(fx_check(&f, -1, NULL), "DepthToSpace: blocksize 0 leaves the shape unknown");
}

static void test_gather_sample_roi(void)
{
	struct fx f;

	fx_new(&f, 17, "GatherND", 3, I64(4, 5, 6));
	fx_add(&f, 3, I64(2, 3, 2));
	tap_ok(fx_check(&f, 3, I64(2, 3, 6)), "GatherND: indices' dims but the last, then data's after k");
	fx_new(&f, 17, "GatherND", 3, I64(4, 5, 6));
	fx_add(&f, 3, I64(4, 3, 1));
	qir_node_set_attr_int(f.n, "batch_dims", 1);
	tap_ok(fx_check(&f, 3, I64(4, 3, 6)), "GatherND: batch_dims 1 skips data's first dim");
	fx_new(&f, 17, "GatherND", 3, I64(4, 5, 6));
	fx_add(&f, 2, I64(2, -1));
	tap_ok(fx_check(&f, -1, NULL), "GatherND: an unknown tuple length leaves the shape unknown");
	fx_new(&f, 17, "GatherND", 2, I64(4, 5));
	fx_add(&f, 2, I64(2, 3));
	tap_ok(fx_check(&f, -1, NULL), "GatherND: tuples longer than data's rank: unknown");
	fx_new(&f, 17, "GatherND", 2, I64(4, 5));
	fx_add(&f, 2, I64(2, 1));
	qir_node_set_attr_int(f.n, "batch_dims", -3);
	tap_ok(fx_check(&f, -1, NULL), "GatherND: a negative batch_dims: unknown");

	fx_new(&f, 20, "GridSample", 4, I64(2, 3, 8, 8));
	fx_add(&f, 4, I64(2, 5, 7, 2));
	tap_ok(fx_check(&f, 4, I64(2, 3, 5, 7)), "GridSample: [N, C] then the grid's sample points");
	fx_new(&f, 20, "GridSample", 4, I64(2, 3, 8, 8));
	fx_add(&f, 4, I64(2, 5, 7, 3));
	tap_ok(fx_check(&f, -1, NULL), "GridSample: a grid of 3-D points for a 2-D image: unknown");

	fx_new(&f, 16, "RoiAlign", 4, I64(1, 16, 32, 32));
	fx_add(&f, 2, I64(10, 4));
	fx_add(&f, 1, I64(10));
	tap_ok(fx_check(&f, 4, I64(10, 16, 1, 1)), "RoiAlign: [rois, C, 1, 1] by default");
	fx_new(&f, 16, "RoiAlign", 4, I64(1, 16, 32, 32));
	fx_add(&f, 2, I64(10, 4));
	fx_add(&f, 1, I64(10));
	qir_node_set_attr_int(f.n, "output_height", 7);
	qir_node_set_attr_int(f.n, "output_width", 5);
	tap_ok(fx_check(&f, 4, I64(10, 16, 7, 5)), "RoiAlign: output_height and output_width");
	fx_new(&f, 16, "RoiAlign", 4, I64(1, 16, 32, 32));
	fx_add(&f, 2, I64(10, 4));
	qir_node_set_attr_int(f.n, "output_width", 0);
	tap_ok(fx_check(&f, -1, NULL), "RoiAlign: output_width 0: unknown");
}

/* Slice x[5] (or a dim of d) by start, end, step on axis 0: the output
 * dim. ONNX clamps a start into [0, d] (positive step) or [0, d - 1]
 * (negative), an end into [0, d] or [-1, d - 1]. */
static int slice_dim(int64_t d, int64_t start, int64_t end, int64_t step,
		     int64_t want)
{
	struct fx f;

	fx_new(&f, 17, "Slice", 1, I64(d));
	fx_ints(&f, QIR_INT64, NI64(start));
	fx_ints(&f, QIR_INT64, NI64(end));
	fx_ints(&f, QIR_INT64, NI64(0));
	fx_ints(&f, QIR_INT64, NI64(step));
	if (fx_check(&f, 1, I64(want)))
		return 1;
	tap_diag("Slice [%lld] %lld:%lld:%lld: want %lld", (long long)d,
		 (long long)start, (long long)end, (long long)step,
		 (long long)want);
	return 0;
}

/* A model with no graph input of its own (chains built by hand). */
static qir_model *chain_new(void)
{
	return qir_model_new(9, 17, NULL);
}

static qir_value *chain_ints(qir_model *m, int dtype, size_t n,
			     const int64_t *v)
{
	int64_t d = (int64_t)n;
	qir_tensor *t = qir_tensor_new("c", dtype, 1, &d, NULL);
	void *p = qir_tensor_mutable_data(t, NULL);

	for (size_t i = 0; i < n; i++) {
		if (dtype == QIR_INT64)
			((int64_t *)p)[i] = v[i];
		else
			((int32_t *)p)[i] = (int32_t)v[i];
	}
	return qir_graph_add_initializer(m->graph, t);
}

static qir_value *chain_cast(qir_model *m, qir_value *in, int to)
{
	qir_value *out;
	qir_node *n = op1(m->graph, "Cast", in, NULL, &out);

	qir_node_set_attr_int(n, "to", to);
	return out;
}

/* ConstantOfShape(shape): infers m, says whether the result has rank
 * r and dims want, frees m. */
static int chain_check(qir_model *m, qir_value *shape, int r,
		       const int64_t *want)
{
	qir_error err = { 0 };
	qir_value *y;
	int ok;

	op1(m->graph, "ConstantOfShape", shape, NULL, &y);
	qir_graph_add_output(m->graph, y);
	ok = qir_model_infer(m, NULL, &err) == 0 && dims_are(y, r, want);
	if (!ok) {
		tap_diag("y rank %d", y->rank);
		for (int i = 0; i < y->rank; i++)
			tap_diag("y dim %d: %lld", i, (long long)y->dims[i].value);
	}
	qir_model_free(m);
	return ok;
}

static void test_slice_clamps(void)
{
	const int64_t MIN = INT64_MIN, MAX = INT64_MAX;
	struct { int64_t d, start, end, step, want; } c[] = {
		{ 5, -100, -100, -1, 1 },	/* the start clamps to 0 */
		{ 5, 100, -100, -1, 5 },
		{ 5, MAX, MIN, -1, 5 },
		/* ORT takes these to the front, the spec to d - 1: unknown */
		{ 5, 3, MAX, -1, -1 },
		{ 5, -100, MAX, -2, -1 },
		{ 5, 0, INT32_MAX, -1, -1 },
		{ 5, 0, INT32_MAX, 1, 5 },
		{ 5, 4, -7, -2, 3 },
		{ 5, 5, 5, -1, 0 },
		{ 5, 0, 0, -1, 0 },
		{ 5, -1, -6, -1, 5 },
		{ 5, -100, -100, MIN, 1 },	/* clamped before compared */
		{ 5, 100, -100, MIN, 1 },
		{ 5, 3, 3, MIN, 0 },
		{ 5, 0, 100, 1, 5 },
		{ 5, MIN, MAX, 1, 5 },
		{ 5, -100, -100, 1, 0 },
		{ 5, 100, 200, 1, 0 },
		{ 5, 2, 1, 1, 0 },
		{ 5, 1, 4, 2, 2 },
		{ 5, 0, 5, MAX, 1 },
		{ 5, MAX, MAX, 1, 0 },
		{ 0, -1, -100, -1, 0 },	/* an empty dim gives nothing */
		{ 0, MIN, MAX, 1, 0 },
		{ 0, MAX, MIN, -1, 0 },
		{ 1, MAX, MIN, -1, 1 },
		{ 1, -100, -100, -1, 1 },
	};
	int ok = 1;

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		ok &= slice_dim(c[i].d, c[i].start, c[i].end, c[i].step,
				c[i].want);
	tap_ok(ok, "Slice clamps starts and ends as ONNX does, both step signs");

	/* the values of Shape(x[2,3,4,5,6])[-100:-100:-1]: {2} */
	qir_model *m = chain_new();
	qir_value *x = qir_value_new(m->graph, "x"), *sh, *sl;
	qir_node *n;

	qir_value_set_type(x, QIR_FLOAT, 5, I64(2, 3, 4, 5, 6), NULL);
	qir_graph_add_input(m->graph, x);
	op1(m->graph, "Shape", x, NULL, &sh);
	n = op1(m->graph, "Slice", sh, chain_ints(m, QIR_INT64, NI64(-100)), &sl);
	qir_node_add_input(n, chain_ints(m, QIR_INT64, NI64(-100)));
	qir_node_add_input(n, chain_ints(m, QIR_INT64, NI64(0)));
	qir_node_add_input(n, chain_ints(m, QIR_INT64, NI64(-1)));
	tap_ok(chain_check(m, sl, 1, I64(2)),
	       "a reversed Slice of a shape folds from the clamped start");
}

static void test_int32_wrap(void)
{
	qir_model *m = chain_new();
	qir_value *v, *w;

	v = chain_cast(m, chain_ints(m, QIR_INT64, NI64(INT64_C(4294967298))),
		       QIR_INT32);
	tap_ok(chain_check(m, chain_cast(m, v, QIR_INT64), 1, I64(2)),
	       "Cast to INT32 keeps the low 32 bits (4294967298 -> 2)");

	m = chain_new();
	v = chain_cast(m, chain_ints(m, QIR_INT64, NI64(-INT64_C(4294967295))),
		       QIR_INT32);
	tap_ok(chain_check(m, chain_cast(m, v, QIR_INT64), 1, I64(1)),
	       "Cast to INT32 of a negative int64 wraps too");

	m = chain_new();
	v = chain_ints(m, QIR_INT32, NI64(65536));
	op1(m->graph, "Mul", v, v, &w);
	tap_ok(chain_check(m, chain_cast(m, w, QIR_INT64), 1, I64(0)),
	       "an INT32 Mul wraps (65536 * 65536 -> 0)");

	m = chain_new();
	op1(m->graph, "Sub", chain_ints(m, QIR_INT32, NI64(INT32_MIN)),
	    chain_ints(m, QIR_INT32, NI64(INT32_MAX)), &w);
	tap_ok(chain_check(m, chain_cast(m, w, QIR_INT64), 1, I64(1)),
	       "an INT32 Sub wraps (INT32_MIN - INT32_MAX -> 1)");

	m = chain_new();
	op1(m->graph, "Add", chain_ints(m, QIR_INT32, NI64(INT32_MAX)),
	    chain_ints(m, QIR_INT32, NI64(INT32_MAX)), &w);
	op1(m->graph, "Add", w, chain_ints(m, QIR_INT32, NI64(5)), &v);
	tap_ok(chain_check(m, chain_cast(m, v, QIR_INT64), 1, I64(3)),
	       "an INT32 Add wraps (2 INT32_MAX + 5 -> 3)");

	m = chain_new();
	op1(m->graph, "Mul", chain_ints(m, QIR_INT64, NI64(INT64_C(1) << 62 | 3)),
	    chain_ints(m, QIR_INT64, NI64(4)), &w);
	tap_ok(chain_check(m, w, 1, I64(12)),
	       "an INT64 Mul wraps in 64 bits, without overflow in C");

	m = chain_new();
	op1(m->graph, "Div", chain_ints(m, QIR_INT32, NI64(INT32_MIN)),
	    chain_ints(m, QIR_INT32, NI64(-1)), &w);
	/* not folded: ConstantOfShape of the unknown [1] has rank 1 and
	 * an unknown dim (a shape vector's known length is its rank) */
	tap_ok(chain_check(m, chain_cast(m, w, QIR_INT64), 1, I64(-1)),
	       "an INT32 INT_MIN / -1 (a trap at run time) is not folded");
}

/* Shape(x, start=100) is empty; Mul by [7] broadcasts to empty; the
 * ConstantOfShape of an empty shape is a scalar. */
static void test_empty_broadcast(void)
{
	for (int swap = 0; swap < 2; swap++) {
		qir_model *m = chain_new();
		qir_value *x = qir_value_new(m->graph, "x"), *sh, *k, *p;
		qir_node *n;

		qir_value_set_type(x, QIR_FLOAT, 2, I64(2, 3), NULL);
		qir_graph_add_input(m->graph, x);
		n = op1(m->graph, "Shape", x, NULL, &sh);
		qir_node_set_attr_int(n, "start", 100);
		k = chain_ints(m, QIR_INT64, NI64(7));
		op1(m->graph, "Mul", swap ? k : sh, swap ? sh : k, &p);
		tap_ok(chain_check(m, p, 0, NULL),
		       swap ? "[7] * an empty shape is empty" :
			      "an empty shape * [7] is empty: a scalar follows");
	}
}

int main(void)
{
	test_basic();
	test_qdq();
	test_conv_transpose();
	test_pad();
	test_resize();
	test_einsum();
	test_recurrent();
	test_depth_space();
	test_gather_sample_roi();
	test_slice_clamps();
	test_int32_wrap();
	test_empty_broadcast();
	return tap_done();
}
