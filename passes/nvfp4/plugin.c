/*
 * passes/nvfp4/plugin.c - the nvfp4-weights pass: entry point,
 * options, and the walk over the model's weights.
 *
 * Weights are handled one at a time (find, fold if needed, quantize,
 * rewrite, release) so that peak memory stays near the largest one.
 */
#include <stdio.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "nvfp4.h"
#include "../support/fail.h"

static const char *const known_ops[] = { "MatMul", "Gemm", "Conv", NULL };
/* Indexed by enum nvfp4_mode. */
static const char *const modes[] = { "real", "fake", NULL };
static const char *const rotations[] = { "no", "rotate_back", NULL };
/* Indexed as cfg_init reads it. */
static const char *const targets[] = { "tensorrt", "ort", NULL };

/* Options of both passes (nvfp4-weights is nvfp4 without activations). */
#define NVFP4_COMMON_OPTS \
	{ .name = "include", .type = QOPT_OPT_LIST, .default_value = "*", \
	  .help = "globs over consumer node names and weight names to quantize" }, \
	{ .name = "exclude", .type = QOPT_OPT_LIST, .default_value = NULL, \
	  .help = "globs over the same names to leave alone (wins over include)" }, \
	{ .name = "op_types", .type = QOPT_OPT_LIST, \
	  .default_value = "MatMul,Gemm", .choices = known_ops, \
	  .help = "consumers whose weight input is quantized " \
	  "(Conv blocks along the input channels)" }, \
	{ .name = "min_size", .type = QOPT_OPT_INT, .default_value = "4096", \
	  .flags = QOPT_OPT_HAS_MIN, .min = 0, \
	  .help = "weights with fewer elements are left alone" }, \
	{ .name = "mode", .type = QOPT_OPT_ENUM, .default_value = "real", \
	  .choices = modes, \
	  .help = "real: FLOAT4E2M1 + FP8 scales + DequantizeLinear (opset 23); " \
	  "fake: dequantized values in the weight's own type" }, \
	{ .name = "constant_threshold", .type = QOPT_OPT_INT, \
	  .default_value = "65536", .flags = QOPT_OPT_HAS_MIN, .min = -1, \
	  .help = "Constant tensors over this many bytes become initializers " \
	  "(-1: never)" }, \
	{ .name = "block_size", .type = QOPT_OPT_INT, .default_value = "16", \
	  .flags = QOPT_OPT_HAS_MIN | QOPT_OPT_HAS_MAX, \
	  .min = QK_NVFP4_BLOCK, .max = QK_NVFP4_BLOCK, \
	  .help = "NVFP4 block along K; the format fixes it at 16" }, \
	{ .name = "target", .type = QOPT_OPT_ENUM, .default_value = "tensorrt", \
	  .choices = targets, \
	  .help = "the runtime the model is for: tensorrt refuses Conv in " \
	  "op_types (TensorRT has no NVFP4 convolution; the pass fp8 is its " \
	  "option); ort keeps NVFP4 Conv weights for ONNX Runtime" }, \
	{ .name = "rotate", .type = QOPT_OPT_ENUM, .default_value = "no", \
	  .choices = rotations, \
	  .help = "rotate_back (fake mode only): quantize R W (normalized " \
	  "Hadamard along K, block K & -K) and store R fq(R W), so that no " \
	  "activation rotation is needed" },

static const qopt_option_spec nvfp4_opts[] = {
	NVFP4_COMMON_OPTS
	{ 0 }
};

static const qopt_option_spec nvfp4_act_opts[] = {
	NVFP4_COMMON_OPTS
	{ .name = "activations", .type = QOPT_OPT_BOOL, .default_value = "no",
	  .help = "W4A4: TensorRT's dynamic NVFP4 quantization on input A of "
	  "every selected linear MatMul/Gemm (needs calibration)" },
	{ .name = "calibration", .type = QOPT_OPT_STRING,
	  .flags = QOPT_OPT_PATH,
	  .help = "activations: the file of `qopt calibrate --passes "
	  "nvfp4:activations=yes` (global scale amax/2688)" },
	{ 0 }
};

static int cfg_init(struct nvfp4_cfg *cfg, qopt_ctx *ctx, qir_model *m,
		    int act)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->ctx = ctx;
	cfg->m = m;
	if (act) {
		cfg->activations = qopt_opt_bool(ctx, "activations");
		cfg->calib_path = qopt_opt_string(ctx, "calibration");
	}
	cfg->qk = qopt_kernels(ctx);
	/* The manager has checked mode's word and block_size's range. */
	cfg->mode = qopt_opt_enum(ctx, "mode") == 1 ? NVFP4_FAKE : NVFP4_REAL;
	if (nvfp4_rotate_option(cfg, qopt_opt_string(ctx, "rotate")))
		return -1;
	cfg->constant_threshold = qopt_opt_int(ctx, "constant_threshold");
	if (!cfg->qk) {
		ps_fail(ctx, QOPT_EDEVICE, "no kernel context");
		return -1;
	}
	if (ps_targets_init(&cfg->tg, ctx, PS_TARGET_ALL))
		return -1;
	/* TensorRT runs convolutions in FP8 or INT8 only (ModelOpt's NVFP4
	 * recipes keep Conv in FP8 for that reason): an NVFP4 Conv would
	 * fall back to a dequantized float Conv there, or fail. */
	if (ps_targets_op(&cfg->tg, "Conv") &&
	    qopt_opt_enum(ctx, "target") == 0) {
		ps_fail(ctx, QOPT_EUNSUPPORTED, "op_types includes Conv, but TensorRT has no NVFP4 "
			   "convolution (it runs Conv in FP8 or INT8): quantize "
			   "convolutions with the pass fp8 (docs/fp8.md), or set "
			   "target=ort to keep NVFP4 Conv weights for ONNX "
			   "Runtime");
		return -1;
	}
	return 0;
}

/* ---- candidates: every stored value some consumer reads as a weight,
 * each once, in graph order ---- */
struct cands {
	struct nvfp4_cfg *cfg;
	qir_value **v;
	size_t n, cap;
	uint64_t total_bytes;
};

static int cands_add(struct cands *c, qir_value *v)
{
	size_t i;

	/* Models have thousands of weights at most: a scan is cheap next
	 * to quantizing them. */
	for (i = c->n; i > 0; i--)
		if (c->v[i - 1] == v)
			return 0;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		qir_value **nv = realloc(c->v, cap * sizeof(*nv));

		if (!nv)
			return -1;
		c->v = nv;
		c->cap = cap;
	}
	c->v[c->n++] = v;
	if (qir_value_const(v))
		c->total_bytes += qir_value_const(v)->nbytes;
	return 0;
}

/* An attention MatMul reads two activations: said once, by node, as
 * what it is (not as a weight the folder failed on). */
static int activation(struct nvfp4_cfg *cfg, const qir_node *n, int slot)
{
	struct ps_skip s = { 0 };

	if (!ps_skip_if_activation(n, slot, &s))
		return 0;
	if (ps_targets_op(&cfg->tg, n->op_type))
		ps_skip_report(cfg->ctx, &s, n->op_type, n->name);
	return 1;
}

static int collect_graph(qir_graph *g, void *arg)
{
	struct cands *c = arg;
	qir_node *n;

	qir_graph_for_each_node(g, n) {
		int slot = ps_weight_slot(n);
		qir_value *in;

		if (ps_is_placeholder(n) && n->ninputs >= 1 &&
		    n->inputs[0]) {
			/* on an activation: export.c */
			if (ps_runtime_source(n->inputs[0]))
				continue;
			c->cfg->placeholders = 1;
			if (cands_add(c, ps_stored_value(n->inputs[0],
							 NVFP4_WALK)))
				return -1;
			continue;
		}
		if (slot < 0 || !(in = n->inputs[slot]))
			continue;
		/* A MatMul over two constants is part of a constant
		 * subgraph (a rotation folded into a weight), not a use. */
		if (ps_is_const_expr(n->inputs[0], 16))
			continue;
		if (activation(c->cfg, n, slot))
			continue;
		if (cands_add(c, ps_stored_value(in, NVFP4_WALK)))
			return -1;
	}
	return 0;
}

/* ---- one weight ---- */

const struct ps_skip_kind nvfp4_skip_k_block = {
	"skipped (K not a multiple of 16)", PS_SKIP_INFO
};

/* Where the weight's bytes are: borrowed constant or folded (caller
 * then owns *out). 0, or 1 when skipped. */
static int source(struct nvfp4_weight *w, qir_tensor **out)
{
	qir_value *v = w->stored;

	*out = ps_weight_tensor(v, NVFP4_FOLD_MAX_BYTES, &w->folded, &w->skip);
	if (!*out)
		return 1;
	if (!w->folded) {
		w->tensor = *out;
		/* a Constant node's output (an initializer has none) */
		w->constant = v->producer;
	}
	return 0;
}

/* rotate = rotate_back quantizes R W, whose sums of a block of b
 * values (b = K & -K, the toolkit's block) can overflow FLOAT for a
 * finite W: past FLT_MAX / b the recipe would meet Inf when the writer
 * runs it, so such a weight is judged here, from the scan's max. */
static int rotated_may_overflow(const struct nvfp4_weight *w,
				const qir_tensor *t)
{
	int64_t k = t->dims[w->kaxis], b = k & -k;

	return w->amax >= 0 && (double)w->amax > FLT_MAX / (double)b;
}

/* Inf has no finite NVFP4 scale, and NaN no code: such a weight stays
 * as it is, with a warning (the kind's level). */
static void check_finite(struct nvfp4_cfg *cfg, struct nvfp4_weight *w,
			 qir_tensor *t)
{
	qir_error err = { 0 };
	const char *what;
	uint64_t at;
	int rc = ps_nonfinite(cfg->qk, t, &at, &what, &w->amax, &err);

	if (rc < 0)
		ps_skip_set(&w->skip, &ps_skip_unreadable, "%s", err.msg);
	else if (rc > 0)
		ps_skip_set(&w->skip, &ps_skip_nonfinite, "holds %s at element "
			    "%llu, which NVFP4 cannot represent", what,
			    (unsigned long long)at);
	else if (cfg->rotate_back && rotated_may_overflow(w, t))
		ps_skip_set(&w->skip, &ps_skip_nonfinite, "holds |x| up to %g: "
			    "rotated (rotate = rotate_back) it may exceed "
			    "FLOAT's range, which NVFP4 cannot represent",
			    (double)w->amax);
}

static void check_tensor(struct nvfp4_cfg *cfg, struct nvfp4_weight *w,
			 qir_tensor *t)
{
	int dt = t->dtype;

	if (w->skip.kind)
		return;
	if (!ps_float_weight_type(dt))
		ps_skip_set(&w->skip, &ps_skip_not_float, "type %s",
			    qir_dtype_name(dt) ? qir_dtype_name(dt) : "?");
	else if (w->kaxis < 0 || w->kaxis >= t->rank)
		ps_skip_set(&w->skip, &ps_skip_layout, "rank %d", t->rank);
	else if (t->dims[w->kaxis] % QK_NVFP4_BLOCK)
		ps_skip_set(&w->skip, &nvfp4_skip_k_block,
			    "K = %lld (axis %d)", (long long)t->dims[w->kaxis],
			    w->kaxis);
	else if (!qir_tensor_numel(t))
		ps_skip_set(&w->skip, &ps_skip_empty, "no elements (K = %lld)",
			    (long long)t->dims[w->kaxis]);
	else if ((int64_t)qir_tensor_numel(t) < cfg->tg.min_size &&
		 !nvfp4_has_placeholder(w))
		ps_skip_set(&w->skip, &ps_skip_below_min_size,
			    "%llu elements < %lld",
			    (unsigned long long)qir_tensor_numel(t),
			    (long long)cfg->tg.min_size);
	else
		check_finite(cfg, w, t);
}

/* Real mode writes FLOAT4E2M1 DequantizeLinear: opset 23 (IR 11),
 * raised by the manager within the pipeline's policy. */
static qopt_status real_opset(struct nvfp4_cfg *cfg)
{
	qopt_status rc = qopt_require_opset(cfg->ctx, 23,
					    "NVFP4 (FLOAT4E2M1 DequantizeLinear)");

	if (rc && rc != QOPT_ESKIPPED)
		qopt_info(cfg->ctx, "mode = fake needs no new opset");
	return rc;
}

/* A weight left float, counted with its bytes (t's when it was read). */
static void skipped(struct nvfp4_cfg *cfg, const struct nvfp4_weight *w,
		    const qir_tensor *t)
{
	uint64_t numel, nbytes;

	if (t) {
		numel = qir_tensor_numel(t);
		nbytes = t->nbytes;
	} else {
		ps_coverage_size(w->stored, &numel, &nbytes);
	}
	ps_coverage_add(&cfg->cov, w->stored->name, numel, nbytes, w->pattern,
			NULL, &w->skip);
}

static int process(struct nvfp4_cfg *cfg, struct nvfp4_weight *w,
		   int *changed)
{
	qir_tensor *t = NULL;
	uint64_t before, numel;
	char fmt[32];
	int rc;

	if (ps_collect_uses(w->stored, NVFP4_WALK, &w->uses, &w->skip))
		return -1;
	if (!w->uses.n)
		ps_skip_first(&w->skip, &ps_skip_shared, "no consumer");
	if (w->uses.n)
		nvfp4_select(cfg, w);
	if (!w->skip.kind && ps_fake_recorded(cfg->m, w->stored->name, fmt,
					      sizeof(fmt)))
		ps_skip_set(&w->skip, &ps_skip_fake_quantized, "it holds %s "
			    "fake-quantized values already (metadata %s): "
			    "quantizing them again would round twice", fmt,
			    PS_FAKE_META);
	if (w->skip.kind || source(w, &t))
		goto skipped;
	if (!ps_uses_kaxis(&w->uses, t->rank, &w->kaxis, &w->skip))
		check_tensor(cfg, w, t);
	if (w->skip.kind)
		goto skipped;
	rc = cfg->mode == NVFP4_REAL ? real_opset(cfg) : QOPT_OK;
	if (rc == QOPT_ESKIPPED) {
		ps_skip_set(&w->skip, &ps_skip_bisect,
			    "the opset upgrade it needs did not run");
		goto skipped;
	}
	if (rc)
		goto failed;
	if (!qopt_may_rewrite(cfg->ctx, "quantize weight '%s' to NVFP4 (K axis %d)",
			      w->stored->name, w->kaxis)) {
		ps_skip_set(&w->skip, &ps_skip_bisect, "the rewrite gate said no");
		goto skipped;
	}
	before = t->nbytes;
	numel = qir_tensor_numel(t);
	qopt_debug(cfg->ctx, "weight '%s': %s, K axis %d", w->stored->name,
		   w->folded ? "constant subgraph" : w->constant ?
		   "Constant node" : "initializer", w->kaxis);
	/* counted first: the rewrite may remove the stored value (an error
	 * fails the pass, so the count is never said wrong) */
	ps_coverage_add(&cfg->cov, w->stored->name, numel, before, w->pattern,
			cfg->mode == NVFP4_REAL ? "nvfp4" : "nvfp4-fake", NULL);
	if (cfg->mode != NVFP4_REAL &&
	    ps_fake_record(cfg->m, w->stored->name, "nvfp4") < 0) {
		ps_fail(cfg->ctx, QOPT_ENOMEM, "out of memory");
		goto failed;
	}
	rc = nvfp4_rewrite(cfg, w, t);	/* takes a folded t */
	if (rc)
		return -1;
	*changed = 1;
	qopt_stat_add(cfg->ctx, "weights quantized", 1);
	qopt_stat_add(cfg->ctx, "bytes before", (int64_t)before);
	/* What was written: FP4 codes + FP8 scales + the FP32 global
	 * scale, or in fake mode the dequantized weight in its own type. */
	qopt_stat_add(cfg->ctx, "bytes after", (int64_t)w->written);
	return 0;
skipped:
	skipped(cfg, w, t);
	if (w->folded && t)
		qir_tensor_free(t);
	ps_skip_report(cfg->ctx, &w->skip, "weight", w->stored->name);
	return 0;
failed:
	if (w->folded && t)
		qir_tensor_free(t);
	return -1;
}

/* A placeholder that is still there has no standard replacement:
 * the model would not run outside TensorRT. */
static int leftover_placeholders(qir_graph *g, void *arg)
{
	struct nvfp4_cfg *cfg = arg;
	qir_node *n;

	qir_graph_for_each_node(g, n) {
		if (!ps_is_placeholder(n))
			continue;
		qopt_warn(cfg->ctx, "trt::TRT_FP4QDQ node '%s' was not "
			  "replaced (see the skipped weight above)", n->name);
		qopt_stat_add(cfg->ctx, "TRT_FP4QDQ placeholders left", 1);
	}
	return 0;
}

/* Starts reading a mapped candidate in, so that a cold page cache is
 * read ahead at disk speed (and, for the next weight, while the
 * current one is quantized) instead of a page per fault. A hint. */
static void read_ahead(qir_value *v)
{
	qir_tensor *t = v ? qir_value_const(v) : NULL;
	qir_error err = { 0 };

	if (t)
		(void)qir_tensor_advise(t, QIR_ADVISE_WILLNEED, &err);
}

/* The linear layers, before the weights' rewrite changes their B. */
static int collect_linear(qir_graph *g, void *arg)
{
	struct nvfp4_cfg *cfg = arg;
	qir_node *n;

	qir_graph_for_each_node(g, n)
		if (nvfp4_is_linear(n) && nvfp4_act_remember(cfg, n))
			return -1;
	return 0;
}

static qopt_status run(qopt_ctx *ctx, qir_model *m, int *changed, int act)
{
	struct nvfp4_cfg cfg;
	struct cands c = { &cfg, NULL, 0, 0, 0 };
	uint64_t done = 0;
	size_t i;
	int rc = -1;

	*changed = 0;
	if (cfg_init(&cfg, ctx, m, act) || nvfp4_act_prepare(&cfg)) {
		ps_targets_fini(&cfg.tg);
		nvfp4_act_fini(&cfg);
		return ps_status(-1);
	}
	ps_coverage_init(&cfg.cov, &cfg.tg, "weight");
	if ((cfg.activations && qir_graph_walk(m->graph, collect_linear, &cfg))
	    || qir_graph_walk(m->graph, collect_graph, &c)) {
		ps_fail(ctx, QOPT_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < c.n; i++) {
		struct nvfp4_weight w;
		qir_tensor *k = qir_value_const(c.v[i]);
		uint64_t size = k ? k->nbytes : 0;

		if (i == 0)
			read_ahead(c.v[0]);
		if (i + 1 < c.n)
			read_ahead(c.v[i + 1]);
		memset(&w, 0, sizeof(w));
		w.stored = c.v[i];
		w.graph = c.v[i]->graph;
		w.kaxis = -1;
		w.amax = -1.0f;
		w.pattern = -1;
		rc = process(&cfg, &w, changed);
		ps_uses_free(&w.uses);
		if (rc)
			goto out;
		done += done + size <= c.total_bytes ? size : 0;
		qopt_progress(ctx, done, c.total_bytes, "nvfp4 weights");
	}
	rc = -1;
	if (nvfp4_export_activations(&cfg, changed))
		goto out;
	if (qir_graph_walk(m->graph, leftover_placeholders, &cfg))
		goto out;
	if (nvfp4_activations(&cfg, changed))
		goto out;
	if (nvfp4_move_constants(&cfg, changed))
		goto out;
	ps_coverage_report(ctx, &cfg.cov);
	ps_targets_report(ctx, &cfg.tg, "weight");
	rc = 0;
out:
	ps_coverage_fini(&cfg.cov);
	nvfp4_act_fini(&cfg);
	free(c.v);
	free(cfg.codes_buf);
	free(cfg.scales_buf);
	ps_targets_fini(&cfg.tg);
	return ps_status(rc);
}

static qopt_status nvfp4_weights_run(qopt_ctx *ctx, qir_model *m,
				     int *changed)
{
	return run(ctx, m, changed, 0);
}

static qopt_status nvfp4_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	return run(ctx, m, changed, 1);
}

static const qopt_pass_info nvfp4_passes[] = {
	{ .name = "nvfp4-weights",
	  .summary = "quantize MatMul/Gemm weights to NVFP4 (FP4 E2M1, FP8 block scales)",
	  .options = nvfp4_opts, .run = nvfp4_weights_run,
	  .flags = QOPT_PASS_HAS_TARGETS },
	{ .name = "nvfp4",
	  .summary = "NVFP4 weights and, with activations = yes and a "
	  "calibration file, TensorRT's dynamic NVFP4 on linear inputs (W4A4)",
	  .options = nvfp4_act_opts, .run = nvfp4_run,
	  .flags = QOPT_PASS_HAS_TARGETS,
	  .calibration_targets = nvfp4_calibration_targets },
	{ 0 }
};

QOPT_PLUGIN("nvfp4-weights", "1.0", nvfp4_passes)
