/*
 * passes/fp8/calib_place.c - calibrated Q/DQ placement for a plain
 * model (option `calibration = FILE`, from `qopt calibrate`).
 *
 * The pass fp8-calibrate-place, first in fp8-mha: it runs before any
 * rewrite changes the model, so the hash it checks is that of the model
 * the pass received: a file made for another model (or for this one
 * before an earlier pass changed it) is refused rather than applied to
 * tensors that only share a name.
 *
 * For every selected MatMul/Gemm, each input becomes DQ(Q(x)):
 * - a constant float weight: scale = amax/448 per tensor or per output
 *   channel (weight_axis), left as Q(W) -> DQ for rewrite 2 to store as
 *   FP8, so weights go through the one exact, streaming quantizer;
 * - an activation with an amax in the file: a per-tensor scale amax/448
 *   in the activation's own float type (no Cast between DQ and MatMul),
 *   placed right before its first consumer and shared by every selected
 *   consumer (LayerNorm -> Q, K, V projections get one Q/DQ); consumers
 *   that are not selected keep reading the float tensor;
 * - a Softmax output: left to rewrite 4 (fixed scale 1/448).
 * A tensor missing from the file, or with an amax that is not a positive
 * finite number, is skipped with the reason: never guessed. An attention
 * block whose head size is outside 9..256 is left in float (its MatMuls
 * here, its Softmax in rewrite 4).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "calib.h"
#include "../support/fail.h"

const struct fp8_qformat fp8_fp8 = { "fp8", "FP8", QIR_FLOAT8E4M3FN,
					   448.0, 1 };
/* Symmetric INT8, zero point 0: [-127, 127] (TensorRT's INT8). */
const struct fp8_qformat fp8_int8 = { "int8", "INT8", QIR_INT8, 127.0,
					    0 };

struct placed {
	qir_value *from;
	const qir_graph *g;	/* the graph of the reader it was made for */
	qir_value *to;		/* DQ output, or NULL when skipped */
};

struct place {
	struct fp8_cfg *cfg;
	unsigned flags;		/* FP8_PLACE_* */
	const struct fp8_qformat *fmt;
	char left_counter[64];	/* "fp8: layers left in float" */
	qopt_calib *cal;
	const char *path;
	struct ps_targets t;	/* include, exclude, op_types */
	int weight_axis;
	struct placed *done;	/* owned */
	size_t ndone, capdone;
	qir_node **left;	/* attention MatMuls left alone; owned */
	size_t nleft, capleft;
	struct ps_coverage cov;	/* every constant input's outcome */
	int pattern;		/* include index of the node at hand */
};

/* Coverage reasons of this file (the fp8_skip counters say more). */
static const struct ps_skip_kind skip_layer = {
	"skipped (layer left in float)", PS_SKIP_INFO
}, skip_scale = { "skipped (scale not representable)", PS_SKIP_INFO };

/* A constant input of n that stays float, for the coverage. */
static void cov_float(struct place *p, const qir_value *v,
		      const struct ps_skip_kind *kind, const char *why)
{
	struct ps_skip s = { .kind = kind };
	uint64_t numel, nbytes;

	snprintf(s.why, sizeof(s.why), "%s", why);
	ps_coverage_size(v, &numel, &nbytes);
	ps_coverage_add(&p->cov, v->name, numel, nbytes, p->pattern, NULL, &s);
}

/* Every constant input (slots 0 and 1) of n, left float. */
static void cov_node_float(struct place *p, const qir_node *n,
			   const struct ps_skip_kind *kind, const char *why)
{
	for (size_t slot = 0; slot < 2 && slot < n->ninputs; slot++)
		if (n->inputs[slot] && qir_value_const(n->inputs[slot]))
			cov_float(p, n->inputs[slot], kind, why);
}

/* Selected: of op_types (default domain), and its name or its first
 * output's matching include and none of exclude. */
static int op_selected(const struct place *p, const qir_node *n)
{
	return ps_targets_op(&p->t, n->op_type) && qir_node_is(n, n->op_type);
}

static int name_selected(struct place *p, const qir_node *n)
{
	const char *names[2] = { n->name, n->noutputs && n->outputs[0] ?
				 n->outputs[0]->name : NULL };
	int in = ps_globs_match(&p->t.include, names, 2);
	int ex = ps_globs_match(&p->t.exclude, names, 2);

	p->pattern = in >= 0 && ex < 0 ? in : -1;
	if (in < 0 || ex >= 0)
		cov_node_float(p, n, ex >= 0 ? &ps_skip_excluded :
			       &ps_skip_not_included, ex >= 0 ?
			       "excluded" : "no include pattern matches");
	return in >= 0 && ex < 0;
}

static int left_alone(const struct place *p, const qir_node *n)
{
	size_t i;

	for (i = 0; i < p->nleft; i++)
		if (p->left[i] == n)
			return 1;
	return 0;
}

static int remember(struct place *p, const qir_graph *in, qir_value *from,
		    qir_value *to)
{
	struct placed *g;

	if (p->ndone == p->capdone) {
		p->capdone = p->capdone ? 2 * p->capdone : 32;
		g = realloc(p->done, p->capdone * sizeof(*g));
		if (!g)
			return -1;
		p->done = g;
	}
	p->done[p->ndone].from = from;
	p->done[p->ndone].g = in;
	p->done[p->ndone++].to = to;
	return 0;
}

/* 1 when a value of graph `def` can be read in graph g: the same graph
 * or one enclosing it. */
static int visible(const qir_graph *def, const qir_graph *g)
{
	for (; g; g = g->parent)
		if (g == def)
			return 1;
	return 0;
}

/* What was placed on v for a reader in graph g: a Q/DQ of another
 * graph (the other branch of an If reading an outer tensor) is not
 * visible there, so each branch gets its own. */
static struct placed *find_done(struct place *p, const qir_value *v,
				const qir_graph *g)
{
	size_t i;

	for (i = 0; i < p->ndone; i++)
		if (p->done[i].from == v && p->done[i].g == g)
			return &p->done[i];
	for (i = 0; i < p->ndone; i++)
		if (p->done[i].from == v && p->done[i].to &&
		    visible(p->done[i].to->graph, g))
			return &p->done[i];
	return NULL;
}

/* Attention blocks with a head size TensorRT does not fuse: both
 * MatMuls and the Softmax stay in float. */
static int find_left(struct place *p)
{
	qir_node **sms, *b[2], **g;
	size_t i, k, count;
	qir_error err = { 0 };
	int64_t head;

	if (qir_graph_nodes(p->cfg->m->graph, "", "Softmax", 0, &sms, &count,
			    &err))
		return fp8_fail(p->cfg, NULL, &err);
	for (i = 0; i < count; i++) {
		b[0] = fp8_attn_bmm1(sms[i]);
		b[1] = fp8_attn_bmm2(sms[i]);
		if (!b[0] || !b[1])
			continue;
		head = fp8_attn_head_size(b[0]);
		if (head < 0 || fp8_head_fusible(head))
			continue;
		qopt_info(p->cfg->ctx, "calibration: attention at Softmax '%s' "
			  "left unquantized: head size %lld outside %d..%d",
			  sms[i]->name, (long long)head, FP8_HEAD_MIN,
			  FP8_HEAD_MAX);
		qopt_stat_add(p->cfg->ctx, "calibration: attention left "
			      "unquantized (head size)", 1);
		for (k = 0; k < 2; k++) {
			if (p->nleft == p->capleft) {
				p->capleft = p->capleft ? 2 * p->capleft : 8;
				g = realloc(p->left, p->capleft * sizeof(*g));
				if (!g) {
					free(sms);
					return fp8_fail(p->cfg, NULL, NULL);
				}
				p->left = g;
			}
			p->left[p->nleft++] = b[k];
		}
	}
	free(sms);
	return 0;
}

/* Q/DQ on x before node `before`, scale tensor s (taken); axis >= 0 for
 * per-axis. Returns the DQ output. */
static qir_value *insert_qdq(struct place *p, qir_value *x, int dtype,
			     qir_tensor *s, int axis, qir_node *before)
{
	qir_graph *g = before->graph;
	qir_value *sv, *zv;
	qir_node *q, *dq;
	struct ps_qdq_attrs attrs = { .saturate = p->fmt->saturate };
	qir_error err = { 0 };
	char hint[512];

	snprintf(hint, sizeof(hint), "%s_%s_zero_point", x->name, p->fmt->pass);
	zv = s ? ps_add_initializer(g, ps_zero_point(hint, p->fmt->qtype,
						      s->rank, s->dims)) : NULL;
	sv = zv ? ps_add_initializer(g, s) : NULL;
	if (!sv) {
		if (!zv)
			qir_tensor_free(s);
		fp8_fail(p->cfg, before, NULL);
		return NULL;
	}
	attrs.per_axis = axis >= 0;
	attrs.axis = axis;
	if (ps_qdq_pair(g, x->name, x, sv, zv, p->fmt->qtype, dtype, &attrs,
			&q, &dq, &err)) {
		fp8_fail(p->cfg, before, &err);
		return NULL;
	}
	qir_node_move_before(q, before);
	qir_node_move_before(dq, before);
	return dq->outputs[0];
}

/* Per channel along axis of a convolution's weight (small: the block
 * maxima of [dims[0..axis], the rest] are folded onto the axis). */
static int channel_amax(struct place *p, qir_tensor *w, const void *d,
			int axis, double *amax, qir_error *err)
{
	size_t outer = 1, len = 1, ch = (size_t)w->dims[axis], k;
	float *out;
	int i, rc;

	for (i = 0; i < w->rank; i++)
		*(i <= axis ? &outer : &len) *= (size_t)w->dims[i];
	out = calloc(outer ? outer : 1, sizeof(*out));
	if (!out)
		return qir_fail(err, QIR_ENOMEM, "out of memory");
	rc = qk_amax_blocks(p->cfg->qk, w->dtype, d, outer, len, 1, len, out);
	for (k = 0; k < ch; k++)
		amax[k] = 0;
	for (k = 0; !rc && ch && k < outer; k++)
		if (out[k] > amax[k % ch])
			amax[k % ch] = out[k];
	free(out);
	return rc ? qir_fail(err, QIR_EINVALID, "weight '%s': amax failed",
			     w->name) : 0;
}

/* Largest |w| (NaN ignored) over the whole weight (axis < 0) or per
 * slice along axis of a rank-2 weight, into amax[], through the kernels
 * (they read borrowed, unaligned bytes safely). */
static int weight_amax(struct place *p, qir_tensor *w, int axis,
		       double *amax, qir_error *err)
{
	const void *d = qir_tensor_data(w, err);
	uint64_t n = qir_tensor_numel(w);
	size_t rows, cols, k, count;
	float *out;
	int rc;

	if (!d)
		return n ? -1 : 0;
	if (axis < 0) {
		float a = 0;

		if (qk_amax(p->cfg->qk, w->dtype, d, (size_t)n, &a))
			return qir_fail(err, QIR_EINVALID, "weight '%s': amax "
					"failed", w->name);
		amax[0] = a;
		return 0;
	}
	if (w->rank != 2)
		return channel_amax(p, w, d, axis, amax, err);
	rows = (size_t)w->dims[0];
	cols = (size_t)w->dims[1];
	count = axis == 0 ? rows : cols;
	out = calloc(count ? count : 1, sizeof(*out));
	if (!out)
		return qir_fail(err, QIR_ENOMEM, "out of memory");
	/* [outer, axis, inner] with one block spanning the reduced axis */
	rc = axis == 0 ?
		qk_amax_blocks(p->cfg->qk, w->dtype, d, rows, cols, 1, cols, out) :
		qk_amax_blocks(p->cfg->qk, w->dtype, d, 1, rows, cols, rows, out);
	for (k = 0; k < count; k++)
		amax[k] = out[k];
	free(out);
	return rc ? qir_fail(err, QIR_EINVALID, "weight '%s': amax failed",
			     w->name) : 0;
}

/* A scale tensor amax[k]/qmax in dtype (1 where amax is 0: any scale
 * codes zeros exactly); NULL with why when a scale rounds to 0 or to
 * infinity in dtype. */
static qir_tensor *scale_tensor(const char *name, int dtype, double qmax,
				const double *amax, int64_t count, int per_axis,
				char *why, size_t n)
{
	int64_t k;
	qir_tensor *t = ps_filled_tensor(name, dtype, 1.0, per_axis ? 1 : 0,
					     &count);
	void *d = t ? qir_tensor_mutable_data(t, NULL) : NULL;
	float f, back;

	if (!d) {
		qir_tensor_free(t);
		snprintf(why, n, "out of memory");
		return NULL;
	}
	for (k = 0; k < count; k++) {
		f = amax[k] > 0 ? (float)(amax[k] / qmax) : 1.0f;
		if (dtype == QIR_FLOAT)
			back = ((float *)d)[k] = f;
		else if (dtype == QIR_FLOAT16)
			back = qk_f16_to_f32(((uint16_t *)d)[k] =
					     qk_f32_to_f16(f));
		else
			back = qk_bf16_to_f32(((uint16_t *)d)[k] =
					      qk_f32_to_bf16(f));
		if (!(back > 0) || !(back < INFINITY)) {
			snprintf(why, n, "scale %g/%g is not a positive finite "
				 "%s", amax[k], qmax, qir_dtype_name(dtype));
			qir_tensor_free(t);
			return NULL;
		}
	}
	return t;
}

/* Output-channel axis of weight slot `slot` of n, or -1 (per tensor):
 * 0 for a Conv's [M, C/group, k...]; 1 for a ConvTranspose's
 * [C, M/group, k...] when group = 1 (with groups its output channels
 * span two axes: one scale for the tensor); N of a MatMul's [K, N], of
 * a Gemm's B as transB says. */
static int out_axis(const qir_node *n, size_t slot, const qir_tensor *w)
{
	if (slot != 1)
		return -1;
	if (qir_node_is(n, "Conv"))
		return w->rank >= 3 ? 0 : -1;
	if (qir_node_is(n, "ConvTranspose"))
		return w->rank >= 3 && qir_node_attr_int(n, "group", 1) == 1 ?
		       1 : -1;
	if (w->rank != 2)
		return -1;
	if (qir_node_is(n, "Gemm"))
		return qir_node_attr_int(n, "transB", 0) ? 0 : 1;
	return 1;
}

/* Points input slot of n at the Q/DQ already made for its tensor: 1 done,
 * 0 when that tensor was skipped, -1 on failure. */
static int reuse(struct place *p, qir_node *n, size_t slot,
		 const struct placed *pl)
{
	if (!pl->to)
		return 0;
	if (qir_value_replace_use(n->inputs[slot], (qir_use){ n, (int)slot },
				  pl->to))
		return fp8_fail(p->cfg, n, NULL);
	return 1;
}

static int weight(struct place *p, qir_node *n, size_t slot)
{
	qir_value *v = n->inputs[slot], *dq;
	qir_tensor *w = qir_value_const(v), *s;
	struct placed *pl = find_done(p, v, n->graph);
	qir_error err = { 0 };
	double *amax;
	int axis, dtype = w->dtype;
	int64_t count;
	char why[256], name[512], fmt[32];

	if (pl)
		return reuse(p, n, slot, pl);
	if (!fp8_is_float(dtype)) {
		fp8_skip(p->cfg, n, "calibration: weight skipped", "weight "
			    "'%s' is %s, not FLOAT, FLOAT16 or BFLOAT16", v->name,
			    qir_dtype_name(dtype));
		cov_float(p, v, &ps_skip_not_float, qir_dtype_name(dtype));
		return remember(p, n->graph, v, NULL) ?
		       fp8_fail(p->cfg, n, NULL) : 0;
	}
	if (ps_fake_recorded(p->cfg->m, v->name, fmt, sizeof(fmt))) {
		struct ps_skip s = { .kind = &ps_skip_fake_quantized };

		snprintf(s.why, sizeof(s.why), "it holds %s fake-quantized "
			 "values already (metadata %s): quantizing them again "
			 "would round twice", fmt, PS_FAKE_META);
		ps_skip_report(p->cfg->ctx, &s, "weight", v->name);
		cov_float(p, v, &ps_skip_fake_quantized, s.why);
		return remember(p, n->graph, v, NULL) ?
		       fp8_fail(p->cfg, n, NULL) : 0;
	}
	axis = p->weight_axis ? out_axis(n, slot, w) : -1;
	count = axis >= 0 ? w->dims[axis] : 1;
	if (!qopt_may_rewrite(p->cfg->ctx, "calibrated %s weight '%s'",
			      p->fmt->label, v->name)) {
		cov_float(p, v, &ps_skip_bisect, "the rewrite gate said no");
		return remember(p, n->graph, v, NULL) ?
		       fp8_fail(p->cfg, n, NULL) : 0;
	}
	amax = calloc((size_t)(count ? count : 1), sizeof(*amax));
	if (!amax)
		return fp8_fail(p->cfg, n, NULL);
	if (weight_amax(p, w, axis, amax, &err)) {
		free(amax);
		return fp8_fail(p->cfg, n, &err);
	}
	snprintf(name, sizeof(name), "%s_%s_scale", v->name, p->fmt->pass);
	s = scale_tensor(name, dtype, p->fmt->qmax, amax, count, axis >= 0, why,
			 sizeof(why));
	free(amax);
	if (!s) {
		fp8_skip(p->cfg, n, "calibration: weight skipped", "weight "
			    "'%s': %s", v->name, why);
		cov_float(p, v, &skip_scale, why);
		return remember(p, n->graph, v, NULL) ?
		       fp8_fail(p->cfg, n, NULL) : 0;
	}
	dq = insert_qdq(p, v, dtype, s, axis, n);
	if (!dq || remember(p, n->graph, v, dq))
		return -1;
	if (qir_value_replace_use(v, (qir_use){ n, (int)slot }, dq))
		return fp8_fail(p->cfg, n, NULL);
	{
		uint64_t numel, nbytes;

		ps_coverage_size(v, &numel, &nbytes);
		ps_coverage_add(&p->cov, v->name, numel, nbytes, p->pattern,
				p->fmt->pass, NULL);
	}
	qopt_stat_add(p->cfg->ctx, axis >= 0 ? "calibration: weights "
		      "quantized (per channel)" : "calibration: weights quantized "
		      "(per tensor)", 1);
	return 1;
}

static int from_softmax(const qir_value *v);

static int activation(struct place *p, qir_node *n, size_t slot)
{
	qir_value *v = n->inputs[slot], *dq;
	struct placed *pl = find_done(p, v, n->graph);
	double amax = 1.0;
	qir_tensor *s;
	int dtype, have;
	char why[256], name[512];

	if (pl)
		return reuse(p, n, slot, pl);
	/* fp8, int8: a Softmax output's range is [0, 1] whatever the data:
	 * scale 1/qmax (fp8: 1/448, as fp8-mha's fp8-softmax-qdq gives it),
	 * measured or not. */
	have = ((p->flags & FP8_PLACE_CNN) && from_softmax(v)) ||
	       !qopt_calib_find_value(p->cal, p->cfg->m, v, &amax);
	dtype = qir_value_elem_type(v);
	if (!dtype)
		dtype = fp8_float_type(v, 16);
	if (!have)
		fp8_skip(p->cfg, n, "calibration: tensors skipped (not in "
			    "the file)", "tensor '%s' is not in calibration file "
			    "'%s'", v->name, p->path);
	else if (!(amax > 0) || !(amax < INFINITY))
		fp8_skip(p->cfg, n, "calibration: tensors skipped (bad "
			    "amax)", "tensor '%s': amax %g in '%s' is not a "
			    "positive finite number", v->name, amax, p->path);
	else if (!fp8_is_float(dtype))
		fp8_skip(p->cfg, n, "calibration: tensors skipped (type)",
			    "tensor '%s' is %s, not FLOAT, FLOAT16 or BFLOAT16",
			    v->name, dtype ? qir_dtype_name(dtype) : "untyped");
	else if (!qopt_may_rewrite(p->cfg->ctx, "calibrated Q/DQ on '%s'",
				   v->name))
		;
	else if (snprintf(name, sizeof(name), "%s_%s_scale", v->name,
			  p->fmt->pass),
		 !(s = scale_tensor(name, dtype, p->fmt->qmax, &amax, 1, 0,
				    why, sizeof(why))))
		fp8_skip(p->cfg, n, "calibration: tensors skipped (scale)",
			    "tensor '%s': %s", v->name, why);
	else {
		dq = insert_qdq(p, v, dtype, s, -1, n);
		if (!dq || remember(p, n->graph, v, dq))
			return -1;
		if (qir_value_replace_use(v, (qir_use){ n, (int)slot }, dq))
			return fp8_fail(p->cfg, n, NULL);
		qopt_stat_add(p->cfg->ctx, "calibration: activation Q/DQ "
			      "inserted", 1);
		return 1;
	}
	return remember(p, n->graph, v, NULL) ?
	       fp8_fail(p->cfg, n, NULL) : 0;
}

static int from_softmax(const qir_value *v)
{
	const qir_node *p = v->producer;

	while (p && fp8_is_op(p, "Cast") && p->ninputs && p->inputs[0])
		p = p->inputs[0]->producer;
	return p && fp8_is_op(p, "Softmax");
}

static int is_conv(const qir_node *n)
{
	return qir_node_is(n, "Conv") || qir_node_is(n, "ConvTranspose");
}

/* int8: an input already dequantized must be TensorRT's INT8 (an INT8
 * code, zero point 0), or the layer would mix formats: 1 when it is
 * (fp8 takes any DQ, as it always did). */
static int dq_fits(const struct place *p, qir_node *dq, const qir_value *v,
		   char *why, size_t len)
{
	int t = dq->ninputs ? qir_value_elem_type(dq->inputs[0]) : 0;

	if (p->fmt->qtype != QIR_INT8)
		return 1;
	if (t != QIR_INT8)
		return snprintf(why, len, "input '%s' is already quantized as %s, "
				"not INT8", v->name, t ? qir_dtype_name(t) :
				"an unknown type"), 0;
	if (!fp8_zero_point_is_zero(dq))
		return snprintf(why, len, "input '%s' is dequantized with a zero "
				"point that is not a constant 0 (TensorRT's INT8 "
				"is symmetric)", v->name), 0;
	return 1;
}

/* int8: a weight holding NaN or Inf has no INT8 code (NaN would become
 * 0 and Inf 127 times the scale): 1 when it is finite. */
static int weight_finite(struct place *p, qir_tensor *w, const char *name,
			 char *why, size_t len)
{
	const void *d;
	size_t at = 0, n = (size_t)qir_tensor_numel(w);

	if (p->fmt->qtype != QIR_INT8)
		return 1;
	d = qir_tensor_data(w, NULL);
	if (!d)
		return snprintf(why, len, "weight '%s' cannot be read", name), 0;
	if (qk_find_nonfinite(p->cfg->qk, w->dtype, d, n, &at, NULL))
		return snprintf(why, len, "weight '%s' cannot be checked for "
				"NaN and Inf", name), 0;
	if (at < n)
		return snprintf(why, len, "weight '%s' holds NaN or Inf (element "
				"%zu): INT8 has no code for it", name, at), 0;
	return 1;
}

/* layer_ready's verdicts. A degenerate amax (0, or one whose scale is
 * 0 or infinity in the tensor's type) is said as a warning: the file
 * was made for this model, yet the layer cannot be quantized. */
enum layer_verdict {
	LAYER_FAIL = -1, LAYER_FLOAT, LAYER_READY, LAYER_DEGENERATE
};

/* 1 when every amax[k]/qmax is a positive finite dtype (scale_tensor's
 * rule, so that nothing refused here is placed half); else 0 with why
 * naming the tensor. */
static int scale_ok(const struct place *p, const char *what,
		    const char *name, int dtype, const double *amax,
		    int64_t count, int per_axis, char *why, size_t len)
{
	char reason[256];
	qir_tensor *s = scale_tensor("scale", dtype, p->fmt->qmax, amax, count,
				     per_axis, reason, sizeof(reason));

	if (s) {
		qir_tensor_free(s);
		return 1;
	}
	snprintf(why, len, "%s '%s': %s", what, name, reason);
	return 0;
}

/* The weight's scales as weight() will make them: LAYER_READY, or
 * LAYER_DEGENERATE with why, or LAYER_FAIL (said). */
static int weight_scales(struct place *p, const qir_node *n, size_t slot,
			 qir_tensor *w, char *why, size_t len)
{
	int axis = p->weight_axis ? out_axis(n, slot, w) : -1;
	int64_t count = axis >= 0 ? w->dims[axis] : 1;
	double *amax = calloc((size_t)(count ? count : 1), sizeof(*amax));
	qir_error err = { 0 };
	int ok;

	if (!amax || weight_amax(p, w, axis, amax, &err)) {
		free(amax);
		return fp8_fail(p->cfg, n, &err);
	}
	ok = scale_ok(p, "weight", w->name, w->dtype, amax, count, axis >= 0,
		      why, len);
	free(amax);
	return ok ? LAYER_READY : LAYER_DEGENERATE;
}

/* fp8: why layer n stays in float as a whole (why set), checked before
 * anything is placed, so that a layer is FP8 on both inputs or not at
 * all: TensorRT runs a Conv in FP8 only with its input and its weight
 * quantized, and a half-quantized layer costs accuracy for nothing. */
static int layer_ready(struct place *p, qir_node *n, char *why, size_t len)
{
	const struct placed *pl;
	double amax;
	size_t slot;
	qir_tensor *w;
	int dtype, rc;

	for (slot = 0; slot < 2; slot++) {
		qir_value *v = slot < n->ninputs ? n->inputs[slot] : NULL;

		if (!v)
			return snprintf(why, len, "input %zu is missing", slot),
			       LAYER_FLOAT;
		if (v->producer && fp8_is_dq(v->producer)) {
			if (!dq_fits(p, v->producer, v, why, len))
				return LAYER_FLOAT;
			continue;
		}
		if (from_softmax(v))
			continue;
		if ((w = qir_value_const(v))) {
			if (!fp8_is_float(w->dtype))
				return snprintf(why, len, "weight '%s' is %s, not "
						"FLOAT, FLOAT16 or BFLOAT16", v->name,
						qir_dtype_name(w->dtype)), LAYER_FLOAT;
			if (is_conv(n) && (w->rank < 3 || w->rank > 5))
				return snprintf(why, len, "weight '%s' has rank %d:"
						" not a 1-D, 2-D or 3-D convolution",
						v->name, w->rank), LAYER_FLOAT;
			if (!qir_tensor_numel(w))
				return snprintf(why, len, "weight '%s' is empty",
						v->name), LAYER_FLOAT;
			if ((int64_t)qir_tensor_numel(w) < p->t.min_size)
				return snprintf(why, len, "weight '%s' has %llu "
						"elements, fewer than min_size = %lld",
						v->name, (unsigned long long)
						qir_tensor_numel(w),
						(long long)p->t.min_size), LAYER_FLOAT;
			if (!weight_finite(p, w, v->name, why, len))
				return LAYER_FLOAT;
			pl = find_done(p, v, n->graph);
			if (pl && pl->to)
				continue;	/* placed at another reader */
			if (pl)
				return snprintf(why, len, "weight '%s' stays float "
						"(at another layer)", v->name),
				       LAYER_FLOAT;
			rc = weight_scales(p, n, slot, w, why, len);
			if (rc != LAYER_READY)
				return rc;
			continue;
		}
		if (slot == 1 && is_conv(n))
			return snprintf(why, len, "weight '%s' is not a constant",
					v->name), LAYER_FLOAT;
		amax = 0;
		rc = qopt_calib_find_value(p->cal, p->cfg->m, v, &amax);
		dtype = qir_value_elem_type(v);
		if (!dtype)
			dtype = fp8_float_type(v, 16);
		if (rc)
			return snprintf(why, len, "tensor '%s' is not in "
					"calibration file '%s'", v->name, p->path),
			       LAYER_FLOAT;
		if (!(amax > 0) || !(amax < INFINITY))
			return snprintf(why, len, "tensor '%s': amax %g in '%s' "
					"is not a positive finite number", v->name,
					amax, p->path), LAYER_DEGENERATE;
		if (!fp8_is_float(dtype))
			return snprintf(why, len, "tensor '%s' is %s, not FLOAT, "
					"FLOAT16 or BFLOAT16", v->name, dtype ?
					qir_dtype_name(dtype) : "untyped"),
			       LAYER_FLOAT;
		if (!scale_ok(p, "tensor", v->name, dtype, &amax, 1, 0, why,
			      len))
			return LAYER_DEGENERATE;
	}
	return LAYER_READY;
}

/* 1 when layer_ready refused n for min_size (a choice of the targets,
 * not held against an include pattern). */
static int below_min_size(const struct place *p, const qir_node *n)
{
	for (size_t slot = 0; slot < 2 && slot < n->ninputs; slot++) {
		qir_tensor *w = n->inputs[slot] ?
				qir_value_const(n->inputs[slot]) : NULL;

		if (w && qir_tensor_numel(w) &&
		    (int64_t)qir_tensor_numel(w) < p->t.min_size)
			return 1;
	}
	return 0;
}

/* fp8/int8: layer n stays float, said; a degenerate amax as a warning
 * (the explain run only notes it, as every skip). */
static void left_in_float(struct place *p, const qir_node *n, int warn,
			  const char *why)
{
	if (!warn || p->cfg->explain) {
		fp8_skip(p->cfg, n, p->left_counter, "%s", why);
		return;
	}
	qopt_stat_add(p->cfg->ctx, p->left_counter, 1);
	qopt_warn(p->cfg->ctx, "%s: %s: %s", QIR_NODE_LABEL(n),
		  p->left_counter, why);
}

static int one(struct place *p, qir_node *n)
{
	size_t slot;
	int rc, any = 0;
	char why[512];

	rc = p->flags & FP8_PLACE_CNN ? layer_ready(p, n, why,
						      sizeof(why)) :
	     LAYER_READY;
	if (rc == LAYER_FAIL)
		return -1;
	if (rc != LAYER_READY) {
		left_in_float(p, n, rc == LAYER_DEGENERATE, why);
		cov_node_float(p, n, below_min_size(p, n) ?
			       &ps_skip_below_min_size : &skip_layer, why);
		return 0;
	}

	for (slot = 0; slot < 2 && slot < n->ninputs; slot++) {
		qir_value *v = n->inputs[slot];

		if (!v || (v->producer && fp8_is_dq(v->producer)))
			continue;	/* quantized already */
		if (from_softmax(v) && !(p->flags & FP8_PLACE_CNN))
			continue;	/* rewrite 4: fixed scale */
		rc = qir_value_const(v) ? weight(p, n, slot) :
			activation(p, n, slot);
		if (rc < 0)
			return -1;
		any |= rc;
	}
	return any;
}

/* The residual rule's callback (residual.c): the shortcut input `slot`
 * of Add n gets the activation Q/DQ (shared with the tensor's other
 * quantized readers). */
static int shortcut(void *arg, qir_node *n, size_t slot)
{
	return activation(arg, n, slot);
}

/* The opset the Q/DQ of layer n need: FP8 Q/DQ 19; INT8 13 (per-axis
 * DequantizeLinear), 19 when a FLOAT16 or BFLOAT16 scale is needed (the
 * scale has the layer's float type, which QuantizeLinear-13 limits to
 * FLOAT). TensorRT's INT8 Q/DQ rules: docs/int8.md. */
static int prepare_opset(struct place *p, const qir_node *n)
{
	size_t k;

	if (p->fmt->qtype != QIR_INT8)
		return fp8_prepare_opset(p->cfg);
	for (k = 0; k < 2 && k < n->ninputs; k++) {
		int t = n->inputs[k] ? qir_value_elem_type(n->inputs[k]) : 0;

		if (t == QIR_FLOAT16 || t == QIR_BFLOAT16)
			return fp8_prepare_opset_for(p->cfg, FP8_OPSET,
							"INT8 Q/DQ with FLOAT16 or "
							"BFLOAT16 scales");
	}
	return fp8_prepare_opset_for(p->cfg, FP8_INT8_OPSET,
					"per-axis INT8 DequantizeLinear");
}

static int place_all(struct place *p, int *changed)
{
	qir_node **nodes;
	size_t i, count, unselected = 0, selected = 0;
	qir_error err = { 0 };
	int rc = 0;

	if (qir_graph_nodes(p->cfg->m->graph, "", NULL,
			    !!(p->flags & FP8_PLACE_CNN), &nodes, &count,
			    &err))
		return fp8_fail(p->cfg, NULL, &err);
	for (i = 0; i < count && rc >= 0; i++) {
		if (!op_selected(p, nodes[i]) || left_alone(p, nodes[i]))
			continue;
		if (!name_selected(p, nodes[i])) {
			unselected++;
			continue;
		}
		selected++;
		rc = prepare_opset(p, nodes[i]);
		if (rc)
			break;	/* refused (said so) or failed */
		if ((rc = one(p, nodes[i])) > 0)
			*changed = 1;
	}
	if (rc >= 0 && selected && (p->flags & FP8_PLACE_CNN))
		rc = fp8_residual_adds(p->cfg, p->fmt->pass, nodes, count,
					  shortcut, p, changed);
	free(nodes);
	if (rc >= 0)
		ps_coverage_report(p->cfg->ctx, &p->cov);
	if (!selected && rc >= 0)
		qopt_warn(p->cfg->ctx, "calibration: no %s matches include/"
			  "exclude/op_types: nothing placed", unselected ?
			  (p->flags & FP8_PLACE_CNN ?
			   "Conv/ConvTranspose/MatMul/Gemm" : "MatMul/Gemm") :
			  "node of op_types");
	if (unselected)
		qopt_info(p->cfg->ctx, "calibration: %zu node%s left out by "
			  "include/exclude", unselected, unselected == 1 ? "" :
			  "s");
	return rc < 0 ? -1 : 0;
}

/* No calibration file: fine for an exporter's FP8 model. A plain model
 * with attention would get only the Softmax Q/DQ (fixed scale), which
 * makes no block fusible and costs accuracy: a mistake, not a result. */
static int uncalibrated(struct fp8_cfg *cfg, unsigned flags,
			const char *pass)
{
	size_t blocks;
	int fp8;

	if (flags & FP8_PLACE_CNN) {
		ps_fail(cfg->ctx, QOPT_EINVALID, "option calibration is not set: %s "
			   "places Q/DQ from measured ranges only. Give it "
			   "samples in one command: `qopt --passes %s MODEL "
			   "--calibration-data DIR -o OUT.onnx`; or measure the "
			   "model first: `qopt calibrate MODEL --passes %s -o "
			   "calib.json`, then `--passes %s:calibration="
			   "calib.json` (docs/calibration.md)", pass, pass, pass,
			   pass);
		return -1;
	}

	if (fp8_survey(cfg, &fp8, &blocks))
		return -1;
	if (fp8 || !blocks) {
		qopt_debug(cfg->ctx, "no calibration file: nothing to place");
		return 0;
	}
	ps_fail(cfg->ctx, QOPT_EINVALID, "the model has no FP8 quantization (no FP8 "
		   "QuantizeLinear/DequantizeLinear, no trt:: FP8 op) and no "
		   "calibration file was given: fp8-mha would add only Softmax "
		   "Q/DQ and make none of its %zu attention block%s fusible. "
		   "Give it samples in one command: `qopt --passes fp8-mha "
		   "MODEL --calibration-data DIR -o OUT.onnx`; or measure it "
		   "first: `qopt calibrate MODEL -o calib.json`, then "
		   "`--passes fp8-mha:calibration=calib.json` "
		   "(docs/calibration.md)", blocks, blocks == 1 ? "" : "s");
	return -1;
}

int fp8_calib_place(struct fp8_cfg *cfg, int *changed)
{
	return fp8_calib_place_ex(cfg, 0, &fp8_fp8, changed);
}

int fp8_calib_place_ex(struct fp8_cfg *cfg, unsigned flags,
			  const struct fp8_qformat *fmt, int *changed)
{
	struct place p;
	qir_error err = { 0 };
	char hash[32];
	int rc;

	memset(&p, 0, sizeof(p));
	p.cfg = cfg;
	p.flags = flags;
	p.fmt = fmt;
	snprintf(p.left_counter, sizeof(p.left_counter), "%s: layers left in "
		 "float", fmt->pass);
	p.path = qopt_opt_string(cfg->ctx, "calibration");
	if (!p.path || !*p.path)
		return uncalibrated(cfg, flags, fmt->pass);
	if (qopt_calib_read(p.path, &p.cal, &err)) {
		ps_fail(cfg->ctx, err.code, "calibration file %s", err.msg);
		return -1;
	}
	snprintf(hash, sizeof(hash), "%016llx",
		 (unsigned long long)qir_model_hash(cfg->m));
	/* the hash a file made by an earlier qopt carries matches too */
	if (!qir_model_hash_is(cfg->m, qopt_calib_model_hash(p.cal))) {
		ps_fail(cfg->ctx, QOPT_EINVALID, "calibration file '%s' is for model hash "
			   "%s, this model's is %s: it was made for another "
			   "model, or for this one before it changed (run "
			   "%s first in the pipeline, or calibrate "
			   "again)", p.path, qopt_calib_model_hash(p.cal), hash,
			   flags & FP8_PLACE_CNN ? fmt->pass : "fp8-mha");
		qopt_calib_free(p.cal);
		return -1;
	}
	if (qopt_calib_bind(p.cal, cfg->m)) {	/* before anything is placed */
		qopt_calib_free(p.cal);
		return fp8_fail(cfg, NULL, NULL);
	}
	if (ps_targets_init(&p.t, cfg->ctx, PS_TARGET_INCLUDE |
			    PS_TARGET_EXCLUDE | PS_TARGET_OP_TYPES |
			    (flags & FP8_PLACE_CNN ? PS_TARGET_MIN_SIZE : 0))) {
		ps_targets_fini(&p.t);
		qopt_calib_free(p.cal);
		return -1;
	}
	p.weight_axis = qopt_opt_bool(cfg->ctx, "weight_axis");
	qopt_info(cfg->ctx, "calibration: %zu tensors from '%s'",
		  qopt_calib_count(p.cal), p.path);
	ps_coverage_init(&p.cov, &p.t, "weight");
	rc = find_left(&p);
	if (!rc)
		rc = place_all(&p, changed);
	ps_coverage_fini(&p.cov);
	ps_targets_fini(&p.t);
	free(p.done);
	free(p.left);
	qopt_calib_free(p.cal);
	return rc;
}
