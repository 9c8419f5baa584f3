/*
 * passes/autocast/autocast.h - the autocast pass: a float model's
 * computation moved to FLOAT16 or BFLOAT16, with FLOAT islands where a
 * rule says so (TensorRT 11 builds strongly typed networks only, so the
 * precision of every layer is the element type the model gives it).
 *
 * The pass decides per node (decide.c, over the op table in
 * passes/support/float_ops.c), then rewrites (rewrite.c): in real mode the values change type and
 * Casts sit at island boundaries, once per tensor; in fake mode every
 * tensor the real model would store low stays FLOAT but is rounded
 * through Cast(low) -> Cast(FLOAT) where it is made, which is what
 * ONNX Runtime can run faithfully. Weights are converted by deferred
 * recipes (weights.c) that the writer evaluates straight into the
 * output.
 */
#ifndef PASSES_AUTOCAST_H
#define PASSES_AUTOCAST_H

#include <stddef.h>
#include <stdint.h>

#include <qopt/qopt.h>

#include "memo.h"
#include <qopt/calib.h>
#include "../support/float_ops.h"
#include "../support/skip.h"
#include "../support/targets.h"

enum ac_mode { AC_REAL, AC_FAKE };

/* Per node, what the pass decided (indexed by the node's place in the
 * snapshot of the main graph). */
struct ac_node {
	qir_node *n;
	const struct ps_float_op *op;	/* NULL: not in the table */
	int low;		/* computes in the low type */
	int candidate;		/* computes in FLOAT today */
	struct ps_skip why;	/* why it stays FLOAT */
};

struct ac_cfg {
	qopt_ctx *ctx;
	qir_model *m;
	qk_ctx *qk;
	int low;		/* QIR_FLOAT16 or QIR_BFLOAT16 */
	const char *low_name;	/* "FLOAT16" */
	enum ac_mode mode;
	int keep_io;		/* keep_io_types */
	int upgrade;		/* raise the opset where that is the fix */
	int64_t max_reduction;	/* 0: no limit */
	double init_max;	/* weights beyond: the node stays FLOAT */
	int clamp;		/* weights beyond the low range: clamped */
	int64_t opset;
	struct ps_targets tg;
	struct ac_node *nodes;
	size_t nnodes;
	/* What the run did, for the summary. */
	uint64_t casts, weights, weight_bytes_in, weight_bytes_out;
	uint64_t dup_weights, removed_casts, underflow_zero, underflow_sub;
	uint64_t constants;	/* Constant nodes converted */
	uint64_t clamped;	/* weight elements clamped (clamp = yes) */
	uint64_t fused, unfused;	/* decomposed LayerNorms */
	int fuse_norm;		/* option fuse_norm */
	struct ac_memo scans;	/* tensor -> its ac_scan (owned) */
	qopt_calib *cal;	/* activation ranges, or NULL (owned) */
	double data_max;	/* activations beyond: the node stays FLOAT */
	qir_node **keep;	/* nodes of unfused LayerNorms (owned) */
	size_t nkeep;
};

/* decide.c: fills cfg->nodes for the main graph. 0, or -1 (said). */
int ac_decide(struct ac_cfg *cfg);
/* The node record of n, or NULL when n is not in the main graph. */
struct ac_node *ac_node_of(struct ac_cfg *cfg, const qir_node *n);

/* weights.c */
/* Frees the scan results kept in cfg. */
void ac_scans_free(struct ac_cfg *cfg);
/* The largest finite |x| (Inf converts exactly) and the counts of
 * nonzero elements that the low type turns to zero or subnormal, over a
 * FLOAT tensor. 0, or -1 with err set. */
int ac_weight_scan(struct ac_cfg *cfg, qir_tensor *t, float *amax,
		   uint64_t *zero, uint64_t *sub, qir_error *err);
/* Codes of the low type that are Inf where src (FLOAT) is finite become
 * the largest finite value of the sign: clamp = yes. */
void ac_saturate(int low, uint16_t *codes, const void *src, size_t n);
/* A deferred tensor named name: t converted to the low type (real) or
 * rounded through it and back to FLOAT (fake). Caller owns. NULL
 * (said) on failure. */
qir_tensor *ac_weight_convert(struct ac_cfg *cfg, qir_tensor *t,
			      const char *name, int fake);
/* Elements of a FLOAT tensor beyond the low type's largest finite
 * value (Inf not counted). */
uint64_t ac_weight_beyond(struct ac_cfg *cfg, qir_tensor *t);

/* fuse.c: decomposed LayerNorms fused into LayerNormalization (opset
 * 17, raised when upgrade allows); the nodes of those that cannot be
 * go to *keep (caller frees), to stay FLOAT. 0, or -1 (said). */
int ac_fuse_norms(struct ac_cfg *cfg, qir_node ***keep, size_t *nkeep);

/* ranges.c: what `qopt calibrate` measures for autocast; the file
 * loaded (hash checked, bound to the model as received: before any
 * rewrite) or, without one, said so; the rule (1 fits, 0 r kept FLOAT
 * with kind and the reason). */
qopt_status ac_calibration_targets(qopt_ctx *ctx, qir_model *m);
int ac_ranges_load(struct ac_cfg *cfg, const char *path);
int ac_ranges_fit(struct ac_cfg *cfg, struct ac_node *r,
		  const struct ps_skip_kind *kind);

/* rewrite.c: applies the decisions. 0, or -1 (said). */
int ac_rewrite(struct ac_cfg *cfg, int *changed);

#endif
