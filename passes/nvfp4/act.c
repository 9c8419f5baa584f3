/*
 * passes/nvfp4/act.c - W4A4: TensorRT's dynamic NVFP4
 * quantization on the activation input of the selected MatMul/Gemm
 * (pass nvfp4, activations = yes, calibration = FILE).
 *
 * The global scale of an activation is g = qk_nvfp4_gscale(amax), amax
 * from `qopt calibrate`; the block scales are computed at run time.
 * real: [Cast(FLOAT) ->] trt::TRT_FP4DynamicQuantize(x, g) (axis -1,
 *       block_size 16, scale_type 17) -> (x_f4 FLOAT4E2M1, s_f8
 *       FLOAT8E4M3FN); DequantizeLinear(s_f8, g) -> s;
 *       DequantizeLinear(x_f4, s, axis -1, block_size 16) [-> Cast back]
 *       (the form ModelOpt writes; TensorRT >= 10.8 builds it).
 * fake: the same numbers in standard ops ONNX Runtime runs (opset 19):
 *       the arithmetic of qk_nvfp4_quantize_gscale, operation for
 *       operation (docs/graph-forms.md), so it equals the kernel bit
 *       for bit.
 * TensorRT's limits are checked per node (2-D/3-D input, K the last
 * axis, K % 16 == 0, constant scale); a node outside them keeps its
 * float input, with the reason. Several selected consumers of one
 * tensor (Q, K, V projections) share one chain.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvfp4.h"
#include <qopt/calib.h>

#include "../support/fail.h"

const struct ps_skip_kind nvfp4_skip_act_shape = {
	"activations skipped (outside TensorRT's DynamicQuantize)",
	PS_SKIP_INFO
};
const struct ps_skip_kind nvfp4_skip_act_calib = {
	"activations skipped (no calibrated amax)", PS_SKIP_WARN
};
const struct ps_skip_kind nvfp4_skip_act_done = {
	"activations skipped (already quantized)", PS_SKIP_INFO
};

/* ---- which nodes are linear layers: a run-time input A and a weight
 * B computed from constants (through TRT_FP4QDQ marks too) ---- */

int nvfp4_is_linear(const qir_node *n)
{
	if (!qir_node_is(n, "MatMul") && !qir_node_is(n, "Gemm"))
		return 0;
	if (n->ninputs < 2 || !n->inputs[0] || !n->inputs[1])
		return 0;
	return ps_runtime_source(n->inputs[0]) != NULL &&
	       ps_runtime_source(n->inputs[1]) == NULL;
}

int nvfp4_act_remember(struct nvfp4_cfg *cfg, qir_node *n)
{
	if (cfg->nlin == cfg->caplin) {
		size_t cap = cfg->caplin ? 2 * cfg->caplin : 32;
		qir_node **v = realloc(cfg->lin, cap * sizeof(*v));

		if (!v)
			return -1;
		cfg->lin = v;
		cfg->caplin = cap;
	}
	cfg->lin[cfg->nlin++] = n;
	return 0;
}

/* ---- selection and TensorRT's limits ---- */

static int selected(struct nvfp4_cfg *cfg, const qir_node *n)
{
	const char *names[2] = { n->name, n->inputs[0]->name };

	return ps_targets_op(&cfg->tg, n->op_type) &&
	       ps_globs_match(&cfg->tg.include, names, 2) >= 0 &&
	       ps_globs_match(&cfg->tg.exclude, names, 2) < 0;
}

/* A value a DequantizeLinear (or a dynamic quantizer's chain) makes is
 * quantized already. */
static int quantized(const qir_value *x)
{
	const qir_node *p = x->producer;

	while (p && qir_node_is(p, "Cast") && p->inputs[0])
		p = p->inputs[0]->producer;
	return p && (qir_node_is(p, "DequantizeLinear") ||
		     (p->domain && !strcmp(p->domain, "trt")));
}

/* Ops whose output has the rank of input 0 (rank unknown to the
 * inference, e.g. after a Concat it could not size). Q/DQ too: an
 * earlier pass's (fp8 before nvfp4 in a pipeline) leaves outputs of
 * unknown rank, and the residual stream runs through them. */
static int keeps_rank(const qir_node *p)
{
	static const char *const ops[] = { "LayerNormalization", "Cast",
		"Identity", "Relu", "Gelu", "Erf", "Tanh", "Sigmoid", "Softmax",
		"SimplifiedLayerNormalization", "Neg", "Sqrt", "Dropout",
		"QuantizeLinear", "DequantizeLinear", NULL };
	size_t i;

	for (i = 0; ops[i]; i++)
		if (qir_node_is(p, ops[i]))
			return 1;
	return 0;
}

/* Ranks the inference left unknown, derived in one sweep in graph
 * order: an op that keeps its input's rank, Concat (any input's),
 * elementwise ops and MatMul (the highest of their inputs' ranks, all
 * known). Enough for the residual streams of transformer exports. */
struct ranks {
	const qir_value **v;
	int *r;
	size_t n, cap;
};


static int rank_of(const struct ranks *rk, const qir_value *v)
{
	size_t i;

	if (!v)
		return -1;
	if (v->rank >= 0)
		return v->rank;
	for (i = rk->n; i > 0; i--)
		if (rk->v[i - 1] == v)
			return rk->r[i - 1];
	return -1;
}

static int derived_rank(const struct ranks *rk, const qir_node *p)
{
	static const char *const elementwise[] = { "Add", "Mul", "Sub", "Div",
		"Pow", "Where", "MatMul", NULL };
	size_t i;
	int r = -1, ri, k;

	if (!p->ninputs)
		return -1;
	if (keeps_rank(p))
		return rank_of(rk, p->inputs[0]);
	if (qir_node_is(p, "Concat")) {
		for (i = 0; i < p->ninputs && r < 0; i++)
			r = rank_of(rk, p->inputs[i]);
		return r;
	}
	for (k = 0; elementwise[k] && !qir_node_is(p, elementwise[k]); k++)
		;
	if (!elementwise[k])
		return -1;
	for (i = 0; i < p->ninputs; i++) {
		if ((ri = rank_of(rk, p->inputs[i])) < 0)
			return -1;
		r = ri > r ? ri : r;
	}
	return r;
}

static int ranks_sweep(struct ranks *rk, qir_graph *g)
{
	qir_node *n;

	qir_graph_for_each_node(g, n) {
		int r;

		if (!n->noutputs || !n->outputs[0] || n->outputs[0]->rank >= 0 ||
		    (r = derived_rank(rk, n)) < 0)
			continue;
		if (rk->n == rk->cap) {
			size_t cap = rk->cap ? 2 * rk->cap : 64;
			const qir_value **v = realloc(rk->v, cap * sizeof(*v));
			int *rr = v ? realloc(rk->r, cap * sizeof(*rr)) : NULL;

			if (v)
				rk->v = v;
			if (!rr)
				return -1;
			rk->r = rr;
			rk->cap = cap;
		}
		rk->v[rk->n] = n->outputs[0];
		rk->r[rk->n++] = r;
	}
	return 0;
}

/* K: A's last dimension, or the weight's reduction dimension. */
static int64_t input_k(const qir_node *n, const qir_value *x, int rank)
{
	const qir_value *w = n->inputs[1];
	int kb;

	if (x->rank == rank && x->dims[rank - 1].value > 0)
		return x->dims[rank - 1].value;
	if (w->rank != 2)
		return -1;
	kb = qir_node_is(n, "Gemm") && qir_node_attr_int(n, "transB", 0);
	return w->dims[kb ? 1 : 0].value;
}

static void check_node(struct nvfp4_cfg *cfg, const struct ranks *rk,
		       const qir_node *n, struct ps_skip *s, double *amax,
		       int *rank_out,
		       int64_t *k_out)
{
	const qir_value *x = n->inputs[0];
	double e_amax = 0;
	int dt = qir_value_elem_type((qir_value *)x);
	int64_t k;
	int rank;

	if (quantized(x)) {
		ps_skip_set(s, &nvfp4_skip_act_done, "input A '%s' is made "
			    "by '%s' (%s)", x->name, x->producer->name,
			    x->producer->op_type);
		return;
	}
	if (!ps_float_weight_type(dt)) {
		ps_skip_set(s, &ps_skip_not_float, "input A '%s' is %s, not "
			    "FLOAT, FLOAT16 or BFLOAT16", x->name,
			    dt ? qir_dtype_name(dt) : "untyped");
		return;
	}
	if (qir_node_is(n, "Gemm") && qir_node_attr_int(n, "transA", 0)) {
		ps_skip_set(s, &nvfp4_skip_act_shape, "Gemm transA = 1: K is "
			    "not the last axis of A (the blocked axis)");
		return;
	}
	rank = rank_of(rk, x);
	if (rank != 2 && rank != 3) {
		ps_skip_set(s, &nvfp4_skip_act_shape, "input A '%s' has %s "
			    "%d; TensorRT's DynamicQuantize takes 2-D or 3-D",
			    x->name, rank < 0 ? "unknown rank" : "rank", rank);
		return;
	}
	k = input_k(n, x, rank);
	if (k <= 0 || k % QK_NVFP4_BLOCK) {
		ps_skip_set(s, &nvfp4_skip_act_shape, "input A '%s': K = %s%lld "
			    "is not a known multiple of 16", x->name,
			    k < 0 ? "unknown " : "", (long long)k);
		return;
	}
	*rank_out = rank;
	*k_out = k;
	if (qopt_calib_find(cfg->cal, x->name, &e_amax))
		ps_skip_set(s, &nvfp4_skip_act_calib, "tensor '%s' is not in "
			    "calibration file '%s'", x->name, cfg->calib_path);
	else if (!(e_amax > 0) || !(e_amax <= 3.4028234663852886e38))
		ps_skip_set(s, &nvfp4_skip_act_calib, "tensor '%s': amax %g "
			    "in '%s' is not a positive finite number", x->name,
			    e_amax, cfg->calib_path);
	else
		*amax = e_amax;
}

/* ---- building ---- */

struct chain {
	struct nvfp4_cfg *cfg;
	qir_graph *g;
	qir_value *x;		/* the activation */
	qir_node *at;		/* nodes go before it */
	int dtype;
	int rank;
	int64_t dims[16];	/* -1 where not a known number */
	float gscale;
	qir_value *gv;		/* the FP32 global scale */
	int failed;
	char name[400];		/* x's name, cut to fit */
};

static qir_value *node_out(struct chain *c, qir_node *n, int dtype)
{
	qir_value *o;

	if (!n) {
		c->failed = 1;
		return NULL;
	}
	qir_node_move_before(n, c->at);
	o = n->noutputs ? n->outputs[0] : NULL;
	if (o && dtype) {
		qir_error err = { 0 };

		if (qir_value_set_type(o, dtype, -1, NULL, &err))
			c->failed = 1;
	}
	return o;
}

/* op(a[, b[, cc]]) with one output named BASE_SUFFIX; NULL on failure
 * (c->failed set). */
static qir_node *op3(struct chain *c, const char *op, const char *domain,
		     const char *suffix, qir_value *a, qir_value *b,
		     qir_value *cc)
{
	char hint[512];
	qir_node *n;

	if (c->failed || !a)
		goto fail;
	snprintf(hint, sizeof(hint), "%s_%s", c->name, suffix);
	n = qir_node_new(c->g, op, domain, hint);
	if (!n || qir_node_add_input(n, a) ||
	    (b && qir_node_add_input(n, b)) ||
	    (cc && qir_node_add_input(n, cc)) ||
	    !qir_node_add_output(n, NULL, hint))
		goto fail;
	return n;
fail:
	c->failed = 1;
	return NULL;
}

static qir_value *op(struct chain *c, const char *o, const char *suffix,
		     qir_value *a, qir_value *b, int dtype)
{
	return node_out(c, op3(c, o, NULL, suffix, a, b, NULL), dtype);
}

static qir_value *where(struct chain *c, const char *suffix, qir_value *cond,
			qir_value *a, qir_value *b)
{
	return node_out(c, op3(c, "Where", NULL, suffix, cond, a, b),
			QIR_FLOAT);
}

static qir_value *cast(struct chain *c, const char *suffix, qir_value *a,
		       int to)
{
	qir_node *n = op3(c, "Cast", NULL, suffix, a, NULL, NULL);

	if (n && qir_node_set_attr_int(n, "to", to))
		c->failed = 1;
	return node_out(c, n, to);
}

/* A constant initializer named BASE_SUFFIX. */
static qir_value *konst(struct chain *c, const char *suffix, int dtype,
			int rank, const int64_t *dims, const void *data,
			size_t nbytes)
{
	char name[512];
	qir_error err = { 0 };
	qir_tensor *t;
	void *d;

	if (c->failed)
		return NULL;
	snprintf(name, sizeof(name), "%s_%s", c->name, suffix);
	t = qir_tensor_new(name, dtype, rank, dims, &err);
	d = t ? qir_tensor_mutable_data(t, &err) : NULL;
	if (!d) {
		if (t)
			qir_tensor_free(t);
		c->failed = 1;
		return NULL;
	}
	memcpy(d, data, nbytes);
	{
		qir_value *v = ps_add_initializer(c->g, t);

		if (!v)
			c->failed = 1;
		return v;
	}
}

static qir_value *kf(struct chain *c, const char *suffix, float f)
{
	return konst(c, suffix, QIR_FLOAT, 0, NULL, &f, sizeof(f));
}

static int set_attrs(struct chain *c, qir_node *n, int with_block)
{
	if (!n)
		return -1;
	if (qir_node_set_attr_int(n, "axis", -1) ||
	    (with_block && qir_node_set_attr_int(n, "block_size",
						 QK_NVFP4_BLOCK))) {
		c->failed = 1;
		return -1;
	}
	return 0;
}

/* v typed dtype with x's shape (dims == c->dims, symbolic names kept)
 * or dims. */
static qir_value *typed_as(struct chain *c, qir_value *v, int dtype,
			   const int64_t *dims)
{
	qir_error err = { 0 };

	if (v && (dims == c->dims ?
		  qir_value_copy_shape(v, c->x, dtype, &err) :
		  qir_value_set_type(v, dtype, c->rank, dims, &err)))
		c->failed = 1;
	return v;
}

/* The real form; returns the value the consumers read. */
static qir_value *build_real(struct chain *c, qir_value *x)
{
	int64_t sdims[16];
	qir_node *dq, *d1, *d2;
	qir_value *f4, *s8, *s, *y;
	int i;

	for (i = 0; i < c->rank; i++)
		sdims[i] = c->dims[i];
	sdims[c->rank - 1] = c->dims[c->rank - 1] / QK_NVFP4_BLOCK;
	dq = op3(c, "TRT_FP4DynamicQuantize", "trt", "fp4", x, c->gv,
		 NULL);
	if (set_attrs(c, dq, 1) || qir_node_set_attr_int(dq, "scale_type",
							 QIR_FLOAT8E4M3FN)) {
		c->failed = 1;
		return NULL;
	}
	qir_node_move_before(dq, c->at);
	f4 = typed_as(c, dq->outputs[0], QIR_FLOAT4E2M1, c->dims);
	{
		char hint[512];

		snprintf(hint, sizeof(hint), "%s_fp4_scale", c->name);
		s8 = qir_node_add_output(dq, NULL, hint);
	}
	if (!s8) {
		c->failed = 1;
		return NULL;
	}
	typed_as(c, s8, QIR_FLOAT8E4M3FN, sdims);
	d1 = op3(c, "DequantizeLinear", NULL, "fp4_scale_dq", s8, c->gv,
		 NULL);
	s = typed_as(c, node_out(c, d1, 0), QIR_FLOAT, sdims);
	d2 = op3(c, "DequantizeLinear", NULL, "fp4_dq", f4, s, NULL);
	if (set_attrs(c, d2, 1))
		return NULL;
	y = typed_as(c, node_out(c, d2, 0), QIR_FLOAT, c->dims);
	return y;
}

/* The fake form: e2m1(x / S) * S per block of 16 along the last axis,
 * S = e4m3(amax_blk / 6 / g) * g, every step the kernel's. */
static qir_value *build_fake(struct chain *c, qir_value *x)
{
	const int64_t one = 1, axes = -1, three = 3;
	const int64_t shape[3] = { -1, c->dims[c->rank - 1] / QK_NVFP4_BLOCK,
				   QK_NVFP4_BLOCK };
	const uint8_t zero8 = 0;
	qir_value *xr, *bm, *t, *q, *sf, *S, *y, *m, *r1, *r2, *r3, *rr, *neg,
		  *o, *k6, *k1, *zp;
	qir_node *n;

	/* [rows, K/16, 16] whatever the leading dimensions */
	xr = op(c, "Reshape", "fp4_blocks", x,
		konst(c, "fp4_blocks_shape", QIR_INT64, 1, &three, shape,
		      sizeof(shape)), QIR_FLOAT);
	bm = op(c, "ReduceMax", "fp4_bamax", op(c, "Abs", "fp4_abs", xr, NULL,
						QIR_FLOAT),
		konst(c, "fp4_axes", QIR_INT64, 1, &one, &axes, sizeof(axes)),
		QIR_FLOAT);
	/* amax_blk / 6 / g: two divisions, in that order */
	k6 = kf(c, "fp4_six", 6.0f);
	t = op(c, "Div", "fp4_s_raw", op(c, "Div", "fp4_bamax6", bm, k6,
					 QIR_FLOAT), c->gv, QIR_FLOAT);
	k1 = kf(c, "fp4_one", 1.0f);
	zp = konst(c, "fp4_e4m3_zero", QIR_FLOAT8E4M3FN, 0, NULL, &zero8, 1);
	/* e4m3 with saturation, through ONNX's own FP8 Q/DQ (exact) */
	q = node_out(c, op3(c, "QuantizeLinear", NULL, "fp4_s_q", t, k1, zp),
		     QIR_FLOAT8E4M3FN);
	sf = node_out(c, op3(c, "DequantizeLinear", NULL, "fp4_s_dq", q, k1,
			     zp), QIR_FLOAT);
	/* a block scale that rounds to 0 becomes 2^-9; a zero block 1 */
	sf = where(c, "fp4_s_nz", op(c, "Equal", "fp4_s_is0", sf,
				     kf(c, "fp4_zero", 0.0f), QIR_BOOL),
		   kf(c, "fp4_min_e4m3", 0.001953125f), sf);
	sf = where(c, "fp4_s", op(c, "Greater", "fp4_bamax_pos", bm,
				  kf(c, "fp4_zero_b", 0.0f), QIR_BOOL), sf, k1);
	S = op(c, "Mul", "fp4_S", sf, c->gv, QIR_FLOAT);
	y = op(c, "Div", "fp4_y", xr, S, QIR_FLOAT);
	/* e2m1: |y| clamped to 6, rounded half to even on its grid
	 * (steps 0.5 below 2, 1 below 4, 2 up to 6) */
	m = op(c, "Min", "fp4_m", op(c, "Abs", "fp4_absy", y, NULL, QIR_FLOAT),
	       k6, QIR_FLOAT);
	r1 = op(c, "Mul", "fp4_r1", op(c, "Round", "fp4_r1r",
				       op(c, "Mul", "fp4_m2", m,
					  kf(c, "fp4_two", 2.0f), QIR_FLOAT),
				       NULL, QIR_FLOAT),
		kf(c, "fp4_half", 0.5f), QIR_FLOAT);
	r2 = op(c, "Round", "fp4_r2", m, NULL, QIR_FLOAT);
	r3 = op(c, "Mul", "fp4_r3", op(c, "Round", "fp4_r3r",
				       op(c, "Mul", "fp4_mh", m,
					  kf(c, "fp4_half_b", 0.5f), QIR_FLOAT),
				       NULL, QIR_FLOAT),
		kf(c, "fp4_two_b", 2.0f), QIR_FLOAT);
	rr = where(c, "fp4_r",
		   op(c, "Less", "fp4_lt2", m, kf(c, "fp4_k2", 2.0f), QIR_BOOL),
		   r1, where(c, "fp4_r34",
			     op(c, "Less", "fp4_lt4", m, kf(c, "fp4_k4", 4.0f),
				QIR_BOOL), r2, r3));
	/* the sign of x, -0 included (1/-0 = -inf) */
	neg = op(c, "Or", "fp4_neg",
		 op(c, "Less", "fp4_xneg", xr, kf(c, "fp4_zero_c", 0.0f),
		    QIR_BOOL),
		 op(c, "Less", "fp4_rneg", op(c, "Reciprocal", "fp4_rx", xr,
					     NULL, QIR_FLOAT),
		    kf(c, "fp4_zero_d", 0.0f), QIR_BOOL), QIR_BOOL);
	/* times -1 or 1: an IEEE product keeps the sign of a zero (ORT's
	 * Neg and Where paths need not) */
	rr = op(c, "Mul", "fp4_rs", rr, where(c, "fp4_sign", neg,
					      kf(c, "fp4_minus1", -1.0f),
					      kf(c, "fp4_plus1", 1.0f)),
		QIR_FLOAT);
	o = op(c, "Mul", "fp4_deq", rr, S, QIR_FLOAT);
	n = op3(c, "Shape", NULL, "fp4_shape", x, NULL, NULL);
	return typed_as(c, op(c, "Reshape", "fp4_fake", o,
			      node_out(c, n, QIR_INT64), QIR_FLOAT),
			QIR_FLOAT, c->dims);
}

qir_value *nvfp4_act_chain(struct nvfp4_cfg *cfg, qir_node *at, qir_value *x,
			   float gscale, int rank, int64_t k)
{
	struct chain c;
	qir_value *in = x, *y;
	int i;

	/* rank: 2 or 3 from check_node; an export's chain may have more */
	if (rank < 1 || rank > 16)
		return NULL;
	memset(&c, 0, sizeof(c));
	c.cfg = cfg;
	c.g = at->graph;
	c.x = x;
	c.at = at;
	c.dtype = qir_value_elem_type(x);
	c.rank = rank;
	for (i = 0; i < c.rank; i++)
		c.dims[i] = x->rank == rank ? x->dims[i].value : -1;
	c.dims[rank - 1] = k;
	snprintf(c.name, sizeof(c.name), "%s", x->name);
	c.gscale = gscale;
	c.gv = kf(&c, "fp4_gscale", c.gscale);
	if (c.dtype != QIR_FLOAT)
		in = typed_as(&c, cast(&c, "fp4_in", x, QIR_FLOAT), QIR_FLOAT,
			      c.dims);
	y = cfg->mode == NVFP4_REAL ? build_real(&c, in) : build_fake(&c, in);
	if (y && c.dtype != QIR_FLOAT)
		y = typed_as(&c, cast(&c, "fp4_out", y, c.dtype), c.dtype,
			     c.dims);
	return c.failed ? NULL : y;
}

/* The calibrated global scale of x, or 0 (s says why). */
float nvfp4_act_gscale(struct nvfp4_cfg *cfg, const qir_value *x,
		       struct ps_skip *s)
{
	double amax = 0;

	if (!cfg->cal || qopt_calib_find(cfg->cal, x->name, &amax))
		ps_skip_set(s, &nvfp4_skip_act_calib, "tensor '%s' is not in "
			    "calibration file '%s'", x->name,
			    cfg->calib_path ? cfg->calib_path : "(none)");
	else if (!(amax > 0) || !(amax <= 3.4028234663852886e38))
		ps_skip_set(s, &nvfp4_skip_act_calib, "tensor '%s': amax %g "
			    "in '%s' is not a positive finite number", x->name,
			    amax, cfg->calib_path);
	else
		return qk_nvfp4_gscale((float)amax);
	return 0;
}

/* ---- the walk ---- */

struct done {
	qir_value *x, *y;
};

static qir_value *find_done(const struct done *d, size_t n, qir_value *x)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (d[i].x == x)
			return d[i].y;
	return NULL;
}

static int one_node(struct nvfp4_cfg *cfg, const struct ranks *rk,
		    qir_node *n, struct done *d, size_t *nd, int *changed)
{
	qir_value *x = n->inputs[0], *y;
	struct ps_skip s = { 0 };
	double amax = 0;
	int64_t k = 0;
	int rank = 0;

	if (!selected(cfg, n))
		return 0;
	y = find_done(d, *nd, x);
	if (!y) {
		check_node(cfg, rk, n, &s, &amax, &rank, &k);
		if (s.kind) {
			ps_skip_report(cfg->ctx, &s, "activation of node",
				       n->name);
			return 0;
		}
		if (!qopt_may_rewrite(cfg->ctx, "dynamic NVFP4 (%s) on '%s'",
				      cfg->mode == NVFP4_REAL ? "real" : "fake",
				      x->name))
			return 0;
		y = nvfp4_act_chain(cfg, n, x, qk_nvfp4_gscale((float)amax),
				    rank, k);
		if (!y) {
			qopt_error(cfg->ctx, "activation '%s' of node '%s': "
				   "cannot build the NVFP4 chain", x->name,
				   n->name);
			return -1;
		}
		d[*nd].x = x;
		d[(*nd)++].y = y;
		qopt_stat_add(cfg->ctx, "activations quantized", 1);
	}
	if (qir_value_replace_use(x, (qir_use){ n, 0 }, y)) {
		ps_fail(cfg->ctx, QOPT_ENOMEM, "node '%s': out of memory", n->name);
		return -1;
	}
	qopt_stat_add(cfg->ctx, "linear inputs W4A4", 1);
	*changed = 1;
	return 0;
}

static int load_calibration(struct nvfp4_cfg *cfg)
{
	qir_error err = { 0 };
	char hash[32];

	if (!cfg->calib_path || !*cfg->calib_path) {
		ps_fail(cfg->ctx, QOPT_EINVALID, "activations = yes needs calibration = "
			   "FILE: give samples in one command (`qopt --passes "
			   "nvfp4:activations=yes MODEL --calibration-data DIR "
			   "-o OUT.onnx`), or run `qopt calibrate --passes "
			   "nvfp4:activations=yes MODEL -o calib.json` first "
			   "(docs/calibration.md)");
		return -1;
	}
	if (qopt_calib_read(cfg->calib_path, &cfg->cal, &err)) {
		ps_fail(cfg->ctx, err.code, "calibration file %s", err.msg);
		return -1;
	}
	snprintf(hash, sizeof(hash), "%016llx",
		 (unsigned long long)qir_model_hash(cfg->m));
	/* the hash a file made by an earlier qopt carries matches too */
	if (!qir_model_hash_is(cfg->m, qopt_calib_model_hash(cfg->cal))) {
		ps_fail(cfg->ctx, QOPT_EINVALID, "calibration file '%s' is for model hash "
			   "%s, this model's is %s: it was made for another "
			   "model, or for this one before it changed (run "
			   "nvfp4 first in the pipeline, or calibrate again)",
			   cfg->calib_path, qopt_calib_model_hash(cfg->cal),
			   hash);
		return -1;
	}
	return 0;
}

int nvfp4_act_prepare(struct nvfp4_cfg *cfg)
{
	return cfg->activations ? load_calibration(cfg) : 0;
}

/* The opset the chains need (and the trt domain): 0, 1 when bisect
 * declined the upgrade (build nothing), -1 after an error. */
int nvfp4_act_opset(struct nvfp4_cfg *cfg)
{
	qopt_status rc = cfg->mode == NVFP4_REAL ?
	     qopt_require_opset(cfg->ctx, 23, "NVFP4 activations "
				"(FLOAT4E2M1 DequantizeLinear)") :
	     qopt_require_opset(cfg->ctx, 19, "NVFP4 fake activations "
				"(FP8 QuantizeLinear)");

	if (rc == QOPT_ESKIPPED)
		return 1;
	if (rc)
		return -1;
	if (cfg->mode == NVFP4_REAL && !qir_model_opset(cfg->m, "trt") &&
	    qir_model_set_opset(cfg->m, "trt", 1)) {
		ps_fail(cfg->ctx, QOPT_ENOMEM, "out of memory");
		return -1;
	}
	return 0;
}

int nvfp4_activations(struct nvfp4_cfg *cfg, int *changed)
{
	struct ranks rk = { 0 };
	struct done *d;
	size_t i, nd = 0;
	int ret = 0, rc;

	if (!cfg->activations || !cfg->nlin)
		return 0;
	rc = nvfp4_act_opset(cfg);
	if (rc)
		return rc > 0 ? 0 : -1;
	d = calloc(cfg->nlin, sizeof(*d));
	if (!d || ranks_sweep(&rk, cfg->m->graph)) {
		ps_fail(cfg->ctx, QOPT_ENOMEM, "out of memory");
		ret = -1;
	}
	for (i = 0; i < cfg->nlin && !ret; i++)
		ret = one_node(cfg, &rk, cfg->lin[i], d, &nd, changed);
	free(d);
	free(rk.v);
	free(rk.r);
	return ret;
}

void nvfp4_act_fini(struct nvfp4_cfg *cfg)
{
	qopt_calib_free(cfg->cal);
	cfg->cal = NULL;
	free(cfg->lin);
	cfg->lin = NULL;
}

/* What `qopt calibrate` measures for nvfp4 (activations = yes): input
 * A of every selected linear MatMul/Gemm, the tensors the pass looks
 * up (those it then skips for their shape are measured anyway). */
qopt_status nvfp4_calibration_targets(qopt_ctx *ctx, qir_model *m)
{
	struct ps_targets t;
	qir_node *n;
	qopt_status rc = QOPT_OK;
	size_t asked = 0;

	if (!qopt_opt_bool(ctx, "activations"))
		return QOPT_OK;
	if (ps_targets_init(&t, ctx, PS_TARGET_ALL)) {
		ps_targets_fini(&t);
		return QOPT_ENOMEM;
	}
	qir_graph_for_each_node(m->graph, n) {
		const char *names[2];

		if (!nvfp4_is_linear(n) || !ps_targets_op(&t, n->op_type))
			continue;
		names[0] = n->name;
		names[1] = n->inputs[0]->name;
		if (ps_globs_match(&t.include, names, 2) < 0 ||
		    ps_globs_match(&t.exclude, names, 2) >= 0)
			continue;
		rc = qopt_want_range(ctx, n->inputs[0]);
		if (rc != QOPT_OK)
			break;
		asked++;
	}
	ps_targets_fini(&t);
	if (rc == QOPT_OK && !asked)
		qopt_info(ctx, "calibration: no MatMul or Gemm with a "
			  "run-time input A and a constant weight");
	return rc;
}
