/*
 * passes/nvfp4/export.c - the activation quantizers an
 * exporter (ModelOpt) wrote.
 *
 * - trt::TRT_FP4QDQ on an activation (a "static" quantizer where
 *   ModelOpt's own exporter expects a dynamic one): it has no amax, so
 *   no engine can be built from it. An error naming the node, unless
 *   pass nvfp4 runs with activations = yes and the calibration file has
 *   the tensor: then it becomes the dynamic chain.
 * - trt::TRT_FP4DynamicQuantize(x, g) -> DequantizeLinear(s, g) ->
 *   DequantizeLinear(x_f4, s, axis -1, block 16): in fake mode the
 *   three nodes become the fake form with the export's own g (so the
 *   model runs in ONNX Runtime with the exporter's numbers); in real
 *   mode they stay, their outputs typed FLOAT4E2M1 / FLOAT8E4M3FN.
 *   Either way a quantizer (or a DequantizeLinear of its pair) with an
 *   attribute the form does not allow is an error naming both: read
 *   the ModelOpt way, it would be rewritten or typed into numbers the
 *   export does not mean.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvfp4.h"
#include "../support/fail.h"

static int is_dynq(const qir_node *n)
{
	return n->domain && !strcmp(n->domain, "trt") &&
	       !strcmp(n->op_type, "TRT_FP4DynamicQuantize");
}

static int64_t last_dim(const qir_value *x)
{
	return x->rank > 0 ? x->dims[x->rank - 1].value : -1;
}

static void drop_if_unused(qir_node *n)
{
	qir_error err = { 0 };

	/* unused is erasure's only condition: it cannot fail here */
	if (n && ps_node_unused(n) && qir_node_erase(n, &err))
		return;
}

/* TRT_FP4QDQ on a run-time value. */
static int static_on_activation(struct nvfp4_cfg *cfg, qir_node *n,
				int *changed)
{
	qir_value *x = n->inputs[0], *src = ps_runtime_source(x), *y;
	struct ps_skip s = { 0 };
	qir_error err = { 0 };
	float g;

	if (!cfg->activations) {
		ps_fail(cfg->ctx, QOPT_EINVALID, "trt::TRT_FP4QDQ node '%s' quantizes '%s', "
			   "an activation (computed at run time from '%s'): a "
			   "static NVFP4 quantizer has no amax for it, so no "
			   "engine can be built (ModelOpt's NVFP4 exporter "
			   "refuses it too); export the activation quantizer "
			   "as dynamic, or run nvfp4 with activations=yes and "
			   "calibration=FILE to put the dynamic form there",
			   n->name, x->name, src->name);
		return -1;
	}
	g = nvfp4_act_gscale(cfg, x, &s);
	if (!g || x->rank < 1 || last_dim(x) <= 0 ||
	    last_dim(x) % QK_NVFP4_BLOCK ||
	    (cfg->mode == NVFP4_REAL && x->rank != 2 && x->rank != 3)) {
		ps_fail(cfg->ctx, QOPT_EINVALID, "trt::TRT_FP4QDQ node '%s' on activation "
			   "'%s': cannot make it dynamic: %s", n->name, x->name,
			   s.kind ? s.why : "it is not 2-D or 3-D with a last "
			   "dimension a known multiple of 16 (TensorRT's "
			   "DynamicQuantize)");
		return -1;
	}
	if (nvfp4_act_opset(cfg))
		return -1;	/* a declined upgrade leaves it unbuildable */
	y = nvfp4_act_chain(cfg, n, x, g, x->rank, last_dim(x));
	if (!y || qir_value_replace_all_uses(n->outputs[0], y) < 0 ||
	    qir_node_erase(n, &err)) {
		ps_fail(cfg->ctx, QOPT_EINVALID, "trt::TRT_FP4QDQ node '%s': cannot build "
			   "the dynamic chain", n->name);
		return -1;
	}
	qopt_stat_add(cfg->ctx, "TRT_FP4QDQ on activations made dynamic", 1);
	qopt_stat_add(cfg->ctx, "activations quantized", 1);
	*changed = 1;
	return 0;
}

/* The constant FP32 global scale of a dynamic quantizer, or 0. */
static float export_g(qir_value *v)
{
	qir_tensor *t = v ? qir_value_const(v) : NULL;
	qir_error err = { 0 };
	const float *d;

	if (!t || t->dtype != QIR_FLOAT || qir_tensor_numel(t) != 1)
		return 0;
	d = qir_tensor_data(t, &err);
	return d && d[0] > 0 ? d[0] : 0;
}

/* The block DequantizeLinear reading the codes, and its scale DQ. */
static qir_node *block_dq(qir_node *q, qir_node **scale_dq)
{
	qir_value *f4 = q->noutputs >= 2 ? q->outputs[0] : NULL;
	qir_node *d2, *d1;

	if (!f4 || f4->nuses != 1)
		return NULL;
	d2 = f4->uses[0].node;
	if (!qir_node_is(d2, "DequantizeLinear") || f4->uses[0].index != 0 ||
	    d2->ninputs < 2 || !d2->inputs[1])
		return NULL;
	d1 = d2->inputs[1]->producer;
	if (!d1 || !qir_node_is(d1, "DequantizeLinear") ||
	    d1->inputs[0] != q->outputs[1])
		return NULL;
	*scale_dq = d1;
	return d2;
}

/* K of a MatMul/Gemm reading v as A, from its weight B (stored, or
 * through a Transpose as torch writes W^T), where v's shape is not
 * known; -1. */
static int64_t consumer_k(const qir_value *v)
{
	size_t i;

	for (i = 0; i < v->nuses; i++) {
		const qir_node *n = v->uses[i].node;
		const qir_value *w;
		int tb;

		if (v->uses[i].index != 0 || n->ninputs < 2 || !n->inputs[1] ||
		    (!qir_node_is(n, "MatMul") && !qir_node_is(n, "Gemm")))
			continue;
		w = n->inputs[1];
		tb = qir_node_is(n, "Gemm") && qir_node_attr_int(n, "transB", 0);
		if (w->rank == 2 && w->dims[tb].value > 0)
			return w->dims[tb].value;
		if (!tb && w->producer && qir_node_is(w->producer, "Transpose") &&
		    w->producer->inputs[0] && w->producer->inputs[0]->rank == 2 &&
		    qir_value_const(w->producer->inputs[0]))
			return w->producer->inputs[0]->dims[1].value;
	}
	return -1;
}

static int bad_attr(struct nvfp4_cfg *cfg, const qir_node *n,
		    const char *name, const char *why)
{
	int dom = n->domain && n->domain[0];

	ps_fail(cfg->ctx, QOPT_EINVALID, "node '%s' (%s%s%s): attribute '%s' %s", n->name,
		   dom ? n->domain : "", dom ? "::" : "", n->op_type, name, why);
	return -1;
}

/* Attribute name of n, an integer: 0 with *v (dflt when absent), else
 * -1 (said); qir_node_attr_int would read a float one as absent. */
static int int_attr(struct nvfp4_cfg *cfg, const qir_node *n,
		    const char *name, int64_t dflt, int64_t *v)
{
	const qir_attr *a = qir_node_attr(n, name);

	if (a && a->type != QIR_ATTR_INT)
		return bad_attr(cfg, n, name, "is not an integer");
	*v = a ? a->i : dflt;
	return 0;
}

/* name of n equals want (dflt when absent), else -1 (said with what
 * the format needs). */
static int attr_is(struct nvfp4_cfg *cfg, const qir_node *n, const char *name,
		   int64_t dflt, int64_t want, const char *need)
{
	char why[160];
	int64_t v;

	if (int_attr(cfg, n, name, dflt, &v))
		return -1;
	if (v == want)
		return 0;
	snprintf(why, sizeof(why), "= %lld: %s", (long long)v, need);
	return bad_attr(cfg, n, name, why);
}

/* The last axis of x: -1, or rank - 1 where the rank is known. */
static int last_axis(struct nvfp4_cfg *cfg, const qir_node *n,
		     const qir_value *x, int64_t dflt)
{
	char why[160];
	int64_t a;

	if (int_attr(cfg, n, "axis", dflt, &a))
		return -1;
	if (a == -1 || (x->rank > 0 && a == x->rank - 1))
		return 0;
	snprintf(why, sizeof(why), "= %lld: NVFP4 blocks run along the last "
		 "axis of '%s'", (long long)a, x->name);
	return bad_attr(cfg, n, "axis", why);
}

/* What the pass would otherwise rewrite or type on a wrong reading: the
 * quantizer's axis, block_size and scale_type (its scales are
 * FLOAT8E4M3FN, 17, nothing else), and those of the DequantizeLinear
 * pair behind it when found (d1 per tensor, d2 blocks of 16 on the last
 * axis, giving FLOAT), after its inputs and outputs. -1 (said, naming
 * node and attribute). */
static int dynq_ok(struct nvfp4_cfg *cfg, qir_node *q)
{
	qir_node *d1 = NULL, *d2;
	qir_value *x;
	int64_t od;

	if (q->ninputs != 2 || !q->inputs[0] || !q->inputs[1] ||
	    q->noutputs != 2 || !q->outputs[0] || !q->outputs[1]) {
		ps_fail(cfg->ctx, QOPT_EINVALID, "node '%s' (trt::%s): needs two inputs (x, "
			   "global scale) and two outputs (codes, scales)",
			   q->name, q->op_type);
		return -1;
	}
	x = q->inputs[0];
	d2 = block_dq(q, &d1);
	if (last_axis(cfg, q, x, -1) ||
	    attr_is(cfg, q, "block_size", QK_NVFP4_BLOCK, QK_NVFP4_BLOCK,
		    "NVFP4 blocks are 16") ||
	    attr_is(cfg, q, "scale_type", QIR_FLOAT8E4M3FN, QIR_FLOAT8E4M3FN,
		    "NVFP4 block scales are FLOAT8E4M3FN (17)"))
		return -1;
	if (!d2)
		return 0;
	/* DequantizeLinear's axis defaults to 1, block_size to 0 (none) */
	if (last_axis(cfg, d2, x, 1) ||
	    attr_is(cfg, d2, "block_size", 0, QK_NVFP4_BLOCK,
		    "the codes' dequantizer takes NVFP4's blocks of 16") ||
	    attr_is(cfg, d1, "block_size", 0, 0, "the block scales' "
		    "dequantizer is per tensor (the global scale)") ||
	    int_attr(cfg, d2, "output_dtype", 0, &od))
		return -1;
	if (od && od != QIR_FLOAT)
		return bad_attr(cfg, d2, "output_dtype", "is not FLOAT, the "
				"type of its scale (the export's form gives "
				"FLOAT)");
	return 0;
}

static int dynamic_to_fake(struct nvfp4_cfg *cfg, qir_node *q, int *changed)
{
	qir_value *x = q->inputs[0], *y, *in = x;
	qir_node *d1 = NULL, *d2 = block_dq(q, &d1);
	float g = q->ninputs > 1 ? export_g(q->inputs[1]) : 0;
	int64_t k = last_dim(x) > 0 ? last_dim(x) :
		    d2 ? consumer_k(d2->outputs[0]) : -1;

	if (!d2 || !g || k <= 0 || k % QK_NVFP4_BLOCK) {
		qopt_warn(cfg->ctx, "trt::TRT_FP4DynamicQuantize node '%s' "
			  "left as it is: not the form ModelOpt writes (a "
			  "constant FP32 global scale, two DequantizeLinear, "
			  "a known K)", q->name);
		qopt_stat_add(cfg->ctx, "TRT_FP4DynamicQuantize left", 1);
		return 0;
	}
	if (!qopt_may_rewrite(cfg->ctx, "fake form of '%s'", q->name))
		return 0;
	switch (nvfp4_act_opset(cfg)) {
	case 0: break;
	case 1: return 0;
	default: return -1;
	}
	/* The export's DQ gives FLOAT: so does the fake chain. */
	if (qir_value_elem_type(x) != QIR_FLOAT) {
		qir_node *c = qir_node_new(q->graph, "Cast", NULL, q->name);
		qir_error err = { 0 };

		in = c && !qir_node_add_input(c, x) &&
		     !qir_node_set_attr_int(c, "to", QIR_FLOAT) ?
		     qir_node_add_output(c, NULL, x->name) : NULL;
		if (!in || qir_value_copy_shape(in, x, QIR_FLOAT, &err))
			goto fail;
		qir_node_move_before(c, q);
	}
	/* the fake form needs only K (its blocks are [-1, K/16, 16]) */
	y = nvfp4_act_chain(cfg, q, in, g, x->rank > 0 ? x->rank : 1, k);
	if (!y || qir_value_replace_all_uses(d2->outputs[0], y) < 0)
		goto fail;
	drop_if_unused(d2);
	drop_if_unused(d1);
	drop_if_unused(q);
	qopt_stat_add(cfg->ctx, "TRT_FP4DynamicQuantize to fake form", 1);
	*changed = 1;
	return 0;
fail:
	ps_fail(cfg->ctx, QOPT_EINVALID, "trt::TRT_FP4DynamicQuantize node '%s': cannot "
		   "build the fake form", q->name);
	return -1;
}

/* Real mode: the codes FLOAT4E2M1 and the block scales FLOAT8E4M3FN
 * (ONNX's inference knows no trt:: op). */
static int type_outputs(struct nvfp4_cfg *cfg, qir_node *q, int *changed)
{
	qir_value *x = q->inputs[0];
	qir_error err = { 0 };
	int64_t d[16];
	int i, r = x->rank;

	if (q->outputs[0]->dtype && q->outputs[1]->dtype)
		return 0;
	for (i = 0; i < r && i < 16; i++)
		d[i] = x->dims[i].value;
	if (r > 0 && r <= 16 && d[r - 1] > 0)
		d[r - 1] /= QK_NVFP4_BLOCK;
	if (qir_value_copy_shape(q->outputs[0], x, QIR_FLOAT4E2M1, &err) ||
	    qir_value_set_type(q->outputs[1], QIR_FLOAT8E4M3FN,
			       r <= 16 ? r : -1, r > 0 && r <= 16 ? d : NULL,
			       &err)) {
		qopt_error(cfg->ctx, "node '%s': %s", q->name, err.msg);
		return -1;
	}
	qopt_stat_add(cfg->ctx, "TRT_FP4DynamicQuantize outputs typed", 1);
	*changed = 1;
	return 0;
}

static int wanted(const qir_node *n)
{
	if (is_dynq(n))
		return 1;	/* a malformed one too: said, not passed over */
	return n->ninputs && n->inputs[0] && ps_is_placeholder(n) &&
	       ps_runtime_source(n->inputs[0]);
}

int nvfp4_export_activations(struct nvfp4_cfg *cfg, int *changed)
{
	qir_node *n, **v;
	size_t k = 0, i;
	int rc = 0;

	/* The rewrites erase DQ nodes: the candidates are listed first. */
	qir_graph_for_each_node(cfg->m->graph, n)
		k += wanted(n);
	if (!k)
		return 0;
	v = malloc(k * sizeof(*v));
	if (!v) {
		ps_fail(cfg->ctx, QOPT_ENOMEM, "out of memory");
		return -1;
	}
	k = 0;
	qir_graph_for_each_node(cfg->m->graph, n)
		if (wanted(n))
			v[k++] = n;
	for (i = 0; i < k && !rc; i++) {
		n = v[i];
		if (ps_is_placeholder(n))
			rc = static_on_activation(cfg, n, changed);
		else if (dynq_ok(cfg, n))
			rc = -1;
		else
			rc = cfg->mode == NVFP4_FAKE ?
			     dynamic_to_fake(cfg, n, changed) :
			     type_outputs(cfg, n, changed);
	}
	free(v);
	return rc ? -1 : 0;
}
