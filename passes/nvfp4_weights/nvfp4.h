/*
 * passes/nvfp4_weights/nvfp4.h - shared by the files of the
 * nvfp4-weights pass (not installed; the pass sees only qopt/qopt.h).
 *
 * The pass works on "stored weights": the value whose constant bytes
 * are rewritten (an initializer, a Constant node's output, or the
 * output of a constant subgraph). A stored weight reaches its
 * consumers (MatMul B, Gemm B, Conv W) through layout-only nodes
 * (Transpose, Identity, Cast, trt::TRT_FP4QDQ), which the pass looks
 * through to find the reduction axis K in the stored coordinates.
 */
#ifndef QOPT_PASSES_NVFP4_H
#define QOPT_PASSES_NVFP4_H

#include <qopt/qopt.h>

#define NVFP4_MAX_PATH 8	/* layout nodes between weight and consumer */
#define NVFP4_FOLD_MAX_BYTES (UINT64_C(8) << 30)

enum nvfp4_mode {
	NVFP4_REAL = 0,	/* FLOAT4E2M1 + FP8 scales + two DequantizeLinear */
	NVFP4_FAKE = 1,	/* dequantized values in the weight's own type */
};

struct nvfp4_cfg {
	qopt_ctx *ctx;
	qir_model *m;
	qk_ctx *qk;
	int mode;
	const char *const *include;
	size_t ninclude;
	const char *const *exclude;
	size_t nexclude;
	const char *const *op_types;
	size_t nop_types;
	int64_t min_size;
	int64_t constant_threshold;
	int include_explicit;	/* include set in the pipeline */
	uint64_t *include_hits;	/* per glob: weights it matched */
	uint64_t *exclude_hits;
	int opset_done;		/* opset 23 / IR 11 checked and raised */
	int opset_denied;	/* the bisect gate said no to the upgrade */
	int spill_failed;	/* warned once; results stay in memory */
	int rotate_back;	/* fake mode: store R fq(R W) */
	/* Codes and block scales of the weight being quantized, reused
	 * from weight to weight (owned), so that each big weight costs no
	 * fresh pages before its bytes go to the spill file. */
	uint8_t *codes_buf, *scales_buf;
	size_t codes_cap, scales_cap;
};

/* One consumer input reached from a stored weight. */
struct nvfp4_use {
	qir_node *node;		/* MatMul, Gemm or Conv */
	int slot;		/* its weight input */
	qir_value *input;	/* the value the consumer reads */
	qir_node *path[NVFP4_MAX_PATH]; /* layout nodes, weight first */
	int npath;
	int placeholder;	/* a trt::TRT_FP4QDQ lies on the path */
};

struct nvfp4_weight {
	qir_value *stored;
	qir_graph *graph;	/* where stored is defined */
	qir_tensor *tensor;	/* borrowed constant, NULL when folded */
	qir_node *constant;	/* Constant node producing stored, or NULL */
	int folded;		/* computed: needs qir_const_eval */
	struct nvfp4_use *uses;	/* owned */
	size_t nuses, capuses;
	int kaxis;		/* in stored coordinates, once known */
	const char *skip;	/* stats counter when skipped, else NULL */
	char why[512];		/* skip reason for the log */
	uint64_t written;	/* bytes of the tensors the rewrite added */
	/* max |weight| from the Inf/NaN scan, or -1 where none ran: the
	 * real-mode recipe then reads the weight once, not twice. */
	float amax;
};

/* trace.c */
int nvfp4_is_layout_node(const qir_node *n);
int nvfp4_is_placeholder(const qir_node *n);
int nvfp4_weight_slot(const qir_node *n);
int nvfp4_consumer_axis(const qir_node *n, int rank);
qir_value *nvfp4_stored_value(qir_value *v);
int nvfp4_is_const_expr(qir_value *v, int depth);
/* Fills w->uses from w->stored forward; sets w->skip when a use is not
 * a weight input. */
int nvfp4_collect_uses(struct nvfp4_weight *w);
/* Maps each use's K axis back to stored coordinates (rank known);
 * sets w->kaxis, or w->skip when they disagree. */
int nvfp4_resolve_axis(struct nvfp4_weight *w, int rank);
void nvfp4_weight_release(struct nvfp4_weight *w);

/* select.c */
int nvfp4_glob_setup(struct nvfp4_cfg *cfg);
void nvfp4_glob_teardown(struct nvfp4_cfg *cfg);
/* Sets w->skip/why when the targets leave the weight alone. */
void nvfp4_select(struct nvfp4_cfg *cfg, struct nvfp4_weight *w);
int nvfp4_has_placeholder(const struct nvfp4_weight *w);
/* Warns (or fails under --strict) for globs that matched nothing. */
int nvfp4_glob_report(struct nvfp4_cfg *cfg);
int nvfp4_op_selected(const struct nvfp4_cfg *cfg, const char *op);

/* opset.c */
/* Real mode: opset 23 / IR 11, raised once if the policy allows.
 * 0 done, 1 the bisect gate skipped the upgrade (skip the weight), -1
 * error (reported). */
int nvfp4_prepare_opset(struct nvfp4_cfg *cfg);

/* rewrite.c: quantizes one weight whose bytes t holds (w->tensor, or,
 * when w->folded, the folder's result: then t is taken over and freed
 * here). Returns 0, or -1 after qopt_error. */
int nvfp4_rewrite(struct nvfp4_cfg *cfg, struct nvfp4_weight *w,
		  qir_tensor *t);

/* rotate.c: option rotate = no | rotate_back (refused in real mode);
 * and the fake values R fq(R W) of src into dst (t's type). */
int nvfp4_rotate_option(struct nvfp4_cfg *cfg, const char *v);
int nvfp4_fake_rotated(struct nvfp4_cfg *cfg, const char *name, int dtype,
		       const void *src, size_t outer, size_t k, size_t inner,
		       void *dst);

/* constants.c: Constant tensors over the threshold -> initializers. */
int nvfp4_move_constants(struct nvfp4_cfg *cfg, int *changed);

#endif
