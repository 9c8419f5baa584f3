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

#include "act.h"
#include "util.h"
#include "../support/fail.h"

#define MXFP8_TABLE 256

const char *mxfp8_act_check(qir_value *x, int64_t k, char *buf, size_t n)
{
	int dt = qir_value_elem_type(x);

	if (!mxfp8_is_float(dt))
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
	if (k % MXFP8_BLOCK) {
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

static qir_value *shared(qir_graph *g, const char *name, int dtype, int rank,
			 const int64_t *dims, const void *v, size_t nbytes);

/* The three tables of the fake chain, shared by all chains of g. */
struct tables {
	qir_value *p, *r, *s;
};

static int tables(qir_graph *g, struct tables *tb)
{
	static const int64_t dims[1] = { MXFP8_TABLE };
	float p[MXFP8_TABLE], r[MXFP8_TABLE], s[MXFP8_TABLE];
	int i;

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
	tb->p = shared(g, "mxfp8_fake_bound", QIR_FLOAT, 1, dims, p, sizeof(p));
	tb->r = shared(g, "mxfp8_fake_inv_scale", QIR_FLOAT, 1, dims, r,
		       sizeof(r));
	tb->s = shared(g, "mxfp8_fake_scale", QIR_FLOAT, 1, dims, s, sizeof(s));
	return tb->p && tb->r && tb->s ? 0 : -1;
}

/* One chain: its graph, and the activation's name its nodes and
 * values are named after ("x_mxfp8_amax"). */
struct chain {
	qir_graph *g;
	char base[200];
};

static const char *hint(const struct chain *c, const char *what, char *buf,
			size_t n)
{
	snprintf(buf, n, "%s_mxfp8_%s", c->base, what);
	return buf;
}

/* One-output node op(a, b), output untyped. */
static qir_value *op2(struct chain *c, const char *op, const char *what,
		      qir_value *a, qir_value *b)
{
	char h[256];

	hint(c, what, h, sizeof(h));
	return a ? mxfp8_out(mxfp8_node(c->g, op, NULL, h, a, b), h,
			  QIR_UNDEFINED, NULL) : NULL;
}

static qir_value *cast(struct chain *c, const char *what, qir_value *a,
		       int to, int sat)
{
	char h[256];
	qir_node *n = a ? mxfp8_node(c->g, "Cast", NULL,
				  hint(c, what, h, sizeof(h)), a, NULL) : NULL;

	if (!n || qir_node_set_attr_int(n, "to", to) ||
	    (sat && qir_node_set_attr_int(n, "saturate", 1)))
		return NULL;
	return mxfp8_out(n, h, to, NULL);
}

/* A constant the graph's chains share: reused when an initializer of
 * that name holds the same bytes, else made (named uniquely). */
static qir_value *shared(qir_graph *g, const char *name, int dtype, int rank,
			 const int64_t *dims, const void *v, size_t nbytes)
{
	qir_value *o = qir_graph_find_value(g, name);
	qir_error err = { 0 };
	const void *d;

	if (o && o->graph == g && o->init && o->init->dtype == dtype &&
	    o->init->rank == rank && o->init->nbytes == nbytes &&
	    (d = qir_tensor_data(o->init, &err)) && !memcmp(d, v, nbytes))
		return o;
	return mxfp8_const(g, name, dtype, rank, dims, v);
}

static qir_value *f32(struct chain *c, const char *name, float v)
{
	return shared(c->g, name, QIR_FLOAT, 0, NULL, &v, sizeof(v));
}

static qir_value *i64(struct chain *c, const char *name, int64_t v)
{
	return shared(c->g, name, QIR_INT64, 0, NULL, &v, sizeof(v));
}

/* The block index i of m (see the header comment). */
static qir_value *scale_index(struct chain *g, qir_value *m,
			      const struct tables *tb)
{
	qir_value *e, *i, *up, *dn, *clip_lo, *clip_hi;

	e = op2(g, "Log", "log", m, NULL);
	e = op2(g, "Mul", "log2", e, f32(g, "mxfp8_inv_ln2",
					     1.44269504088896341f));
	e = op2(g, "Sub", "e", e, f32(g, "mxfp8_log2_448",
					  8.80735492205760410f));
	e = op2(g, "Ceil", "ceil", e, NULL);
	clip_lo = f32(g, "mxfp8_emin", -127.0f);
	clip_hi = f32(g, "mxfp8_emax", 127.0f);
	e = op2(g, "Clip", "clip", e, clip_lo);
	if (!e || !clip_hi || qir_node_add_input(e->producer, clip_hi))
		return NULL;
	e = op2(g, "Add", "ebias", e, f32(g, "mxfp8_bias", 127.0f));
	i = cast(g, "i0", e, QIR_INT64, 0);
	up = op2(g, "Greater", "up", m, op2(g, "Gather", "bound", tb->p,
					       i));
	up = cast(g, "up_i", up, QIR_INT64, 0);
	dn = op2(g, "Sub", "im1", i, i64(g, "mxfp8_one", 1));
	dn = op2(g, "LessOrEqual", "dn", m,
		 op2(g, "Gather", "bound_lo", tb->p, dn));
	dn = cast(g, "dn_i", dn, QIR_INT64, 0);
	i = op2(g, "Add", "i1", i, up);
	return op2(g, "Sub", "i", i, dn);
}

qir_value *mxfp8_fake_chain(struct mxfp8_cfg *cfg, qir_value *x, int64_t k,
			 int out_dtype)
{
	struct chain c = { x->graph, { 0 } }, *g = &c;
	struct tables tb;
	int xt = qir_value_elem_type(x);
	int64_t shape[3] = { -1, k / MXFP8_BLOCK, MXFP8_BLOCK }, three = 3, one = 1;
	int64_t axes = -1;
	char name[64];
	qir_value *xf, *shp, *xb, *a, *m, *i, *y, *z;

	snprintf(c.base, sizeof(c.base), "%s", x->name);
	snprintf(name, sizeof(name), "mxfp8_blocks_of_%lld", (long long)k);
	if (tables(c.g, &tb))
		goto nomem;
	xf = xt == QIR_FLOAT ? x : cast(g, "x32", x, QIR_FLOAT, 0);
	shp = op2(g, "Shape", "shape", xf, NULL);
	xb = op2(g, "Reshape", "blocks", xf,
		 shared(c.g, name, QIR_INT64, 1, &three, shape, sizeof(shape)));
	a = op2(g, "Where", "abs0", op2(g, "IsNaN", "nan", xb, NULL),
		f32(g, "mxfp8_zero", 0.0f));
	if (!a || qir_node_add_input(a->producer,
				     op2(g, "Abs", "abs", xb, NULL)))
		goto nomem;
	m = op2(g, "ReduceMax", "amax", a, shared(c.g, "mxfp8_last_axis",
		QIR_INT64, 1, &one, &axes, sizeof(axes)));
	if (!m || qir_node_set_attr_int(m->producer, "keepdims", 1))
		goto nomem;
	i = scale_index(g, m, &tb);
	y = op2(g, "Mul", "scaled", xb, op2(g, "Gather", "inv", tb.r, i));
	y = cast(g, "f8", y, QIR_FLOAT8E4M3FN, 1);
	y = cast(g, "f8_f32", y, QIR_FLOAT, 0);
	y = op2(g, "Mul", "dq", y, op2(g, "Gather", "scale", tb.s, i));
	y = op2(g, "Reshape", "y", y, shp);
	z = out_dtype == QIR_FLOAT ? y : cast(g, "out", y, out_dtype, 0);
	if (!z || qir_value_copy_shape(z, x, out_dtype, NULL))
		goto nomem;
	return z;
nomem:
	ps_fail(cfg->ctx, QOPT_ENOMEM, "activation '%s': out of memory", x->name);
	return NULL;
}

/* The real chain: TensorRT's dynamic quantizer and its dequantizer. */
static qir_value *real_chain(struct mxfp8_cfg *cfg, qir_value *x, int out_dtype)
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
	q = mxfp8_node(g, MXFP8_DYNQ, MXFP8_DOMAIN, h[0], x, NULL);
	if (!q || qir_node_set_attr_int(q, "axis", -1) ||
	    qir_node_set_attr_int(q, "block_size", MXFP8_BLOCK) ||
	    qir_node_set_attr_int(q, "output_dtype", QIR_FLOAT8E4M3FN))
		goto nomem;
	x8 = mxfp8_out(q, h[1], QIR_FLOAT8E4M3FN, x);
	sc = x8 ? mxfp8_out(q, h[2], QIR_UINT8, x) : NULL;
	if (!sc)
		goto nomem;
	if (sc->rank > 0 && sc->dims[sc->rank - 1].value > 0)
		sc->dims[sc->rank - 1].value /= MXFP8_BLOCK;
	d = mxfp8_node(g, MXFP8_DQ, MXFP8_DOMAIN, h[3], x8, sc);
	if (!d || qir_node_set_attr_int(d, "axis", -1) ||
	    qir_node_set_attr_int(d, "block_size", MXFP8_BLOCK) ||
	    qir_node_set_attr_int(d, "output_dtype", out_dtype))
		goto nomem;
	y = mxfp8_out(d, h[3], out_dtype, x);
	if (y)
		return y;
nomem:
	ps_fail(cfg->ctx, QOPT_ENOMEM, "activation '%s': out of memory", x->name);
	return NULL;
}

qir_value *mxfp8_activation(struct mxfp8_cfg *cfg, qir_value *x, int64_t k,
			 int out_dtype, const char **why)
{
	qopt_status st;
	qir_value *q;
	size_t i;

	*why = NULL;
	for (i = 0; i < cfg->nacts; i++)
		if (cfg->acts[i].x == x)
			return cfg->acts[i].q;
	st = mxfp8_opset(cfg);
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
		struct mxfp8_act *a = realloc(cfg->acts, cap * sizeof(*a));

		if (!a) {
			ps_fail(cfg->ctx, QOPT_ENOMEM, "out of memory");
			return NULL;
		}
		cfg->acts = a;
		cfg->cap = cap;
	}
	q = cfg->mode == MXFP8_FAKE ? mxfp8_fake_chain(cfg, x, k, out_dtype) :
				   real_chain(cfg, x, out_dtype);
	if (!q)
		return NULL;
	cfg->acts[cfg->nacts].x = x;
	cfg->acts[cfg->nacts++].q = q;
	return q;
}
