/*
 * passes/nvfp4/nvfp4.h - shared by the files of the
 * nvfp4-weights pass (not installed; the pass sees only qopt/qopt.h).
 *
 * The pass works on "stored weights": the value whose constant bytes
 * are rewritten (an initializer, a Constant node's output, or the
 * output of a constant subgraph). A stored weight reaches its
 * consumers (MatMul B, Gemm B, Conv W) through layout-only nodes
 * (Transpose, Identity, Cast, trt::TRT_FP4QDQ), which the pass looks
 * through to find the reduction axis K in the stored coordinates
 * (passes/support/weight.h).
 */
#ifndef QOPT_PASSES_NVFP4_H
#define QOPT_PASSES_NVFP4_H

#include <qopt/qopt.h>
#include <qopt/calib.h>

#include "../support/support.h"

#define NVFP4_FOLD_MAX_BYTES (UINT64_C(8) << 30)
/* Layout nodes the pass looks through: the toolkit's, and the
 * exporter's TRT_FP4QDQ marks. */
#define NVFP4_WALK PS_WALK_PLACEHOLDER

enum nvfp4_mode {
	NVFP4_REAL = 0,	/* FLOAT4E2M1 + FP8 scales + two DequantizeLinear */
	NVFP4_FAKE = 1,	/* dequantized values in the weight's own type */
};

struct nvfp4_cfg {
	qopt_ctx *ctx;
	qir_model *m;
	qk_ctx *qk;
	int mode;
	struct ps_targets tg;	/* include, exclude, op_types, min_size */
	int64_t constant_threshold;
	int rotate_back;	/* fake mode: store R fq(R W) */
	/* Codes and block scales of the weight being quantized, reused
	 * from weight to weight (owned), so that each big weight costs no
	 * fresh pages before its bytes go to the spill file. */
	uint8_t *codes_buf, *scales_buf;
	size_t codes_cap, scales_cap;
	/* pass nvfp4, activations = yes (act.c) */
	int activations;
	const char *calib_path;
	qopt_calib *cal;	/* owned */
	qir_node **lin;			/* linear nodes, graph order */
	size_t nlin, caplin;
	int placeholders;		/* the model carries TRT_FP4QDQ */
	struct ps_coverage cov;		/* every candidate's outcome */
};

struct nvfp4_weight {
	qir_value *stored;
	qir_graph *graph;	/* where stored is defined */
	qir_tensor *tensor;	/* borrowed constant, NULL when folded */
	qir_node *constant;	/* Constant node producing stored, or NULL */
	int folded;		/* computed: needs qir_const_eval */
	struct ps_uses uses;	/* owned: ps_uses_free */
	int kaxis;		/* in stored coordinates, once known */
	struct ps_skip skip;	/* why it is left alone, once it is */
	int pattern;		/* the include pattern selecting it, or -1 */
	uint64_t written;	/* bytes of the tensors the rewrite added */
	/* max |weight| from the Inf/NaN scan, or -1 where none ran: the
	 * real-mode recipe then reads the weight once, not twice. */
	float amax;
};

/* Skip kinds of this pass (the shared ones: skip.h). */
extern const struct ps_skip_kind nvfp4_skip_k_block, nvfp4_skip_mixed,
	nvfp4_skip_export_float;

/* select.c: sets w->skip when the targets leave the weight alone. */
void nvfp4_select(struct nvfp4_cfg *cfg, struct nvfp4_weight *w);
int nvfp4_has_placeholder(const struct nvfp4_weight *w);

/* rewrite.c: quantizes one weight whose bytes t holds (w->tensor, or,
 * when w->folded, the folder's result: then t is taken over and freed
 * here). Returns 0, or -1 after qopt_error. */
int nvfp4_rewrite(struct nvfp4_cfg *cfg, struct nvfp4_weight *w,
		  qir_tensor *t);

/* rotate.c: option rotate = no | rotate_back (refused in real mode);
 * and the fake values R fq(R W) of src into dst (dtype), for the fake
 * recipe (rewrite.c): 0 or a kernel code, *step naming what failed. */
int nvfp4_rotate_option(struct nvfp4_cfg *cfg, const char *v);
int nvfp4_fake_rotated_run(qk_ctx *kc, int dtype, const void *src,
			   size_t outer, size_t k, size_t inner, void *dst,
			   const char **step);

/* act.c: W4A4, the dynamic NVFP4 chain on input A of linear layers. */
int nvfp4_is_linear(const qir_node *n);
int nvfp4_act_remember(struct nvfp4_cfg *cfg, qir_node *n);
int nvfp4_act_prepare(struct nvfp4_cfg *cfg);	/* loads the file */
int nvfp4_activations(struct nvfp4_cfg *cfg, int *changed);
void nvfp4_act_fini(struct nvfp4_cfg *cfg);
qopt_status nvfp4_calibration_targets(qopt_ctx *ctx, qir_model *m);
/* The chain (cfg->mode's form) on x before node at, global scale
 * gscale, x of rank rank and last dimension k; its output (x's type),
 * NULL when it cannot be built. */
qir_value *nvfp4_act_chain(struct nvfp4_cfg *cfg, qir_node *at, qir_value *x,
			   float gscale, int rank, int64_t k);
int nvfp4_act_opset(struct nvfp4_cfg *cfg);
float nvfp4_act_gscale(struct nvfp4_cfg *cfg, const qir_value *x,
		       struct ps_skip *s);

/* export.c: what an exporter wrote. TRT_FP4QDQ on an activation (an
 * error, or the dynamic chain with a calibrated amax); in fake mode
 * TRT_FP4DynamicQuantize chains -> the fake form; in real mode their
 * outputs typed. */
int nvfp4_export_activations(struct nvfp4_cfg *cfg, int *changed);

/* constants.c: Constant tensors over the threshold -> initializers. */
int nvfp4_move_constants(struct nvfp4_cfg *cfg, int *changed);

#endif
