/*
 * passes/autocast/plugin.c - the autocast pass: options, the run, and
 * what it says (per node kept FLOAT, with the reason; coverage of the
 * layers TensorRT runs on tensor cores; the FLOAT islands; weights).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autocast.h"

static const char *const types[] = { "float16", "bfloat16", NULL };
static const char *const modes[] = { "real", "fake", NULL };

/* The low types' largest finite values. */
#define AUTOCAST_FP16_MAX 65504.0
#define AUTOCAST_BF16_MAX 3.3895313892515355e38

static int cfg_init(struct autocast_cfg *cfg, qopt_ctx *ctx, qir_model *m)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->ctx = ctx;
	cfg->m = m;
	cfg->qk = qopt_kernels(ctx);
	cfg->low = qopt_opt_enum(ctx, "to") == 1 ? QIR_BFLOAT16 : QIR_FLOAT16;
	cfg->low_name = cfg->low == QIR_FLOAT16 ? "FLOAT16" : "BFLOAT16";
	cfg->mode = qopt_opt_enum(ctx, "mode") == 1 ? AUTOCAST_FAKE : AUTOCAST_REAL;
	cfg->keep_io = qopt_opt_bool(ctx, "keep_io_types");
	cfg->upgrade = qopt_opt_bool(ctx, "upgrade");
	cfg->max_reduction = qopt_opt_int(ctx, "max_reduction");
	cfg->init_max = cfg->low == QIR_FLOAT16 ? AUTOCAST_FP16_MAX : AUTOCAST_BF16_MAX;
	cfg->data_max = cfg->init_max;
	if (qopt_opt_is_set(ctx, "data_max"))
		cfg->data_max = qopt_opt_float(ctx, "data_max");
	if (qopt_opt_is_set(ctx, "init_max"))
		cfg->init_max = qopt_opt_float(ctx, "init_max");
	cfg->clamp = qopt_opt_bool(ctx, "clamp");
	cfg->fuse_norm = qopt_opt_bool(ctx, "fuse_norm");
	cfg->opset = qir_model_opset(m, "");
	if (!cfg->qk) {
		qopt_error(ctx, "no kernel context");
		return -1;
	}
	return ps_targets_init(&cfg->tg, ctx, PS_TARGET_INCLUDE |
			       PS_TARGET_EXCLUDE | PS_TARGET_OP_TYPES);
}

static int is_layer(const qir_node *n)
{
	return qir_node_is(n, "Conv") || qir_node_is(n, "ConvTranspose") ||
	       qir_node_is(n, "MatMul") || qir_node_is(n, "Gemm");
}

/* Union-find over the nodes kept FLOAT: an island is a connected set
 * of them (each costs TensorRT a reformat at its borders). */
static size_t find(size_t *p, size_t i)
{
	while (p[i] != i)
		i = p[i] = p[p[i]];
	return i;
}

static size_t islands(struct autocast_cfg *cfg)
{
	size_t *p = malloc((cfg->nnodes ? cfg->nnodes : 1) * sizeof(*p));
	size_t i, k, count = 0;

	if (!p)
		return 0;
	for (i = 0; i < cfg->nnodes; i++)
		p[i] = i;
	for (i = 0; i < cfg->nnodes; i++) {
		struct autocast_node *r = &cfg->nodes[i];

		if (!r->candidate || r->low)
			continue;
		for (k = 0; k < r->n->ninputs; k++) {
			qir_value *v = r->n->inputs[k];
			struct autocast_node *q = v && v->producer ?
					    autocast_node_of(cfg, v->producer) : NULL;

			if (q && q->candidate && !q->low)
				p[find(p, (size_t)(r - cfg->nodes))] =
					find(p, (size_t)(q - cfg->nodes));
		}
	}
	for (i = 0; i < cfg->nnodes; i++)
		count += cfg->nodes[i].candidate && !cfg->nodes[i].low &&
			 find(p, i) == i;
	free(p);
	return count;
}

static const char *label(const qir_node *n)
{
	return n->name[0] ? n->name : n->noutputs && n->outputs[0] ?
	       n->outputs[0]->name : n->op_type;
}

/* What each If/Loop/Scan's body did: its own nodes (a nested body's
 * are said on the nested node's line), counted through the holder's
 * record. */
struct body_count {
	uint64_t low, kept, unranged;
};

static void report_bodies(struct autocast_cfg *cfg)
{
	struct body_count *c = calloc(cfg->nnodes ? cfg->nnodes : 1, sizeof(*c));
	size_t i;

	if (!c)
		return;
	for (i = 0; i < cfg->nnodes; i++) {
		struct autocast_node *r = &cfg->nodes[i];
		qir_node *p;
		struct autocast_node *h;

		/* (the rewrite has erased the Casts it made redundant: a
		 * record that is no candidate may name a freed node) */
		if (!r->candidate)
			continue;
		p = r->n->graph->parent_node;
		h = p ? autocast_node_of(cfg, p) : NULL;
		if (!h)
			continue;
		c[h - cfg->nodes].low += r->low != 0;
		c[h - cfg->nodes].kept += !r->low;
		c[h - cfg->nodes].unranged += r->unranged != 0;
	}
	for (i = 0; i < cfg->nnodes; i++) {
		struct autocast_node *r = &cfg->nodes[i];

		if (!r->body)
			continue;
		qopt_info(cfg->ctx, "body of '%s' (%s): %llu node(s) %s, %llu "
			  "kept FLOAT; its inputs and outputs keep their types",
			  label(r->n), r->n->op_type,
			  (unsigned long long)c[i].low, cfg->low_name,
			  (unsigned long long)c[i].kept);
		if (c[i].unranged)
			qopt_info(cfg->ctx, "body of '%s': activation ranges of "
				  "%llu node(s) not checked: the calibration "
				  "has no range for their tensors (`qopt "
				  "calibrate` measures If branches and Loop "
				  "bodies, not Scan bodies, an If inside a Loop "
				  "or a Loop's tensor of a shape not known in "
				  "full)", label(r->n),
				  (unsigned long long)c[i].unranged);
	}
	free(c);
}

static void report(struct autocast_cfg *cfg)
{
	uint64_t low = 0, cand = 0, layers = 0, layers_low = 0;
	size_t i;

	for (i = 0; i < cfg->nnodes; i++) {
		struct autocast_node *r = &cfg->nodes[i];
		qir_node *n = r->n;

		if (!r->candidate)
			continue;
		cand++;
		low += r->low;
		if (is_layer(n)) {
			layers++;
			layers_low += r->low;
		}
		if (!r->low && r->why.kind)
			ps_skip_report(cfg->ctx, &r->why, "node", label(n));
	}
	report_bodies(cfg);
	qopt_stat_add(cfg->ctx, "nodes converted", (int64_t)low);
	if (cfg->clamped)
		qopt_warn(cfg->ctx, "clamp = yes: %llu weight element(s) beyond "
			  "%s's range clamped to its largest value",
			  (unsigned long long)cfg->clamped, cfg->low_name);
	qopt_info(cfg->ctx, "coverage: %llu of %llu float nodes in %s "
		  "(Conv/ConvTranspose/MatMul/Gemm: %llu of %llu), %llu kept "
		  "FLOAT in %zu island(s)%s", (unsigned long long)low,
		  (unsigned long long)cand, cfg->low_name,
		  (unsigned long long)layers_low, (unsigned long long)layers,
		  (unsigned long long)(cand - low), islands(cfg),
		  cfg->mode == AUTOCAST_FAKE ? " (fake: FLOAT compute, values "
		  "rounded through the low type)" : "");
	qopt_info(cfg->ctx, "rewrite: %llu weight(s) %s (%llu bytes before, "
		  "%llu after; %llu duplicated for FLOAT readers), %llu Constant(s), "
		  "%llu Cast(s) inserted, %llu removed%s",
		  (unsigned long long)cfg->weights,
		  cfg->mode == AUTOCAST_FAKE ? "rounded" : "converted",
		  (unsigned long long)cfg->weight_bytes_in,
		  (unsigned long long)cfg->weight_bytes_out,
		  (unsigned long long)cfg->dup_weights,
		  (unsigned long long)cfg->constants,
		  (unsigned long long)cfg->casts,
		  (unsigned long long)cfg->removed_casts,
		  cfg->keep_io ? "; graph inputs and outputs keep their types" :
		  "");
}

/* Weight elements the conversion flushes to zero or to subnormals, over
 * the weights of g that low nodes read (bodies' too). */
static int underflow_graph(qir_graph *g, void *arg)
{
	struct autocast_cfg *cfg = arg;
	size_t i, k;

	for (i = 0; i < g->ninits; i++) {
		qir_value *v = g->inits[i];
		qir_error err = { 0 };
		uint64_t z, s;
		float amax;
		int read_low = 0;

		if (!v->init || v->init->dtype != QIR_FLOAT || v->is_input)
			continue;
		for (k = 0; k < v->nuses && !read_low; k++) {
			struct autocast_node *r = autocast_node_of(cfg, v->uses[k].node);

			read_low = r && r->low &&
				   ps_slot(r->op->t_in, (size_t)v->uses[k].index);
		}
		if (!read_low)
			continue;
		if (autocast_weight_scan(cfg, v->init, &amax, &z, &s, &err) < 0) {
			qopt_error(cfg->ctx, "weight '%s': %s", v->name, err.msg);
			return -1;
		}
		cfg->underflow_zero += z;
		cfg->underflow_sub += s;
		if (cfg->clamp)
			cfg->clamped += autocast_weight_beyond(cfg, v->init);
	}
	return 0;
}

static int underflow(struct autocast_cfg *cfg)
{
	if (qir_graph_walk(cfg->m->graph, underflow_graph, cfg))
		return -1;
	if (cfg->underflow_zero || cfg->underflow_sub)
		qopt_info(cfg->ctx, "weights: %llu nonzero element(s) become 0 "
			  "and %llu subnormal in %s",
			  (unsigned long long)cfg->underflow_zero,
			  (unsigned long long)cfg->underflow_sub, cfg->low_name);
	qopt_stat_add(cfg->ctx, "weight elements flushed to zero",
		      (int64_t)cfg->underflow_zero);

	return 0;
}

static qopt_status autocast_run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	struct autocast_cfg cfg;
	int rc = -1;

	*changed = 0;
	if (cfg_init(&cfg, ctx, m) == 0 &&
	    autocast_ranges_load(&cfg, qopt_opt_string(ctx, "calibration")) == 0 &&
	    autocast_keep_load(&cfg, qopt_opt_string(ctx, "keep_file")) == 0 &&
	    (!cfg.fuse_norm ||
	     (autocast_fuse_norms(&cfg, &cfg.keep, &cfg.nkeep) == 0 &&
	      autocast_fuse_rms(&cfg, &cfg.keep, &cfg.nkeep) == 0)) &&
	    autocast_decide(&cfg) == 0 &&
	    autocast_keep_check(&cfg, qopt_opt_string(ctx, "keep_file")) == 0 &&
	    underflow(&cfg) == 0 && autocast_rewrite(&cfg, changed) == 0) {
		report(&cfg);
		ps_targets_report(ctx, &cfg.tg, "node");
		rc = 0;
	}
	free(cfg.nodes);
	free(cfg.keep);
	qopt_calib_free(cfg.cal);
	autocast_keep_free(&cfg);
	autocast_scans_free(&cfg);
	ps_targets_fini(&cfg.tg);
	*changed |= cfg.fused > 0 || cfg.rms_fused > 0;
	return rc ? QOPT_EPASS : QOPT_OK;
}

static const qopt_option_spec autocast_opts[] = {
	{ .name = "to", .type = QOPT_OPT_ENUM, .default_value = "float16",
	  .choices = types,
	  .help = "the low type: float16, or bfloat16 (opset >= 22 for Conv "
	  "and pooling; raised when upgrade = yes)" },
	{ .name = "mode", .type = QOPT_OPT_ENUM, .default_value = "real",
	  .choices = modes,
	  .help = "real: the low type in the graph (for TensorRT); fake: FLOAT "
	  "compute with every tensor real mode stores low rounded through "
	  "Cast(low) -> Cast(FLOAT) where it is made (what ONNX Runtime can "
	  "measure faithfully)" },
	{ .name = "keep_io_types", .type = QOPT_OPT_BOOL, .default_value = "yes",
	  .help = "graph inputs and outputs keep their FLOAT type (Casts at "
	  "the border)" },
	{ .name = "upgrade", .type = QOPT_OPT_BOOL, .default_value = "yes",
	  .help = "raise the opset where an op's low-type form needs it "
	  "(BFLOAT16 Conv: 22); no: such nodes stay FLOAT, said" },
	{ .name = "include", .type = QOPT_OPT_LIST, .default_value = "*",
	  .help = "globs over node and output names to convert" },
	{ .name = "exclude", .type = QOPT_OPT_LIST, .default_value = NULL,
	  .help = "globs over the same names to keep FLOAT (wins over "
	  "include)" },
	{ .name = "op_types", .type = QOPT_OPT_LIST, .default_value = NULL,
	  .help = "only these op types are converted (default: every op "
	  "autocast knows)" },
	{ .name = "init_max", .type = QOPT_OPT_FLOAT, .default_value = NULL,
	  .flags = QOPT_OPT_HAS_MIN, .min = 0,
	  .help = "a node reading a weight with |x| above this stays FLOAT "
	  "(default: the low type's largest value, 65504 for float16)" },
	{ .name = "fuse_norm", .type = QOPT_OPT_BOOL, .default_value = "yes",
	  .help = "fuse decomposed LayerNorm (ReduceMean, Sub, Pow, ReduceMean, "
	  "Add, Sqrt, Div, Mul, Add) into LayerNormalization (opset 17) and "
	  "decomposed RMSNorm (Pow, ReduceMean, Add, Sqrt, Div(1, .) or "
	  "Reciprocal, Mul, Mul) into RMSNormalization (opset 23), raised when "
	  "upgrade = yes; TensorRT computes them in FLOAT inside the layer; a "
	  "unit that cannot be fused stays FLOAT whole" },
	{ .name = "clamp", .type = QOPT_OPT_BOOL, .default_value = "no",
	  .help = "yes: a weight beyond the low type's range is clamped to its "
	  "largest value (counted, a warning) instead of keeping its node "
	  "FLOAT; Inf stays Inf" },
	{ .name = "calibration", .type = QOPT_OPT_STRING,
	  .flags = QOPT_OPT_PATH,
	  .help = "activation ranges: the file of `qopt calibrate --passes "
	  "autocast` (or give qopt --calibration-data DIR); a node whose "
	  "input or output reaches beyond data_max stays FLOAT" },
	{ .name = "data_max", .type = QOPT_OPT_FLOAT, .default_value = NULL,
	  .flags = QOPT_OPT_HAS_MIN, .min = 0,
	  .help = "with calibration: activations above this keep their nodes "
	  "FLOAT (default: the low type's largest value; AutoCast's 512 keeps "
	  "more FLOAT for precision)" },
	{ .name = "keep_file", .type = QOPT_OPT_STRING,
	  .flags = QOPT_OPT_PATH,
	  .help = "nodes to keep FLOAT by measured error: the file of `qopt "
	  "autocast-tune` (each node with the error it added); a node it "
	  "names that is not in the model is an error" },
	{ .name = "max_reduction", .type = QOPT_OPT_INT, .default_value = "0",
	  .flags = QOPT_OPT_HAS_MIN, .min = 0,
	  .help = "Softmax, ReduceSum and ReduceMean over more elements than "
	  "this stay FLOAT (0: no limit)" },
	{ 0 }
};

static const qopt_pass_info autocast_passes[] = {
	{ .name = "autocast",
	  .summary = "convert a float model to FLOAT16 or BFLOAT16, keeping "
	  "FLOAT islands where a rule says so (strongly typed TensorRT)",
	  .options = autocast_opts, .run = autocast_run,
	  .flags = QOPT_PASS_HAS_TARGETS,
	  .calibration_targets = autocast_calibration_targets },
	{ 0 }
};

QOPT_PLUGIN("autocast", "1.0", autocast_passes)
