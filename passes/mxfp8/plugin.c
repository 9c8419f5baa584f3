/*
 * passes/mxfp8/plugin.c - the mxfp8 pass: entry point, options, and the
 * walk over the linear layers (MatMul/Gemm with a constant weight) of a
 * plain model. ModelOpt's MXFP8 export is handled first (export.c);
 * when the model carries one, only what the exporter marked is touched
 * unless include says otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "weight.h"
#include "act.h"
#include "select.h"
#include "util.h"
#include "../support/fail.h"

static const char *const known_ops[] = { "MatMul", "Gemm", NULL };
static const char *const modes[] = { "real", "fake", NULL };
static const char *const formats[] = { "trt", "onnx", NULL };

static const qopt_option_spec mxfp8_opts[] = {
	{ .name = "include", .type = QOPT_OPT_LIST, .default_value = "*",
	  .help = "globs over node, weight and activation names to quantize "
	  "(on an MXFP8 export: default none beyond what it marks)" },
	{ .name = "exclude", .type = QOPT_OPT_LIST, .default_value = NULL,
	  .help = "globs over the same names to leave alone (wins over include)" },
	{ .name = "op_types", .type = QOPT_OPT_LIST,
	  .default_value = "MatMul,Gemm", .choices = known_ops,
	  .help = "linear layers to quantize" },
	{ .name = "min_size", .type = QOPT_OPT_INT, .default_value = "4096",
	  .flags = QOPT_OPT_HAS_MIN, .min = 0,
	  .help = "layers whose weight has fewer elements are left alone" },
	{ .name = "mode", .type = QOPT_OPT_ENUM, .default_value = "real",
	  .choices = modes,
	  .help = "real: FP8 codes + E8M0 scales for TensorRT; fake: the same "
	  "values in standard ops ONNX Runtime runs (opset 19)" },
	{ .name = "format", .type = QOPT_OPT_ENUM, .default_value = "trt",
	  .choices = formats,
	  .help = "real mode's weights: trt (TRT_MXFP8DequantizeLinear, UINT8 "
	  "scales, as ModelOpt exports) or onnx (DequantizeLinear with "
	  "FLOAT8E8M0 scales, opset 24)" },
	{ .name = "weights", .type = QOPT_OPT_BOOL, .default_value = "yes",
	  .help = "quantize the layers' constant weights" },
	{ .name = "activations", .type = QOPT_OPT_BOOL, .default_value = "yes",
	  .help = "quantize the layers' input activations at run time" },
	{ .name = "block_size", .type = QOPT_OPT_INT, .default_value = "32",
	  .flags = QOPT_OPT_HAS_MIN | QOPT_OPT_HAS_MAX,
	  .min = MXFP8_BLOCK, .max = MXFP8_BLOCK,
	  .help = "MXFP8 block along K; the format fixes it at 32" },
	{ 0 }
};

static const struct ps_skip_kind skip_attention = {
	"skipped (no constant weight)", PS_SKIP_QUIET
};

static int cfg_init(struct mxfp8_cfg *cfg, qopt_ctx *ctx, qir_model *m)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->ctx = ctx;
	cfg->m = m;
	cfg->qk = qopt_kernels(ctx);
	cfg->mode = qopt_opt_enum(ctx, "mode") == 1 ? MXFP8_FAKE : MXFP8_REAL;
	cfg->format = qopt_opt_enum(ctx, "format") == 1 ? MXFP8_ONNX : MXFP8_TRT;
	cfg->weights = qopt_opt_bool(ctx, "weights");
	cfg->activations = qopt_opt_bool(ctx, "activations");
	if (!cfg->qk) {
		ps_fail(ctx, QOPT_EDEVICE, "no kernel context");
		return -1;
	}
	if (cfg->mode == MXFP8_FAKE && qopt_opt_is_set(ctx, "format")) {
		ps_fail(ctx, QOPT_EINVALID, "format = %s applies to mode = real only",
			   qopt_opt_string(ctx, "format"));
		return -1;
	}
	if (!cfg->weights && !cfg->activations) {
		ps_fail(ctx, QOPT_EINVALID, "weights = no and activations = no: nothing to do");
		return -1;
	}
	return ps_targets_init(&cfg->tg, ctx, PS_TARGET_ALL);
}

/* ---- the linear layers, collected before any rewrite ---- */
static int linear(const qir_node *n)
{
	return qir_domain_is_default(n->domain) &&
	       (qir_node_is(n, "MatMul") || qir_node_is(n, "Gemm"));
}

static int weight_const(qir_node *n)
{
	int slot = ps_weight_slot(n);

	return slot >= 0 && (size_t)slot < n->ninputs && n->inputs[slot] &&
	       ps_is_const_expr(n->inputs[slot], 16) &&
	       !ps_is_const_expr(n->inputs[0], 16);
}

/* 1 when the targets select layer n (else the reason is said). */
static int selected(struct mxfp8_cfg *cfg, qir_node *n)
{
	struct ps_skip s = { 0 };

	if (!mxfp8_match(cfg, n, &s)) {
		cfg->pattern = cfg->match_in;
		return 1;
	}
	ps_skip_report(cfg->ctx, &s, n->op_type, n->name);
	if (cfg->weights) {	/* its weight stays float (counted, not
				 * held against a pattern: the targets' choice) */
		qir_value *w = ps_stored_value(n->inputs[ps_weight_slot(n)], 0);
		uint64_t numel, nbytes;

		ps_coverage_size(w, &numel, &nbytes);
		if (w)
			ps_coverage_add(&cfg->cov, w->name, numel, nbytes, -1,
					NULL, &s);
	}
	return 0;
}

/* The layer's K from its weight input's declared shape, or -1. */
static int64_t layer_k(qir_node *n)
{
	int slot = ps_weight_slot(n);
	qir_value *w = n->inputs[slot];
	int ax = w->rank > 0 ? ps_reduce_axis(n, slot, w->rank) : -1;

	return ax >= 0 ? w->dims[ax].value : -1;
}

static int layer_activation(struct mxfp8_cfg *cfg, qir_node *n)
{
	struct ps_skip s = { 0 };
	const char *why = NULL;
	char buf[200];
	qir_value *x = n->inputs[0], *q;
	int64_t k = layer_k(n);

	if (qir_node_is(n, "Gemm") && qir_node_attr_int(n, "transA", 0)) {
		ps_skip_set(&s, &mxfp8_skip_act_layout, "input A is transposed "
			    "(transA = 1): K is not its last axis");
	} else if ((why = mxfp8_act_check(x, k, buf, sizeof(buf)))) {
		ps_skip_set(&s, &mxfp8_skip_act_layout, "input '%s': %s", x->name,
			    why);
	}
	if (s.kind) {
		ps_skip_report(cfg->ctx, &s, n->op_type, n->name);
		return 0;
	}
	if (k < 0)
		k = x->dims[x->rank - 1].value;
	q = mxfp8_activation(cfg, x, k, qir_value_elem_type(x), &why);
	if (!q && !why)
		return -1;
	if (!q) {
		ps_skip_set(&s, &mxfp8_skip_act_layout, "input '%s': %s", x->name,
			    why);
		ps_skip_report(cfg->ctx, &s, n->op_type, n->name);
		return 0;
	}
	if (qir_node_set_input(n, 0, q)) {
		ps_fail(cfg->ctx, QOPT_ENOMEM, "out of memory");
		return -1;
	}
	qopt_stat_add(cfg->ctx, "activation inputs quantized", 1);
	return 1;
}

static int layer(struct mxfp8_cfg *cfg, qir_node *n, int *changed)
{
	int rc = 0;

	if (!weight_const(n)) {
		struct ps_skip s = { 0 };

		ps_skip_set(&s, &skip_attention, "both inputs computed at run "
			    "time (not a linear layer)");
		if (ps_targets_op(&cfg->tg, n->op_type))
			ps_skip_report(cfg->ctx, &s, n->op_type, n->name);
		return 0;
	}
	if (!selected(cfg, n))
		return 0;
	if (cfg->weights) {
		rc = mxfp8_weight(cfg, ps_stored_value(n->inputs[ps_weight_slot(n)],
						    0));
		if (rc < 0)
			return -1;
		*changed |= rc == 0;
		if (rc > 0)
			return 0;	/* the layer stays float */
	}
	if (cfg->activations) {
		rc = layer_activation(cfg, n);
		if (rc < 0)
			return -1;
		*changed |= rc > 0;
	}
	return 0;
}

/* 1 when layer n's weight already comes through a dequantizer (an
 * exporter's mark or quantized weight): the exporter chose for it. */
static int marked(qir_node *n)
{
	qir_value *v = n->inputs[ps_weight_slot(n)];
	int depth;

	for (depth = 0; v && v->producer && depth < 8; depth++) {
		qir_node *p = v->producer;

		if (strstr(p->op_type, "DequantizeLinear") ||
		    strstr(p->op_type, "QDQ"))
			return 1;
		v = p->ninputs ? p->inputs[0] : NULL;
	}
	return 0;
}

/* On an export without include=: the float layers it left are said,
 * not quantized (the exporter chose). */
static void left_float(struct mxfp8_cfg *cfg, size_t n)
{
	if (!n)
		return;
	qopt_info(cfg->ctx, "%zu float MatMul/Gemm layer%s left as the "
		  "export made them: the model carries MXFP8 quantizers of its "
		  "own (include = selects more)", n, n == 1 ? "" : "s");
	qopt_stat_add(cfg->ctx, "layers left float (export)", (int64_t)n);
}

static qopt_status mxfp8_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	struct mxfp8_cfg cfg;
	struct mxfp8_nodes l = { linear, NULL, 0, 0 };
	unsigned char *mark = NULL;
	size_t i, nfloat = 0;
	int found = 0, rc = -1;

	*changed = 0;
	if (cfg_init(&cfg, ctx, m)) {
		ps_targets_fini(&cfg.tg);
		return ps_status(-1);
	}
	ps_coverage_init(&cfg.cov, &cfg.tg, "weight");
	/* Layers and their marks before the export's nodes are converted
	 * (fake mode turns marked weights into plain float ones). */
	if (qir_graph_walk(m->graph, mxfp8_collect, &l) ||
	    !(mark = calloc(l.n + 1, 1))) {
		ps_fail(ctx, QOPT_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < l.n; i++) {
		mark[i] = weight_const(l.v[i]) && marked(l.v[i]);
		nfloat += weight_const(l.v[i]) && !mark[i] &&
			  ps_targets_op(&cfg.tg, l.v[i]->op_type);
	}
	if (mxfp8_export(&cfg, &found, changed))
		goto out;
	if (found && !qopt_opt_is_set(ctx, "include")) {
		left_float(&cfg, nfloat);
	} else {
		for (i = 0; i < l.n; i++)
			if (!mark[i] && layer(&cfg, l.v[i], changed))
				goto out;
		ps_coverage_report(ctx, &cfg.cov);
		ps_targets_report(ctx, &cfg.tg, "layer");
	}
	rc = 0;
out:
	free(l.v);
	free(mark);
	free(cfg.acts);
	free(cfg.done);
	ps_coverage_fini(&cfg.cov);
	ps_targets_fini(&cfg.tg);
	return ps_status(rc);
}

static const qopt_pass_info mxfp8_passes[] = {
	{ .name = "mxfp8",
	  .summary = "MXFP8 linear layers: FP8 E4M3 weights and activations "
	  "with E8M0 scales per 32 (TensorRT), or their fake form for ORT",
	  .options = mxfp8_opts, .run = mxfp8_run,
	  .flags = QOPT_PASS_HAS_TARGETS },
	{ 0 }
};

QOPT_PLUGIN("mxfp8", "1.0", mxfp8_passes)
