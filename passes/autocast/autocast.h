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

enum autocast_mode { AUTOCAST_REAL, AUTOCAST_FAKE };

/* Per node, what the pass decided (sorted by address, over the
 * snapshot of every graph: the main one and the bodies, at any depth). */
struct autocast_node {
	qir_node *n;
	const struct ps_float_op *op;	/* NULL: not in the table */
	int low;		/* computes in the low type */
	int candidate;		/* computes in FLOAT today */
	int body;		/* holds a graph (If, Loop, Scan) */
	int unranged;		/* a body node the calibration has no
				 * range for (said per body) */
	struct ps_skip why;	/* why it stays FLOAT */
};

/* A node keep_file names, with the measurement that chose it. */
struct autocast_kept {
	char *name, *why;
	size_t line;		/* in the file, for messages */
	int used;		/* a node of the model matched it */
};

struct autocast_cfg {
	qopt_ctx *ctx;
	qir_model *m;
	qk_ctx *qk;
	int low;		/* QIR_FLOAT16 or QIR_BFLOAT16 */
	const char *low_name;	/* "FLOAT16" */
	enum autocast_mode mode;
	int keep_io;		/* keep_io_types */
	int upgrade;		/* raise the opset where that is the fix */
	int64_t max_reduction;	/* 0: no limit */
	double init_max;	/* weights beyond: the node stays FLOAT */
	int clamp;		/* weights beyond the low range: clamped */
	int64_t opset;
	struct ps_targets tg;
	struct autocast_node *nodes;
	size_t nnodes;
	/* What the run did, for the summary. */
	uint64_t casts, weights, weight_bytes_in, weight_bytes_out;
	uint64_t dup_weights, removed_casts, underflow_zero, underflow_sub;
	uint64_t constants;	/* Constant nodes converted */
	uint64_t lowered;	/* values made low, every graph */
	uint64_t clamped;	/* weight elements clamped (clamp = yes) */
	uint64_t fused, unfused;	/* decomposed LayerNorms */
	uint64_t rms_fused;	/* decomposed RMSNorms */
	int fuse_norm;		/* option fuse_norm */
	struct autocast_memo scans;	/* tensor -> its autocast_scan (owned) */
	qopt_calib *cal;	/* activation ranges, or NULL (owned) */
	double data_max;	/* activations beyond: the node stays FLOAT */
	qir_node **keep;	/* nodes of unfused LayerNorms (owned) */
	size_t nkeep;
	struct autocast_kept *measured;	/* keep_file's nodes (owned) */
	size_t nmeasured;
};

/* decide.c: fills cfg->nodes for every graph. 0, or -1 (said). */
int autocast_decide(struct autocast_cfg *cfg);
/* The node record of n, or NULL when n came after the snapshot. */
struct autocast_node *autocast_node_of(struct autocast_cfg *cfg, const qir_node *n);

/* weights.c */
/* Frees the scan results kept in cfg. */
void autocast_scans_free(struct autocast_cfg *cfg);
/* The largest finite |x| (Inf converts exactly) and the counts of
 * nonzero elements that the low type turns to zero or subnormal, over a
 * FLOAT tensor. 0, or -1 with err set. */
int autocast_weight_scan(struct autocast_cfg *cfg, qir_tensor *t, float *amax,
		   uint64_t *zero, uint64_t *sub, qir_error *err);
/* Codes of the low type that are Inf where src (FLOAT) is finite become
 * the largest finite value of the sign: clamp = yes. */
void autocast_saturate(int low, uint16_t *codes, const void *src, size_t n);
/* A deferred tensor named name: t converted to the low type (real) or
 * rounded through it and back to FLOAT (fake). Caller owns. NULL
 * (said) on failure. */
qir_tensor *autocast_weight_convert(struct autocast_cfg *cfg, qir_tensor *t,
			      const char *name, int fake);
/* Elements of a FLOAT tensor beyond the low type's largest finite
 * value (Inf not counted). */
uint64_t autocast_weight_beyond(struct autocast_cfg *cfg, qir_tensor *t);

/* fuse.c: decomposed LayerNorms fused into LayerNormalization (opset
 * 17, raised when upgrade allows); the nodes of those that cannot be
 * go to *keep (caller frees), to stay FLOAT. 0, or -1 (said). */
int autocast_fuse_norms(struct autocast_cfg *cfg, qir_node ***keep, size_t *nkeep);

/* fuse.c's matching, shared with fuse_rms.c: the one producer of v
 * when it is op and v has exactly uses readers (and is no graph
 * output); a constant scalar; ReduceMean's axes as the first of a
 * suffix of rank axes (-1 when not, or keepdims 0); a FLOAT initializer
 * of ones over x's dims from axis on (NULL: not static). */
qir_node *autocast_made_by(qir_value *v, const char *op, size_t uses);
int autocast_scalar(qir_value *v, double *out);
int64_t autocast_mean_axis(qir_node *r, int rank);
qir_value *autocast_norm_ones(struct autocast_cfg *cfg, const qir_value *x,
			      int64_t axis);

/* fuse_rms.c: decomposed RMSNorm (torch: Pow, ReduceMean, Add, Sqrt,
 * Div(1, .) or Reciprocal, Mul [, Mul gamma]; or Div(x, Sqrt)) fused
 * into RMSNormalization (opset 23, raised when upgrade allows), after
 * autocast_fuse_norms; the nodes of those that cannot be are added to
 * *keep. 0, or -1 (said). */
int autocast_fuse_rms(struct autocast_cfg *cfg, qir_node ***keep,
		      size_t *nkeep);

/* ranges.c: what `qopt calibrate` measures for autocast; the file
 * loaded (hash checked, bound to the model as received: before any
 * rewrite) or, without one, said so; the rule (1 fits, 0 r kept FLOAT
 * with kind and the reason). */
qopt_status autocast_calibration_targets(qopt_ctx *ctx, qir_model *m);
int autocast_ranges_load(struct autocast_cfg *cfg, const char *path);
int autocast_ranges_fit(struct autocast_cfg *cfg, struct autocast_node *r,
		  const struct ps_skip_kind *kind);

/* keep.c: keep_file (`qopt autocast-tune`): loaded (0, or -1 said);
 * the entry naming n, or NULL; every entry matched a FLOAT node (0) or
 * the first that did not said (-1); freed. */
int autocast_keep_load(struct autocast_cfg *cfg, const char *path);
struct autocast_kept *autocast_keep_find(struct autocast_cfg *cfg,
					 const qir_node *n);
int autocast_keep_check(struct autocast_cfg *cfg, const char *path);
void autocast_keep_free(struct autocast_cfg *cfg);

/* rewrite.c: applies the decisions. 0, or -1 (said). */
int autocast_rewrite(struct autocast_cfg *cfg, int *changed);

#endif
