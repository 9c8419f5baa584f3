/*
 * passes/fp8/fp8.h - shared by the files of the fp8-mha plugin
 * (not installed; the plugin sees only the public qopt/ headers).
 *
 * The plugin registers single-purpose passes (plugin.c, run functions in
 * steps.c): fp8-calibrate-place, fp8-custom-ops, fp8-type-qdq,
 * fp8-compress-weights, fp8-move-transpose, fp8-move-layout,
 * fp8-move-scale, fp8-softmax-qdq, fp8-report; `fp8-mha` runs them in
 * that order with today's options. The pass `fp8` (steps.c, fp8_run)
 * is the calibrated placement widened to convolutions, residual Adds
 * and sub-graphs, then the weight compression (docs/fp8.md). Each pass works from the model and
 * its own options alone (a struct fp8_cfg lives for one run). Every
 * rewrite checks that each consumer it affects is on its path and asks
 * the bisect gate first; one that cannot be proven safe is skipped with
 * a reason (a stats counter and a log line); the report finds the
 * reasons again on the final model (report.c, explain run).
 *
 * Layering: a file calls only files of its own layer's helpers or of
 * the layers below it, never up (no call or include circle):
 *   6  steps.c, plugin.c                          the passes
 *   5  report.c                                   (explains with the
 *                                                 motion and Softmax
 *                                                 rewrites, gate closed)
 *   4  calib_place.c, custom_ops.c, weights.c, motion.c, sink.c,
 *      softmax.c                                  one rewrite each
 *      residual.c                                 (the residual rule,
 *                                                 for calib_place.c and
 *                                                 calib_targets.c)
 *   3  fake.c                                     weight_mode = fake
 *   2  rotate.c, pretranspose.c                   R fq(R W); transposed codes
 *   1  weight_match.c, attn.c                     weight scales and the
 *                                                 weight walk; attention
 *                                                 blocks
 *   0  match.c, build.c, notes.c                  matching, building,
 *                                                 reporting
 * and under them all the pass toolkit (passes/support, which reads the
 * calibration file) and the public qopt/ API.
 */
#ifndef QOPT_PASSES_FP8MHA_H
#define QOPT_PASSES_FP8MHA_H

#include <qopt/qopt.h>
#include <qopt/status.h>

#include "../support/support.h"

#define FP8_OPSET 19		/* FP8 QuantizeLinear/DequantizeLinear */
#define FP8_INT8_OPSET 13	/* per-axis INT8 DequantizeLinear */
#define FP8_FOLD_MAX_BYTES (UINT64_C(8) << 30)
#define FP8_MAX_HOPS 8	/* layout nodes looked through */

/* A skipped rewrite, noted in the report's explain run so that the
 * report can name why a block stayed out of the fused form. */
struct fp8_note {
	const qir_node *node;	/* where the rewrite was tried */
	char why[256];
};

/* One pass run's state, alike for every pass (steps.c makes it and
 * frees it when the pass returns: nothing outlives the run). A pass's
 * options are not here: each rewrite takes its own pass's struct below. */
struct fp8_cfg {
	qopt_ctx *ctx;
	qir_model *m;
	qk_ctx *qk;
	int spill_failed;
	int typed;
	/* The report's explain run: every gate says no and a skip only
	 * leaves its note (FP8_MAY, fp8_skip). */
	int explain;
	struct fp8_note *notes;	/* owned */
	size_t nnotes, capnotes;
	/* What a rewrite left unread (fp8_erase_unused): nodes go at
	 * once, initializers wait for fp8_flush_dead. */
	struct ps_sweep sweep;
};

/* Each pass's own options, read by its run function (steps.c) from the
 * options it declares (plugin.c's FP8_OPTIONS). */

/* fp8-custom-ops, fp8-move-transpose, fp8-move-layout, fp8-move-scale:
 * their one yes/no (fp8-mha's switch, forwarded). Off, the pass still
 * runs to name each place it leaves ("move_scale = no"). */
struct fp8_switch {
	int on;
};

/* fp8-compress-weights; the pass fp8 compresses always. */
struct fp8_weight_opts {
	int compress;		/* compress_weights */
	int fake;		/* weight_mode = fake: float DQ(Q(W)) */
	int rotate_back;	/* rotate = rotate_back: R fq(R W) */
	int int8;		/* the pass int8: INT8 Q(W) only, else FP8 */
};

/* fp8-softmax-qdq */
struct fp8_softmax_opts {
	int on;			/* softmax_qdq */
	/* option calibration set: the blocks the placement left in float
	 * stay so. */
	int calibrated;
};

/* weight_match.c: the results policy for passes/support (spill from
 * 64 KiB). */
struct ps_results fp8_results(struct fp8_cfg *cfg);

/* The gate of every rewrite: the bisect gate. In the report's explain
 * run it is closed and leaves the note left on node: the rewrite could
 * be done there, so its pass was off, did not run or was declined by
 * bisect (the report, working from the model alone, cannot tell which). */
#define FP8_MAY(cfg, node, left, ...) \
	((cfg)->explain ? (fp8_note((cfg), (node), "%s", (left)), 0) : \
	 qopt_may_rewrite((cfg)->ctx, __VA_ARGS__))

#define FP8_HEAD_MIN 9	/* head sizes TensorRT's fused attention takes */
#define FP8_HEAD_MAX 256

/* steps.c: the run functions of the plugin's passes (plugin.c). */
qopt_status fp8_run_calibrate_place(qopt_ctx *ctx, qir_model *m,
				       int *changed);
qopt_status fp8_run_custom_ops(qopt_ctx *ctx, qir_model *m, int *changed);
qopt_status fp8_run_type_qdq(qopt_ctx *ctx, qir_model *m, int *changed);
qopt_status fp8_run_compress_weights(qopt_ctx *ctx, qir_model *m,
					int *changed);
qopt_status fp8_run_move_transpose(qopt_ctx *ctx, qir_model *m,
				      int *changed);
qopt_status fp8_run_move_layout(qopt_ctx *ctx, qir_model *m, int *changed);
qopt_status fp8_run_move_scale(qopt_ctx *ctx, qir_model *m, int *changed);
qopt_status fp8_run_softmax_qdq(qopt_ctx *ctx, qir_model *m, int *changed);
qopt_status fp8_run_report(qopt_ctx *ctx, qir_model *m, int *changed);
/* the passes fp8 and int8 (steps.c) */
qopt_status fp8_run(qopt_ctx *ctx, qir_model *m, int *changed);
qopt_status fp8_int8_run(qopt_ctx *ctx, qir_model *m, int *changed);

/* match.c */
int fp8_is_op(const qir_node *n, const char *op);
int fp8_is_q(const qir_node *n);
int fp8_is_dq(const qir_node *n);
int fp8_is_float(int dtype);	/* FLOAT, FLOAT16, BFLOAT16 */
/* The only consumer of v (a single use, not a graph output), else NULL. */
qir_node *fp8_sole_user(qir_value *v);
/* 1 when every use of v is a node with op_type op (and v is not a
 * graph output and has uses); else 0 with the first other consumer
 * described in why. */
int fp8_all_users_are(qir_value *v, const char *op, char *why,
			 size_t n);
/* The constant behind v: borrowed (*owned = 0) or folded by the IR's
 * constant folder (*owned = 1, caller frees). NULL when not constant. */
qir_tensor *fp8_const(qir_value *v, int *owned);
/* A scalar float constant (one element), 0 with *out; -1 otherwise. */
int fp8_scalar(qir_value *v, double *out);
/* 1 when v holds one element: a scalar constant, or a value whose
 * shape (declared or inferred) is all 1s, e.g. 1/sqrt(d) computed at
 * run time from Shape(k) as torch exports it. */
int fp8_one_element(qir_value *v);
/* Scale of a Q/DQ as FP32 values (caller frees *out, *count of them):
 * -1 when not a constant float tensor of rank <= 1, or blocked. */
int fp8_scale_f32(qir_node *qdq, float **out, uint64_t *count);
/* Element type of v, declared or, where exported custom ops left it
 * unknown, found by following type-keeping ops back (at most depth
 * hops) to a DQ or Cast; 0 when unknown. */
int fp8_float_type(qir_value *v, int depth);
/* FP8 element type a Q node produces (zero point type or
 * output_dtype), or 0 when not FP8. */
int fp8_q_fp8_type(const qir_node *q);
/* TensorRT's custom FP8 Q/DQ (trt::TRT_FP8QuantizeLinear, ...). */
enum { FP8_NOT_CUSTOM = 0, FP8_CUSTOM_Q = 1, FP8_CUSTOM_DQ = 2 };
int fp8_custom_kind(const qir_node *n);

/* notes.c: notes for the report (a no-op when out of memory). */
void fp8_note(struct fp8_cfg *cfg, const qir_node *n,
		 const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *fp8_note_for(const struct fp8_cfg *cfg, const qir_node *n);
/* Drops the notes of n before it is erased (its address may be reused). */
void fp8_note_forget(struct fp8_cfg *cfg, const qir_node *n);
/* Skip: a stats counter, an info line naming the node, and a note. */
void fp8_skip(struct fp8_cfg *cfg, const qir_node *n,
		 const char *counter, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Errors: "node ...: message" (n may be NULL); returns -1. */
int fp8_fail(struct fp8_cfg *cfg, const qir_node *n,
		const qir_error *e);

/* build.c */
/* Removes v once nothing reads it, and what only it kept alive. */
void fp8_erase_unused(struct fp8_cfg *cfg, qir_value *v);
/* Removes the initializers fp8_erase_unused queued (those still
 * unread), one walk per graph. */
void fp8_flush_dead(struct fp8_cfg *cfg);

/* build.c: the opset FP8 Q/DQ need (19), asked of the manager
 * (qopt_require_opset: the pipeline's policy, one bisect point, the
 * upgrade). 0 when the model is there, 1 when bisect declined (skip the
 * rewrite), -1 on error (reported by the manager). */
int fp8_prepare_opset(struct fp8_cfg *cfg);
/* The same for another opset, why naming what needs it. */
int fp8_prepare_opset_for(struct fp8_cfg *cfg, int64_t opset,
			     const char *why);

/* custom_ops.c (rewrite 1) and typing */
int fp8_convert_custom_ops(struct fp8_cfg *cfg,
			      const struct fp8_switch *o, int *changed);
int fp8_type_qdq(struct fp8_cfg *cfg, int *changed);

/* weights.c (rewrite 2) */
int fp8_compress_weights(struct fp8_cfg *cfg,
			    const struct fp8_weight_opts *o, int *changed);
/* A constant weight behind Q -> DQ, as rewrite 2 matched it. */
struct fp8_wcand {
	qir_node *q, *dq;
	qir_tensor *w;		/* the weight's bytes */
	int owned;		/* w folded: freed with the candidate */
	float *scales;		/* Q's, FP32 (owned) */
	uint64_t nscales;
	qk_qlayout lay;		/* Q's scales over w */
	int axis;		/* per-axis scales: the weight's axis */
	int fp8;		/* Q's code type: FP8, or INT8 (the pass int8) */
};
/* Layout of the nscales scales of a Q or DQ over w: the per-axis axis
 * (0 for one scale), or -1 with why. */
int fp8_scale_layout(qir_node *qdq, const qir_tensor *w, uint64_t nscales,
			qk_qlayout *lay, const char **why);
/* 1 when the Q/DQ's zero point is absent or a constant +0. */
int fp8_zero_point_is_zero(qir_node *qdq);
/* weight_match.c: the walk over every DQ of the model (sub-graphs
 * too) for the weight rewrites: visit returns 1 changed, 0 not, -1
 * error (stops the walk); progress, when set, names the progress bar. */
typedef int (*fp8_dq_visit)(struct fp8_cfg *cfg, qir_node *dq,
			       void *arg);
int fp8_each_weight_dq(struct fp8_cfg *cfg, fp8_dq_visit visit,
			  void *arg, const char *progress, int *changed);
/* weight_match.c: a Transpose's perm for rank (reversed when absent);
 * -1 when it is not a permutation of rank axes. */
int fp8_transpose_perm(const qir_node *tr, int rank, int64_t *perm);

/* fake.c (rewrite 2, weight_mode = fake): the weight becomes a float
 * initializer in its own type holding DQ(Q(W)), or R fq(R W) under
 * rotate_back, read where the DQ output was; the Q and DQ go. 1 done
 * (*out: the new tensor, owned by the graph), 0 skipped (reported) or
 * gated off, -1 error (reported). */
int fp8_fake_weight(struct fp8_cfg *cfg,
		       const struct fp8_weight_opts *o,
		       struct fp8_wcand *c, qir_tensor **out);

/* rotate.c: options weight_mode and rotate into o (rotate_back refused
 * in real mode: -1 after an error); the reduction axis of a weight from
 * its consumers; the values R fq(R W). */
int fp8_rotate_options(qopt_ctx *ctx, struct fp8_weight_opts *o);
/* The axis of the stored weight every consumer of v (the DQ output)
 * reduces over, through float Casts, Identity and Transposes to MatMul
 * or Gemm: 0 with *kaxis, or -1 with why. */
int fp8_weight_kaxis(qir_value *v, int rank, int *kaxis, char *why,
			size_t n);
/* R fq(R W) named name, in c->w's type and shape, as a deferred recipe
 * reading its own view of c->w (caller owns; the writer computes it
 * into the output). The FP8 scale is amax/448 of R W at the granularity
 * of Q's scale. amax: max |W| (or -1: unknown), to tell when R W could
 * overflow FP32, which is then checked on the values. NULL: *skip 1
 * when it does (nothing said), else an error was reported. */
qir_tensor *fp8_rotated_recipe(struct fp8_cfg *cfg,
				  const struct fp8_wcand *c, int kaxis,
				  float amax, const char *name, int *skip);
/* pretranspose.c (rewrite 2, second half) */
#define FP8_PT_MAXRANK 8
struct fp8_pt {
	qir_node *dq, *cast, *tr;	/* the path: DQ [-> Cast] -> Transpose */
	qir_value *w;			/* the weight (for names) */
	qir_tensor *t;			/* its FP8 codes, when stored */
	int rank;
	int64_t perm[FP8_PT_MAXRANK], dims[FP8_PT_MAXRANK];
};
/* For a float [R, C] weight t (value w) about to be compressed for dq:
 * 1 when its codes can be written transposed at once (the path is
 * Transpose(perm 1, 0) -> MatMul only); fills *p, dims = [C, R]. Silent:
 * when not, the later fp8_pretranspose_dq reports why. */
int fp8_pretranspose_plan(struct fp8_cfg *cfg, qir_node *dq,
			     qir_value *w, const qir_tensor *t,
			     struct fp8_pt *p);
/* The bisect gate of one pre-transpose. */
int fp8_pretranspose_gate(struct fp8_cfg *cfg, const struct fp8_pt *p);
/* Stores nt (transposed codes; taken) as dq's input and drops the
 * Transpose: 1, or -1 after an error. */
int fp8_pretranspose_finish(struct fp8_cfg *cfg, struct fp8_pt *p,
			       qir_tensor *nt);
int fp8_pretranspose(struct fp8_cfg *cfg,
			const struct fp8_weight_opts *o, int *changed);
/* The same for one DQ right after its weight was compressed (so the
 * untransposed codes never leave the heap): 1 done, 0 not, -1 error. */
int fp8_pretranspose_dq(struct fp8_cfg *cfg, qir_node *dq);

/* motion.c (rewrite 3) */
int fp8_move_transposes(struct fp8_cfg *cfg,
			   const struct fp8_switch *o, int *changed);
int fp8_move_scales(struct fp8_cfg *cfg, const struct fp8_switch *o,
		       int *changed);

/* sink.c (rewrite 3b): the Q/DQ of each attention block's Q, K, V
 * moved below the layout ops before the BMM (exact). */
int fp8_sink_layout(struct fp8_cfg *cfg, const struct fp8_switch *o,
		       int *changed);

/* softmax.c (rewrite 4) */
int fp8_softmax_qdq(struct fp8_cfg *cfg,
		       const struct fp8_softmax_opts *o, int *changed);

/* report.c: the attention report, and the warning when the model holds
 * nothing fp8-mha applies to. */
int fp8_report(struct fp8_cfg *cfg);
/* attn.c: the head size of the block of bmm1 (its input A's last dimension),
 * -1 when unknown; 1 when TensorRT fuses that head size. */
int64_t fp8_attn_head_size(const qir_node *bmm1);
/* attn.c: a layout op the block finder looks through. */
int fp8_attn_is_layout(const qir_node *n);
int fp8_head_fusible(int64_t head);
/* attn.c: BMM1 and BMM2 of the attention block around a Softmax; NULL
 * when it is not one. */
qir_node *fp8_attn_bmm1(qir_node *softmax);
qir_node *fp8_attn_bmm2(qir_node *softmax);
/* attn.c: whether the model (sub-graphs too) holds an FP8 Q/DQ or a
 * custom FP8 op (*fp8), and how many attention blocks; 0, or -1 after
 * an error. */
int fp8_survey(struct fp8_cfg *cfg, int *fp8, size_t *blocks);

#endif
