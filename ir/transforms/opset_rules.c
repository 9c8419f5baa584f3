/*
 * ir/transforms/opset_rules.c - what each operator change between two opsets means
 * for an existing node, and the rewrite that keeps its meaning.
 *
 * A version step not listed in rules[] was reviewed against the
 * operator changelog as one that only widens types, accepts negative
 * axes, or adds an attribute or optional input whose default keeps the
 * old behaviour: the node is kept as it is. The table in
 * passes/opset_check/README.md mirrors this file.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transforms/opset_upgrade.h"

#define G(n) ((n)->graph)

static int remove_attrs(qir_node *n, const char *const *names)
{
	for (; *names; names++)
		if (qir_node_attr(n, *names))
			qir_node_remove_attr(n, *names);
	return 0;
}

/* ---- legacy broadcasting (opset 7 made it numpy-style) ---- */
static int r_broadcast7(struct ir_up *u, qir_node **np, int step)
{
	static const char *const attrs[] = { "broadcast", "axis", NULL };
	qir_node *n = *np;
	const qir_attr *axis = qir_node_attr(n, "axis");
	int64_t bc = qir_node_attr_int(n, "broadcast", 0);

	if (bc && axis && n->ninputs >= 2) {
		qir_value *a = n->inputs[0], *b = n->inputs[1];

		if (!a || !b || a->rank < 0 || b->rank < 0)
			return ir_up_fail(u, n, step, "legacy broadcast with "
					    "axis=%lld and unknown input ranks",
					    (long long)axis->i);
		if (axis->i != a->rank - b->rank)
			return ir_up_fail(u, n, step,
					    "legacy broadcast along "
					    "axis %lld is not trailing-aligned",
					    (long long)axis->i);
	}
	if (!u->dry)
		remove_attrs(n, attrs);
	return 0;
}

static int r_gemm7(struct ir_up *u, qir_node **np, int step)
{
	static const char *const attrs[] = { "broadcast", NULL };

	(void)step;
	if (!u->dry)
		remove_attrs(*np, attrs);
	return 0;
}

static int r_drop_is_test(struct ir_up *u, qir_node **np, int step)
{
	static const char *const attrs[] = { "is_test", NULL };

	(void)step;
	if (!u->dry)
		remove_attrs(*np, attrs);
	return 0;
}

static int r_bn9(struct ir_up *u, qir_node **np, int step)
{
	static const char *const attrs[] = { "spatial", NULL };
	qir_node *n = *np;

	if (qir_node_attr_int(n, "spatial", 1) != 1)
		return ir_up_fail(u, n, step, "spatial=0 (per-activation "
				    "statistics) has no equivalent");
	if (!u->dry)
		remove_attrs(n, attrs);
	return 0;
}

static int r_bn14(struct ir_up *u, qir_node **np, int step)
{
	qir_node *n = *np;

	(void)step;
	if (n->noutputs <= 1)
		return 0;
	/* Inference form: only Y; the statistics outputs must be unused. */
	return ir_up_rebuild(u, np, n->op_type, n->inputs, n->ninputs, 1,
			       NULL);
}

static int r_cast6(struct ir_up *u, qir_node **np, int step)
{
	qir_node *n = *np;
	const qir_attr *to = qir_node_attr(n, "to");
	int dt;

	if (!to)
		return ir_up_fail(u, n, step, "no 'to' attribute");
	if (to->type != QIR_ATTR_STRING)
		return 0;
	dt = qir_dtype_from_name(to->s);
	if (dt <= 0)
		return ir_up_fail(u, n, step,
				    "unknown type name '%s'", to->s);
	if (!u->dry)
		qir_node_set_attr_int(n, "to", dt);
	return 0;
}

static int r_clip11(struct ir_up *u, qir_node **np, int step)
{
	qir_node *n = *np;
	const qir_attr *mn = qir_node_attr(n, "min");
	const qir_attr *mx = qir_node_attr(n, "max");
	int dt = n->ninputs ? ir_up_infer_dtype(n->inputs[0]) : 0;
	qir_value *vmin = NULL, *vmax = NULL;
	static const char *const attrs[] = { "min", "max", NULL };

	if ((mn || mx) && !dt)
		return ir_up_fail(u, n, step, "element type of input '%s' "
				    "unknown (needed for the min/max inputs)",
				    n->inputs[0] ? n->inputs[0]->name : "");
	if (u->dry || (!mn && !mx))
		return 0;
	if (mn && !(vmin = ir_up_const_scalar(u, G(n), "clip_min", dt,
						mn->f)))
		return -1;
	if (mx && !(vmax = ir_up_const_scalar(u, G(n), "clip_max", dt,
						mx->f)))
		return -1;
	remove_attrs(n, attrs);
	qir_node_add_input(n, vmin);
	if (vmax)
		qir_node_add_input(n, vmax);
	return 0;
}

static int r_concat4(struct ir_up *u, qir_node **np, int step)
{
	(void)step;
	/* Concat-1 defaulted to axis 1; from 4 on the axis is required. */
	if (!u->dry && !qir_node_attr(*np, "axis"))
		qir_node_set_attr_int(*np, "axis", 1);
	return 0;
}

static int r_dropout10(struct ir_up *u, qir_node **np, int step)
{
	qir_node *n = *np;
	qir_value *mask = n->noutputs > 1 ? n->outputs[1] : NULL;

	if (mask && (mask->nuses || mask->is_output))
		return ir_up_fail(u, n, step,
				    "mask '%s' is used and its type "
				    "changes to BOOL", mask->name);
	return 0;
}

static int r_dropout12(struct ir_up *u, qir_node **np, int step)
{
	static const char *const attrs[] = { "ratio", NULL };
	qir_node *n = *np;
	const qir_attr *ratio = qir_node_attr(n, "ratio");
	qir_value *v;

	(void)step;
	if (u->dry || !ratio)
		return 0;
	v = ir_up_const_scalar(u, G(n), "dropout_ratio", QIR_FLOAT, ratio->f);
	if (!v)
		return -1;
	remove_attrs(n, attrs);
	qir_node_add_input(n, v);
	return 0;
}

static int r_lppool2(struct ir_up *u, qir_node **np, int step)
{
	qir_node *n = *np;
	const qir_attr *p = qir_node_attr(n, "p");

	if (!p || p->type != QIR_ATTR_FLOAT)
		return 0;
	if (p->f != floorf(p->f) || p->f < 1)
		return ir_up_fail(u, n, step,
				    "p=%g is not a positive integer",
				    (double)p->f);
	if (!u->dry)
		qir_node_set_attr_int(n, "p", (int64_t)p->f);
	return 0;
}

static int r_rnn7(struct ir_up *u, qir_node **np, int step)
{
	static const char *const attrs[] = { "output_sequence", NULL };
	qir_node *n = *np;
	const qir_attr *os = qir_node_attr(n, "output_sequence");

	if (os && !os->i && n->noutputs && n->outputs[0] &&
	    (n->outputs[0]->nuses || n->outputs[0]->is_output))
		return ir_up_fail(u, n, step, "output_sequence=0 with the Y "
				    "output used");
	if (!u->dry)
		remove_attrs(n, attrs);
	return 0;
}

static int r_pad2(struct ir_up *u, qir_node **np, int step)
{
	qir_node *n = *np;
	const qir_attr *p = ir_up_ints_attr(n, "paddings");
	static const char *const attrs[] = { "paddings", NULL };

	(void)step;
	if (u->dry || !p)
		return 0;
	qir_node_set_attr_ints(n, "pads", p->ints, p->n);
	remove_attrs(n, attrs);
	return 0;
}

static int r_pad11(struct ir_up *u, qir_node **np, int step)
{
	static const char *const attrs[] = { "pads", "value", NULL };
	qir_node *n = *np;
	/* A dry run has not renamed Pad-1's paddings (Pad-2) yet. */
	const qir_attr *pads = ir_up_ints_attr(n, u->dry &&
			!qir_node_attr(n, "pads") ? "paddings" : "pads");
	float value = qir_node_attr_float(n, "value", 0.0f);
	int dt = n->ninputs ? ir_up_infer_dtype(n->inputs[0]) : 0;
	qir_value *vp, *vv = NULL;

	if (!pads)
		return ir_up_fail(u, n, step, "no 'pads' attribute");
	if (value != 0.0f && !dt)
		return ir_up_fail(u, n, step, "element type of input '%s' "
				    "unknown (needed for the pad value)",
				    n->inputs[0] ? n->inputs[0]->name : "");
	if (u->dry)
		return 0;
	vp = ir_up_const_i64(u, G(n), "pads", pads->ints, pads->n, 0);
	if (!vp)
		return -1;
	if (value != 0.0f &&
	    !(vv = ir_up_const_scalar(u, G(n), "pad_value", dt, value)))
		return -1;
	remove_attrs(n, attrs);
	qir_node_add_input(n, vp);
	if (vv)
		qir_node_add_input(n, vv);
	return 0;
}

/* PRelu-6 applied a 1-D slope per channel (axis 1); from 7 the slope
 * broadcasts numpy-style (trailing-aligned). */
static int r_prelu7(struct ir_up *u, qir_node **np, int step)
{
	qir_node *n = *np;
	qir_value *x = n->inputs[0], *s = n->ninputs > 1 ? n->inputs[1] : 0;
	qir_tensor *t = s ? qir_value_const(s) : NULL, *nt;
	int64_t dims[8];
	qir_value *nv;
	int i;

	if (!s)
		return ir_up_fail(u, n, step, "no slope input");
	if (t && qir_tensor_numel(t) == 1)
		return 0;
	if (s->rank >= 0 && s->rank != 1)
		return 0;	/* same-shape slope: unchanged meaning */
	if (!x || x->rank < 0 || x->rank > 8)
		return ir_up_fail(u, n, step, "input rank unknown");
	if (x->rank <= 2)
		return 0;	/* [C] already aligns with axis 1 */
	if (!t)
		return ir_up_fail(u, n, step,
				    "per-channel slope '%s' is not a "
				    "constant", s->name);
	if (u->dry)
		return 0;
	dims[0] = t->rank ? t->dims[0] : 1;
	for (i = 1; i < x->rank - 1; i++)
		dims[i] = 1;
	nt = qir_tensor_new(s->name, t->dtype, x->rank - 1, dims, NULL);
	if (!nt || !qir_tensor_data(t, NULL))
		return ir_up_fail(u, n, step, "cannot reshape slope '%s'",
				    s->name);
	memcpy(qir_tensor_mutable_data(nt, NULL), qir_tensor_data(t, NULL),
	       t->nbytes);
	nv = qir_graph_add_initializer(G(n), nt);
	if (!nv)
		return ir_up_fail(u, n, step,
				    "cannot add the reshaped slope");
	qir_node_set_input(n, 1, nv);
	ir_up_drop_if_unused(s);
	return 0;
}

static int r_reshape5(struct ir_up *u, qir_node **np, int step)
{
	static const char *const attrs[] = { "shape", NULL };
	qir_node *n = *np;
	const qir_attr *shape = ir_up_ints_attr(n, "shape");
	qir_value *v;

	if (!shape)
		return ir_up_fail(u, n, step, "no 'shape' attribute");
	if (u->dry)
		return 0;
	v = ir_up_const_i64(u, G(n), "shape", shape->ints, shape->n, 0);
	if (!v)
		return -1;
	remove_attrs(n, attrs);
	qir_node_add_input(n, v);
	return 0;
}

/* A dry run leaves every node as it was: an Upsample-7 node reaching
 * this step still holds the scales attribute Upsample-9 makes an
 * input. */
static int scales_pending(const struct ir_up *u, const qir_node *n)
{
	return u->dry && n->ninputs == 1 && !strcmp(n->op_type, "Upsample") &&
	       qir_node_attr(n, "scales");
}

/* Resize-10 (and Upsample) sampled at x_in = x_out / scale: Resize-11's
 * "asymmetric" transform; nearest took the floor. */
static int r_resize11(struct ir_up *u, qir_node **np, int step)
{
	qir_node *n = *np;
	const char *mode = qir_node_attr_string(n, "mode", "nearest");
	int64_t zero = 0;
	qir_error err = { 0 };
	qir_tensor *t;
	qir_value *roi, *scales;

	if ((n->ninputs != 2 || !n->inputs[1]) && !scales_pending(u, n))
		return ir_up_fail(u, n, step, "expected inputs X and scales");
	if (strcmp(mode, "nearest") && strcmp(mode, "linear"))
		return ir_up_fail(u, n, step, "mode '%s'", mode);
	if (u->dry)
		return 0;
	t = qir_tensor_new("roi", QIR_FLOAT, 1, &zero, &err);
	if (!t || !(roi = qir_graph_add_initializer(G(n), t)))
		return ir_up_fail(u, n, step, "cannot add roi: %s", err.msg);
	scales = n->inputs[1];
	qir_node_set_input(n, 1, roi);
	qir_node_add_input(n, scales);
	qir_node_set_attr_string(n, "coordinate_transformation_mode",
				 "asymmetric");
	if (!strcmp(mode, "nearest"))
		qir_node_set_attr_string(n, "nearest_mode", "floor");
	return 0;
}

static int r_resize18(struct ir_up *u, qir_node **np, int step)
{
	qir_node *n = *np;
	const char *ct = qir_node_attr_string(n,
			"coordinate_transformation_mode", "half_pixel");

	(void)u;
	if (!strcmp(ct, "tf_half_pixel_for_nn"))
		return ir_up_fail(u, n, step, "unsupported: "
				    "coordinate_transformation_mode '%s' was "
				    "removed", ct);
	return 0;
}

static int r_roialign16(struct ir_up *u, qir_node **np, int step)
{
	(void)step;
	/* RoiAlign-10 did not shift by half a pixel; 16's default does. */
	if (!u->dry && !qir_node_attr(*np, "coordinate_transformation_mode"))
		qir_node_set_attr_string(*np, "coordinate_transformation_mode",
					 "output_half_pixel");
	return 0;
}

static int r_rename(struct ir_up *u, qir_node **np, int step,
		    const char *op)
{
	qir_node *n = *np;

	(void)step;
	return ir_up_rebuild(u, np, op, n->inputs, n->ninputs,
			       n->noutputs, NULL);
}

static int r_scatter11(struct ir_up *u, qir_node **np, int step)
{
	return r_rename(u, np, step, "ScatterElements");
}

static int r_upsample10(struct ir_up *u, qir_node **np, int step)
{
	return r_rename(u, np, step, "Resize");
}

static int r_upsample9(struct ir_up *u, qir_node **np, int step)
{
	static const char *const attrs[] = { "scales", NULL };
	qir_node *n = *np;
	const qir_attr *sc = qir_node_attr(n, "scales");
	int64_t dim;
	qir_tensor *t;
	qir_value *v;

	if (!sc || sc->type != QIR_ATTR_FLOATS)
		return ir_up_fail(u, n, step, "no 'scales' attribute");
	if (u->dry)
		return 0;
	dim = (int64_t)sc->n;
	t = qir_tensor_new("scales", QIR_FLOAT, 1, &dim, NULL);
	if (!t)
		return ir_up_fail(u, n, step, "out of memory");
	memcpy(qir_tensor_mutable_data(t, NULL), sc->floats,
	       sc->n * sizeof(float));
	if (!(v = qir_graph_add_initializer(G(n), t)))
		return ir_up_fail(u, n, step, "cannot add scales");
	remove_attrs(n, attrs);
	qir_node_add_input(n, v);
	return 0;
}

/* attr -> trailing int64 input (Slice-10, Squeeze/Unsqueeze-13,
 * ReduceSum-13, Reduce*-18, Split-13). */
static int attr_to_input(struct ir_up *u, qir_node *n, const char *attr,
			 int scalar_one)
{
	const char *const names[] = { attr, NULL };
	const qir_attr *a = ir_up_ints_attr(n, attr);
	qir_value *v;

	if (!a)
		return 0;
	v = ir_up_const_i64(u, G(n), attr, a->ints, scalar_one ? 1 : a->n, 0);
	if (!v)
		return -1;
	remove_attrs(n, names);
	return qir_node_add_input(n, v);
}

static int r_axes13(struct ir_up *u, qir_node **np, int step)
{
	qir_node *n = *np;
	const qir_attr *axes = qir_node_attr(n, "axes");

	if (axes && axes->type != QIR_ATTR_INTS)
		return ir_up_fail(u, n, step, "'axes' is not a list of ints");
	if (!axes && !strcmp(n->op_type, "Unsqueeze"))
		return ir_up_fail(u, n, step, "no 'axes' attribute");
	if (u->dry || !axes)
		return 0;
	if (n->ninputs != 1)
		return ir_up_fail(u, n, step, "unexpected extra inputs");
	return attr_to_input(u, n, "axes", 0);
}

static int r_split2(struct ir_up *u, qir_node **np, int step)
{
	qir_node *n = *np;
	qir_value *sv = n->ninputs > 1 ? n->inputs[1] : NULL;
	qir_tensor *t = sv ? qir_value_const(sv) : NULL;
	int64_t *sp;
	uint64_t i, cnt;

	if (!sv)
		return 0;
	if (!t)
		return ir_up_fail(u, n, step, "split sizes '%s' not constant",
				    sv->name);
	if (u->dry)
		return ir_up_rebuild(u, np, n->op_type, n->inputs, 1,
				       n->noutputs, NULL);
	cnt = qir_tensor_numel(t);
	sp = calloc(cnt ? cnt : 1, sizeof(*sp));
	if (!sp)
		return ir_up_fail(u, n, step, "out of memory");
	for (i = 0; i < cnt; i++)
		qir_tensor_get_i64(t, i, &sp[i], NULL);
	if (ir_up_rebuild(u, np, n->op_type, n->inputs, 1, n->noutputs,
			    NULL) < 0) {
		free(sp);
		return -1;
	}
	qir_node_set_attr_ints(*np, "split", sp, cnt);
	free(sp);
	ir_up_drop_if_unused(sv);
	return 0;
}

static int r_split13(struct ir_up *u, qir_node **np, int step)
{
	(void)step;
	if (u->dry)
		return 0;
	return attr_to_input(u, *np, "split", 0);
}

static int r_split18(struct ir_up *u, qir_node **np, int step)
{
	qir_node *n = *np;

	(void)step;
	/* Split-18 needs either the sizes or num_outputs. */
	if (!u->dry && (n->ninputs < 2 || !n->inputs[1]) &&
	    !qir_node_attr(n, "num_outputs"))
		qir_node_set_attr_int(n, "num_outputs",
				      (int64_t)n->noutputs);
	return 0;
}

static int r_slice10(struct ir_up *u, qir_node **np, int step)
{
	static const char *const attrs[] = { "starts", "ends", "axes", NULL };
	qir_node *n = *np;
	const qir_attr *st = ir_up_ints_attr(n, "starts");
	const qir_attr *en = ir_up_ints_attr(n, "ends");
	const qir_attr *ax = ir_up_ints_attr(n, "axes");
	qir_value *vs, *ve, *va = NULL;

	if (!st || !en)
		return ir_up_fail(u, n, step,
				    "no 'starts'/'ends' attributes");
	if (u->dry)
		return 0;
	vs = ir_up_const_i64(u, G(n), "starts", st->ints, st->n, 0);
	ve = ir_up_const_i64(u, G(n), "ends", en->ints, en->n, 0);
	if (ax)
		va = ir_up_const_i64(u, G(n), "axes", ax->ints, ax->n, 0);
	if (!vs || !ve || (ax && !va))
		return -1;
	remove_attrs(n, attrs);
	qir_node_add_input(n, vs);
	qir_node_add_input(n, ve);
	if (va)
		qir_node_add_input(n, va);
	return 0;
}

static int r_topk10(struct ir_up *u, qir_node **np, int step)
{
	static const char *const attrs[] = { "k", NULL };
	qir_node *n = *np;
	const qir_attr *k = qir_node_attr(n, "k");
	qir_value *v;

	if (!k)
		return ir_up_fail(u, n, step, "no 'k' attribute");
	if (u->dry)
		return 0;
	v = ir_up_const_i64(u, G(n), "k", &k->i, 1, 0);
	if (!v)
		return -1;
	remove_attrs(n, attrs);
	return qir_node_add_input(n, v);
}

/* Softmax, LogSoftmax, Hardmax before 13 coerced the input to 2-D at
 * `axis` (default 1); from 13 they act along one axis (default -1).
 * Same meaning when axis is the last one; otherwise
 * Flatten(axis) -> op(axis=1) -> Reshape(Shape(x)). */
static int r_softmax13(struct ir_up *u, qir_node **np, int step)
{
	qir_node *n = *np, *fl, *op, *sh, *rs;
	qir_value *x = n->inputs[0];
	int64_t axis = qir_node_attr_int(n, "axis", 1);
	qir_value *vs, *vf, *vo, *vr;

	(void)step;
	if (axis == -1 || (x->rank >= 0 && axis == x->rank - 1)) {
		if (!u->dry)
			qir_node_set_attr_int(n, "axis", axis);
		return 0;
	}
	if (u->dry)
		return 0;
	sh = qir_node_new(G(n), "Shape", "", "softmax_shape");
	fl = qir_node_new(G(n), "Flatten", "", "softmax_flatten");
	op = qir_node_new(G(n), n->op_type, "", n->name);
	rs = qir_node_new(G(n), "Reshape", "", "softmax_reshape");
	if (!sh || !fl || !op || !rs)
		return ir_up_fail(u, n, step, "out of memory");
	qir_node_move_before(sh, n);
	qir_node_move_before(fl, n);
	qir_node_move_before(op, n);
	qir_node_move_before(rs, n);
	qir_node_add_input(sh, x);
	vs = qir_node_add_output(sh, NULL, "softmax_shape");
	qir_node_add_input(fl, x);
	qir_node_set_attr_int(fl, "axis", axis);
	vf = qir_node_add_output(fl, NULL, "softmax_2d");
	qir_node_add_input(op, vf);
	qir_node_set_attr_int(op, "axis", 1);
	vo = qir_node_add_output(op, NULL, "softmax_out2d");
	qir_node_add_input(rs, vo);
	qir_node_add_input(rs, vs);
	vr = qir_node_add_output(rs, NULL, "softmax_out");
	if (!vs || !vf || !vo || !vr)
		return ir_up_fail(u, n, step, "out of memory");
	if (ir_up_replace(u, n, &vr, 1, op) < 0)
		return -1;
	*np = op;
	return 0;
}

static int r_gridsample20(struct ir_up *u, qir_node **np, int step)
{
	qir_node *n = *np;
	const char *mode = qir_node_attr_string(n, "mode", "bilinear");

	(void)step;
	if (u->dry)
		return 0;
	if (!strcmp(mode, "bilinear"))
		qir_node_set_attr_string(n, "mode", "linear");
	else if (!strcmp(mode, "bicubic"))
		qir_node_set_attr_string(n, "mode", "cubic");
	return 0;
}

static int r_dft20(struct ir_up *u, qir_node **np, int step)
{
	static const char *const attrs[] = { "axis", NULL };
	qir_node *n = *np;
	int64_t axis = qir_node_attr_int(n, "axis", 1);
	qir_value *v;

	(void)step;
	if (u->dry)
		return 0;
	v = ir_up_const_i64(u, G(n), "dft_axis", &axis, 1, 1);
	if (!v)
		return -1;
	remove_attrs(n, attrs);
	if (n->ninputs < 2)
		qir_node_add_input(n, NULL);
	return qir_node_add_input(n, v);
}

#define R(op, v, fn, what) { op, v, fn, NULL, what }
#define RN(op, v, fn, to, what) { op, v, fn, to, what }
#define BC(op) R(op, 7, r_broadcast7, "drop legacy broadcast/axis " \
		 "(fails unless trailing-aligned)")
#define AX13(op) R(op, 13, r_axes13, "axes attribute -> input")
#define AX18(op) R(op, 18, r_axes13, "axes attribute -> input")
#define SM13(op) R(op, 13, r_softmax13, "2-D coercion -> single axis: " \
		   "axis kept when last, else Flatten/op/Reshape inserted")
#define RNN7(op) R(op, 7, r_rnn7, "drop output_sequence")

static const struct ir_rule rules[] = {
	BC("Add"), BC("Sub"), BC("Mul"), BC("Div"), BC("Pow"),
	BC("And"), BC("Or"), BC("Xor"), BC("Equal"), BC("Greater"),
	BC("Less"),
	R("Gemm", 7, r_gemm7, "drop broadcast"),
	R("BatchNormalization", 7, r_drop_is_test, "drop is_test"),
	R("BatchNormalization", 9, r_bn9, "drop spatial (must be 1)"),
	R("BatchNormalization", 14, r_bn14,
	  "keep only Y (statistics outputs must be unused)"),
	R("Cast", 6, r_cast6, "'to' type name -> type number"),
	R("Clip", 11, r_clip11, "min/max attributes -> inputs"),
	R("Concat", 4, r_concat4, "explicit axis=1 (old default)"),
	R("Dropout", 7, r_drop_is_test, "drop is_test"),
	R("Dropout", 10, r_dropout10, "mask becomes BOOL (must be unused)"),
	R("Dropout", 12, r_dropout12, "ratio attribute -> input"),
	R("GlobalLpPool", 2, r_lppool2, "p float -> int"),
	R("LpPool", 2, r_lppool2, "p float -> int"),
	RNN7("GRU"), RNN7("LSTM"), RNN7("RNN"),
	R("Pad", 2, r_pad2, "paddings -> pads"),
	R("Pad", 11, r_pad11, "pads/value attributes -> inputs"),
	R("PRelu", 7, r_prelu7, "per-channel 1-D slope reshaped to "
	  "[C,1,...]"),
	R("Reshape", 5, r_reshape5, "shape attribute -> input"),
	R("Resize", 11, r_resize11, "insert empty roi; "
	  "coordinate_transformation_mode=asymmetric, nearest_mode=floor"),
	R("Resize", 18, r_resize18, "fails on tf_half_pixel_for_nn"),
	R("RoiAlign", 16, r_roialign16,
	  "coordinate_transformation_mode=output_half_pixel"),
	RN("Scatter", 11, r_scatter11, "ScatterElements",
	   "becomes ScatterElements"),
	R("Slice", 10, r_slice10, "starts/ends/axes attributes -> inputs"),
	SM13("Softmax"), SM13("LogSoftmax"), SM13("Hardmax"),
	R("Split", 2, r_split2, "split input -> attribute"),
	R("Split", 13, r_split13, "split attribute -> input"),
	R("Split", 18, r_split18, "num_outputs set when sizes are absent"),
	AX13("Squeeze"), AX13("Unsqueeze"), AX13("ReduceSum"),
	AX18("ReduceL1"), AX18("ReduceL2"), AX18("ReduceLogSum"),
	AX18("ReduceLogSumExp"), AX18("ReduceMax"), AX18("ReduceMean"),
	AX18("ReduceMin"), AX18("ReduceProd"), AX18("ReduceSumSquare"),
	R("TopK", 10, r_topk10, "k attribute -> input"),
	R("Upsample", 9, r_upsample9, "scales attribute -> input"),
	RN("Upsample", 10, r_upsample10, "Resize", "becomes Resize-10"),
	R("GridSample", 20, r_gridsample20,
	  "mode bilinear/bicubic -> linear/cubic"),
	R("DFT", 20, r_dft20, "axis attribute -> input"),
	/* Not upgradable: the pass fails naming the node. */
	R("Upsample", 7, NULL, "width_scale/height_scale form unsupported"),
	R("Scan", 9, NULL, "Scan-8 batch axis unsupported"),
	R("Tile", 6, NULL, "Tile-1 tiles/axis form unsupported"),
	R("GroupNormalization", 21, NULL,
	  "per-group scale/bias -> per-channel unsupported"),
	/* ONNX 1.19 changed Attention for in-place KV-cache updates (a new
	 * nonpad_kv_seqlen input) without saying whether an Attention-23
	 * node keeps its meaning; the onnx.ai docs list an Attention 24/25
	 * difference the 1.20 notes do not describe. Refused until both
	 * are established. */
	R("Attention", 24, NULL, "change at opset 24 (KV-cache update "
	  "semantics) not verified"),
	R("Attention", 25, NULL, "change at opset 25 not verified"),
	{ NULL, 0, NULL, NULL, NULL }
};

const struct ir_rule *ir_rule_find(const char *op, int step)
{
	const struct ir_rule *r;

	for (r = rules; r->op; r++)
		if (r->step == step && !strcmp(r->op, op))
			return r;
	return NULL;
}
