/*
 * passes/hadamard_rotate/hadamard_rotate.h - what the files of the
 * hadamard-rotate pass share (not installed; public API only).
 *
 * For MatMul(A[.., K], B[K, N]) the pass writes A' = A R and B' = R B,
 * R = I_{K/b} (x) H_b / sqrt(b) in Sylvester order: symmetric and
 * orthogonal, so A' B' = A B.
 */
#ifndef HADAMARD_ROTATE_HADAMARD_ROTATE_H
#define HADAMARD_ROTATE_HADAMARD_ROTATE_H

#include <stddef.h>
#include <stdint.h>

#include <qopt/qopt.h>

#include "../support/support.h"

/* Metadata property recording every rotation the pass made. */
#define HADAMARD_ROTATE_META_KEY "qopt.hadamard_rotate"
/* A dense rotation constant is never larger than this (per side). */
#define HADAMARD_ROTATE_DENSE_MAX 256
/* The largest block_size: two dense factors. */
#define HADAMARD_ROTATE_BLOCK_MAX (HADAMARD_ROTATE_DENSE_MAX * HADAMARD_ROTATE_DENSE_MAX)
/* Bound on a constant subgraph the pass evaluates to find a weight. */
#define HADAMARD_ROTATE_FOLD_MAX_BYTES ((uint64_t)1 << 31)

enum hadamard_rotate_quantizer { HADAMARD_ROTATE_Q_NONE = 0, HADAMARD_ROTATE_Q_NVFP4, HADAMARD_ROTATE_Q_FP8 };

/* A string -> value map (rotated weights, rotated activations, the
 * constants the rotations add): each is made once and shared. */
struct hadamard_rotate_memo {
	char **keys;
	qir_value **vals;
	size_t n, cap;
};

struct hadamard_rotate_cfg {
	qopt_ctx *ctx;
	qir_model *m;
	qk_ctx *qk;
	struct ps_targets tg;	/* include, exclude, op_types, min_size */
	int64_t block;
	int quantizer;
	int fold;		/* fold = yes */
	const char *prior;	/* HADAMARD_ROTATE_META_KEY as loaded, or NULL */
	char *record;		/* entries this run adds (owned) */
	size_t record_len;
	struct hadamard_rotate_memo memo;
	/* the weights rotations left unread, removed after the walk
	 * (hadamard_rotate_sweep); no producer is followed */
	struct ps_sweep sweep;
	int spill_failed;	/* warned once; results stay in memory */
	/* over weights the quantizer judged: sums of squared errors
	 * unrotated and as finally stored, and of squared norms */
	double q_sum_plain, q_sum_rot, q_norm;
	struct ps_coverage cov;	/* every weight: rotated or why not */
};

/* One MatMul/Gemm the pass may rotate. */
struct hadamard_rotate_target {
	qir_node *node;
	qir_value *act;		/* input A */
	qir_value *wv;		/* input B as the node reads it */
	qir_tensor *w;		/* B's value: borrowed constant or folded */
	int folded;		/* w is owned (evaluated constant subgraph) */
	int kaxis;		/* K's axis in w */
	int64_t k;
	size_t block;
	qir_node *quant;	/* A = DQ(Q(x)): the QuantizeLinear whose input
				 * gets the rotation, else NULL */
	int judged;		/* the quantizer computed q_e0, q_e1 */
	double q_e0, q_e1, q_nn;	/* squared errors unrotated, rotated;
					 * squared norm */
	struct ps_skip skip;	/* why it is left alone, once it is */
	int pattern;		/* the include pattern selecting it, or -1 */
};

/* Skip kinds of this pass (the shared ones: passes/support/skip.h). */
extern const struct ps_skip_kind hadamard_rotate_skip_is_hadamard, hadamard_rotate_skip_already, hadamard_rotate_skip_k_odd,
	hadamard_rotate_skip_block_k, hadamard_rotate_skip_block_large, hadamard_rotate_skip_quantized_act,
	hadamard_rotate_skip_type, hadamard_rotate_skip_act_shape, hadamard_rotate_skip_constant_subgraph,
	hadamard_rotate_skip_cannot_judge, hadamard_rotate_skip_no_help;

/* select.c: 1 = a target (t filled), 0 = skipped (t->skip),
 * -1 = error (reported). Frees nothing; hadamard_rotate_target_release does. */
int hadamard_rotate_select(struct hadamard_rotate_cfg *cfg, qir_node *n, struct hadamard_rotate_target *t);
void hadamard_rotate_target_release(struct hadamard_rotate_target *t);

/* once.c: exactly-once bookkeeping. */
int hadamard_rotate_recorded(const struct hadamard_rotate_cfg *cfg, const char *weight);
int hadamard_rotate_record(struct hadamard_rotate_cfg *cfg, const char *weight, int axis, size_t block);
int hadamard_rotate_record_flush(struct hadamard_rotate_cfg *cfg);
/* 1 when t (a [b, b] constant) is H_b / sqrt(b) in Sylvester order. */
int hadamard_rotate_is_sylvester(qir_tensor *t);
/* The node of an activation rotation already feeding v (a MatMul by a
 * normalized Sylvester constant, through Reshape), or NULL. */
qir_node *hadamard_rotate_upstream_hadamard(qir_value *v);

/* weight.c: B' = R B along t->kaxis; the new value (an initializer,
 * shared between targets reading the same weight with the same block),
 * or NULL (reported). */
qir_value *hadamard_rotate_rotate_weight(struct hadamard_rotate_cfg *cfg, struct hadamard_rotate_target *t);
/* Element layout [outer, K, inner] of t->w around t->kaxis. */
void hadamard_rotate_layout(const struct hadamard_rotate_target *t, size_t *outer, size_t *inner);

/* activation.c: x R in standard ops (x of t's type, K columns), placed
 * before node `before`; the rotated value (shared between targets
 * reading the same x with the same block), or NULL (reported). */
qir_value *hadamard_rotate_rotate_activation(struct hadamard_rotate_cfg *cfg, struct hadamard_rotate_target *t,
				qir_value *x, qir_node *before);

/* fold.c: folds t's activation rotation into the producer of t->act
 * (1: done, why names the producer; 0: not possible, why says why;
 * -1: error, reported). */
int hadamard_rotate_fold(struct hadamard_rotate_cfg *cfg, struct hadamard_rotate_target *t, char *why, size_t len);
/* 1 when every consumer of x but t->node is a target rotated with t's
 * block and x is no graph output; else 0 with why. */
int hadamard_rotate_consumers_agree(struct hadamard_rotate_cfg *cfg, struct hadamard_rotate_target *t, qir_value *x,
		       char *why, size_t len);

/* Moves a rotated tensor's bytes to the spill file (big models keep
 * their resident set near one weight); a failure only warns, once. */
void hadamard_rotate_spill(struct hadamard_rotate_cfg *cfg, qir_tensor *t);

/* quantizer.c: decides whether rotating t->w lowers its reconstruction
 * error in cfg->quantizer's format: 1 rotate, 0 leave (t->why says the
 * figures), -1 error. */
int hadamard_rotate_quantizer_says(struct hadamard_rotate_cfg *cfg, struct hadamard_rotate_target *t);

/* memo.c */
qir_value *hadamard_rotate_memo_get(const struct hadamard_rotate_memo *m, const char *key);
int hadamard_rotate_memo_put(struct hadamard_rotate_memo *m, const char *key, qir_value *v);
void hadamard_rotate_memo_free(struct hadamard_rotate_memo *m);
/* Removes the initializers the walk left unread (marked in
 * cfg->sweep, and the memo's), in one call: only after the walk, since
 * a later target reading the same weight reuses the memo's copy. A
 * failed removal only leaves dead initializers behind. */
void hadamard_rotate_sweep(struct hadamard_rotate_cfg *cfg);

/* run.c: the pass. */
qopt_status hadamard_rotate_run(qopt_ctx *ctx, qir_model *m, int *changed);

#endif /* HADAMARD_ROTATE_HADAMARD_ROTATE_H */
