/*
 * passes/mxfp8/act.c - dynamic MXFP8 activations: every block of 32
 * along the last axis gets its own E8M0 scale at run time, so nothing
 * is calibrated.
 *
 * real: trt::TRT_MXFP8DynamicQuantize(x; axis=-1, block_size=32,
 *       output_dtype=17) -> (x_f8 FLOAT8E4M3FN, x_scale UINT8) ->
 *       trt::TRT_MXFP8DequantizeLinear(axis=-1, block_size=32,
 *       output_dtype=x's type), what ModelOpt exports (ONNX has no
 *       dynamic block quantizer, so format = onnx writes this too);
 * fake: the same values in standard ops ONNX Runtime 1.30 runs, bit
 *       for bit qk_mxfp8_quantize + qk_mxfp8_dequantize (FP32 inside):
 *   xb  = Reshape(Cast(x, FLOAT), [-1, K/32, 32])
 *   m   = ReduceMax(Where(IsNaN(xb), 0, Abs(xb)), axes=-1)    NaN ignored
 *   i   = Cast(Clip(Ceil(Log(m) / ln 2 - log2 448), -127, 127) + 127)
 *   i  += (m > P[i]) - (m <= P[i - 1])   P[i] = 448 * 2^(i-127): the
 *         float estimate is off by at most one near a power of two, the
 *         two exact comparisons put it right (P[-1] reads -1: never)
 *   y   = Cast(Cast(xb * 2^(127-i), FLOAT8E4M3FN, saturate=1), FLOAT)
 *         * 2^(i-127)          (tables gathered by i: exact powers)
 *   out = Cast(Reshape(y, Shape(x)), x's type)
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mxfp8.h"

#define MX_TABLE 256

qir_node *mx_node(qir_graph *g, const char *op, const char *domain,
		  const char *hint, qir_value *a, qir_value *b)
{
	qir_node *n = qir_node_new(g, op, domain, hint);

	if (!n || qir_node_add_input(n, a) || (b && qir_node_add_input(n, b)))
		return NULL;
	return n;
}

qir_value *mx_out(qir_node *n, const char *hint, int dtype,
		  const qir_value *shape_from)
{
	qir_value *o = n ? qir_node_add_output(n, NULL, hint) : NULL;

	if (!o)
		return NULL;
	if (shape_from && qir_value_copy_shape(o, shape_from, dtype, NULL))
		return NULL;
	if (!shape_from && dtype != QIR_UNDEFINED &&
	    qir_value_set_type(o, dtype, -1, NULL, NULL))
		return NULL;
	return o;
}

static qir_value *add_const(qir_graph *g, const char *name, int dtype,
			    int rank, const int64_t *dims, const void *v)
{
	qir_error err = { 0 };
	qir_tensor *t = qir_tensor_new(name, dtype, rank, dims, &err);
	void *d = t ? qir_tensor_mutable_data(t, &err) : NULL;

	if (t && t->nbytes && !d) {
		qir_tensor_free(t);
		return NULL;
	}
	if (t && t->nbytes)
		memcpy(d, v, t->nbytes);
	return ps_add_initializer(g, t);
}

qir_value *mx_const_i64(qir_graph *g, const char *name, int rank,
			const int64_t *dims, const int64_t *v)
{
	return add_const(g, name, QIR_INT64, rank, dims, v);
}

qir_value *mx_const_f32(qir_graph *g, const char *name, int rank,
			const int64_t *dims, const float *v)
{
	return add_const(g, name, QIR_FLOAT, rank, dims, v);
}

const char *mx_act_check(qir_value *x, int64_t k, char *buf, size_t n)
{
	int dt = qir_value_elem_type(x);

	if (!mx_is_float(dt))
		return dt == QIR_UNDEFINED ? "element type unknown (run "
		       "infer-shapes first)" : "not FLOAT, FLOAT16 or BFLOAT16";
	/* TensorRT takes 2-D or 3-D inputs; an unknown rank is left to
	 * its builder (torch's Reshape chains defeat static inference). */
	if (x->rank >= 0 && x->rank != 2 && x->rank != 3) {
		snprintf(buf, n, "rank %d (TensorRT's dynamic quantization "
			 "takes 2-D or 3-D inputs)", x->rank);
		return buf;
	}
	if (x->rank > 0 && x->dims[x->rank - 1].value >= 0 &&
	    k >= 0 && x->dims[x->rank - 1].value != k) {
		snprintf(buf, n, "last axis %lld, the weight's K %lld",
			 (long long)x->dims[x->rank - 1].value, (long long)k);
		return buf;
	}
	if (k < 0 && x->rank > 0)
		k = x->dims[x->rank - 1].value;
	if (k <= 0) {
		snprintf(buf, n, "last axis (K) not a known constant");
		return buf;
	}
	if (k % MX_BLOCK) {
		snprintf(buf, n, "K = %lld, not a multiple of 32", (long long)k);
		return buf;
	}
	return NULL;
}

/* 2^p as float, p in [-149, 127], from its bits (exact). */
static float pow2f(int p)
{
	uint32_t u = p >= -126 ? (uint32_t)(p + 127) << 23 : 1u << (p + 149);
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/* The three tables of the fake chain, shared by all chains of g. */
struct tables {
	qir_value *p, *r, *s;
};

static int tables(qir_graph *g, struct tables *tb)
{
	static const int64_t dims[1] = { MX_TABLE };
	float p[MX_TABLE], r[MX_TABLE], s[MX_TABLE];
	int i;

	tb->p = qir_graph_find_value(g, "mxfp8_fake_bound");
	tb->r = qir_graph_find_value(g, "mxfp8_fake_inv_scale");
	tb->s = qir_graph_find_value(g, "mxfp8_fake_scale");
	if (tb->p && tb->r && tb->s && tb->p->init && tb->r->init &&
	    tb->s->init)
		return 0;
	for (i = 0; i < 255; i++) {
		/* 448 * 2^(i-127) = 7 * 2^(i-121); past FLT_MAX from
		 * i = 247 on: FLT_MAX there (no finite amax is above it,
		 * and inf must not step down from 254), inf at 254. */
		p[i] = i >= 247 ? FLT_MAX : 7.0f * pow2f(i - 121);
		r[i] = pow2f(127 - i);
		s[i] = pow2f(i - 127);
	}
	p[254] = INFINITY;
	p[255] = -1.0f;	/* read as P[i - 1] for i = 0 */
	r[255] = s[255] = 0.0f;
	tb->p = mx_const_f32(g, "mxfp8_fake_bound", 1, dims, p);
	tb->r = mx_const_f32(g, "mxfp8_fake_inv_scale", 1, dims, r);
	tb->s = mx_const_f32(g, "mxfp8_fake_scale", 1, dims, s);
	return tb->p && tb->r && tb->s ? 0 : -1;
}

/* One-output node op(a, b) in g, output untyped unless dtype. */
static qir_value *op2(qir_graph *g, const char *op, const char *hint,
		      qir_value *a, qir_value *b)
{
	return a ? mx_out(mx_node(g, op, NULL, hint, a, b), hint,
			  QIR_UNDEFINED, NULL) : NULL;
}

static qir_value *cast(qir_graph *g, const char *hint, qir_value *a, int to,
		       int sat)
{
	qir_node *n = a ? mx_node(g, "Cast", NULL, hint, a, NULL) : NULL;

	if (!n || qir_node_set_attr_int(n, "to", to) ||
	    (sat && qir_node_set_attr_int(n, "saturate", 1)))
		return NULL;
	return mx_out(n, hint, to, NULL);
}

static qir_value *f32(qir_graph *g, const char *hint, float v)
{
	return mx_const_f32(g, hint, 0, NULL, &v);
}

static qir_value *i64(qir_graph *g, const char *hint, int64_t v)
{
	return mx_const_i64(g, hint, 0, NULL, &v);
}

/* The block index i of m (see the header comment). */
static qir_value *scale_index(qir_graph *g, qir_value *m,
			      const struct tables *tb)
{
	qir_value *e, *i, *up, *dn, *clip_lo, *clip_hi;
	qir_node *c;

	e = op2(g, "Log", "mx_log", m, NULL);
	e = op2(g, "Mul", "mx_log2", e, f32(g, "mx_inv_ln2",
					     1.44269504088896341f));
	e = op2(g, "Sub", "mx_e", e, f32(g, "mx_log2_448",
					  8.80735492205760410f));
	e = op2(g, "Ceil", "mx_ceil", e, NULL);
	clip_lo = f32(g, "mx_emin", -127.0f);
	clip_hi = f32(g, "mx_emax", 127.0f);
	c = e && clip_lo && clip_hi ? mx_node(g, "Clip", NULL, "mx_clip", e,
					      clip_lo) : NULL;
	if (!c || qir_node_add_input(c, clip_hi))
		return NULL;
	e = mx_out(c, "mx_clip", QIR_UNDEFINED, NULL);
	e = op2(g, "Add", "mx_ebias", e, f32(g, "mx_bias", 127.0f));
	i = cast(g, "mx_i0", e, QIR_INT64, 0);
	up = op2(g, "Greater", "mx_up", m, op2(g, "Gather", "mx_bound", tb->p,
					       i));
	up = cast(g, "mx_up_i", up, QIR_INT64, 0);
	dn = op2(g, "Sub", "mx_im1", i, i64(g, "mx_one", 1));
	dn = op2(g, "LessOrEqual", "mx_dn", m,
		 op2(g, "Gather", "mx_bound_lo", tb->p, dn));
	dn = cast(g, "mx_dn_i", dn, QIR_INT64, 0);
	i = op2(g, "Add", "mx_i1", i, up);
	return op2(g, "Sub", "mx_i", i, dn);
}

qir_value *mx_fake_chain(struct mx_cfg *cfg, qir_value *x, int64_t k,
			 int out_dtype)
{
	qir_graph *g = x->graph;
	struct tables tb;
	int xt = qir_value_elem_type(x);
	int64_t shape[3] = { -1, k / MX_BLOCK, MX_BLOCK }, one = 1, axes = -1;
	qir_value *xf, *shp, *xb, *a, *m, *i, *y, *z;
	qir_node *rm;

	if (tables(g, &tb))
		goto nomem;
	xf = xt == QIR_FLOAT ? x : cast(g, "mx_x32", x, QIR_FLOAT, 0);
	shp = op2(g, "Shape", "mx_shape", xf, NULL);
	one = 3;
	xb = op2(g, "Reshape", "mx_blocks", xf,
		 mx_const_i64(g, "mx_block_shape", 1, &one, shape));
	a = op2(g, "Where", "mx_abs0", op2(g, "IsNaN", "mx_nan", xb, NULL),
		f32(g, "mx_zero", 0.0f));
	one = 1;
	if (!a || qir_node_add_input(a->producer,
				     op2(g, "Abs", "mx_abs", xb, NULL)))
		goto nomem;
	rm = mx_node(g, "ReduceMax", NULL, "mx_amax", a,
		     mx_const_i64(g, "mx_axes", 1, &one, &axes));
	if (!rm || qir_node_set_attr_int(rm, "keepdims", 1))
		goto nomem;
	m = mx_out(rm, "mx_amax", QIR_UNDEFINED, NULL);
	i = m ? scale_index(g, m, &tb) : NULL;
	y = op2(g, "Mul", "mx_scaled", xb, op2(g, "Gather", "mx_inv",
					       tb.r, i));
	y = cast(g, "mx_f8", y, QIR_FLOAT8E4M3FN, 1);
	y = cast(g, "mx_f8_f32", y, QIR_FLOAT, 0);
	y = op2(g, "Mul", "mx_dq", y, op2(g, "Gather", "mx_scale", tb.s, i));
	y = op2(g, "Reshape", "mx_y", y, shp);
	z = out_dtype == QIR_FLOAT ? y : cast(g, "mx_out", y, out_dtype, 0);
	if (!z || qir_value_copy_shape(z, x, out_dtype, NULL))
		goto nomem;
	return z;
nomem:
	qopt_error(cfg->ctx, "activation '%s': out of memory", x->name);
	return NULL;
}

/* The real chain: TensorRT's dynamic quantizer and its dequantizer. */
static qir_value *real_chain(struct mx_cfg *cfg, qir_value *x, int out_dtype)
{
	qir_graph *g = x->graph;
	char h[4][256];
	qir_node *q, *d;
	qir_value *x8, *sc, *y;

	/* ModelOpt's names: x_f8, x_scale, x_dq */
	snprintf(h[0], sizeof(h[0]), "%s_mxfp8_q", x->name);
	snprintf(h[1], sizeof(h[1]), "%s_f8", x->name);
	snprintf(h[2], sizeof(h[2]), "%s_scale", x->name);
	snprintf(h[3], sizeof(h[3]), "%s_dq", x->name);
	q = mx_node(g, MX_DYNQ, MX_DOMAIN, h[0], x, NULL);
	if (!q || qir_node_set_attr_int(q, "axis", -1) ||
	    qir_node_set_attr_int(q, "block_size", MX_BLOCK) ||
	    qir_node_set_attr_int(q, "output_dtype", QIR_FLOAT8E4M3FN))
		goto nomem;
	x8 = mx_out(q, h[1], QIR_FLOAT8E4M3FN, x);
	sc = x8 ? mx_out(q, h[2], QIR_UINT8, x) : NULL;
	if (!sc)
		goto nomem;
	if (sc->rank > 0 && sc->dims[sc->rank - 1].value > 0)
		sc->dims[sc->rank - 1].value /= MX_BLOCK;
	d = mx_node(g, MX_DQ, MX_DOMAIN, h[3], x8, sc);
	if (!d || qir_node_set_attr_int(d, "axis", -1) ||
	    qir_node_set_attr_int(d, "block_size", MX_BLOCK) ||
	    qir_node_set_attr_int(d, "output_dtype", out_dtype))
		goto nomem;
	y = mx_out(d, h[3], out_dtype, x);
	if (y)
		return y;
nomem:
	qopt_error(cfg->ctx, "activation '%s': out of memory", x->name);
	return NULL;
}

qir_value *mx_activation(struct mx_cfg *cfg, qir_value *x, int64_t k,
			 int out_dtype, const char **why)
{
	qopt_status st;
	qir_value *q;
	size_t i;

	*why = NULL;
	for (i = 0; i < cfg->nacts; i++)
		if (cfg->acts[i].x == x)
			return cfg->acts[i].q;
	st = mx_opset(cfg);
	if (st == QOPT_ESKIPPED) {
		*why = "the opset upgrade it needs did not run";
		return NULL;
	}
	if (st)
		return NULL;
	if (!qopt_may_rewrite(cfg->ctx, "quantize activation '%s' to MXFP8",
			      x->name)) {
		*why = "the rewrite gate said no";
		return NULL;
	}
	if (cfg->nacts == cfg->cap) {
		size_t cap = cfg->cap ? 2 * cfg->cap : 32;
		struct mx_act *a = realloc(cfg->acts, cap * sizeof(*a));

		if (!a) {
			qopt_error(cfg->ctx, "out of memory");
			return NULL;
		}
		cfg->acts = a;
		cfg->cap = cap;
	}
	q = cfg->mode == MX_FAKE ? mx_fake_chain(cfg, x, k, out_dtype) :
				   real_chain(cfg, x, out_dtype);
	if (!q)
		return NULL;
	cfg->acts[cfg->nacts].x = x;
	cfg->acts[cfg->nacts++].q = q;
	return q;
}
