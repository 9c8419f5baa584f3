/*
 * passes/mxfp8/mxfp8.h - shared by the files of the mxfp8 pass (not
 * installed; the pass sees only qopt/qopt.h and the pass toolkit).
 *
 * MXFP8 (docs/mxfp8.md): FP8 E4M3 elements with one E8M0 power-of-two
 * scale per 32 elements along the reduction axis K. Weights are
 * quantized once (static); activations are quantized at run time, each
 * block with its own scale, so no calibration is involved.
 */
#ifndef QOPT_PASSES_MXFP8_H
#define QOPT_PASSES_MXFP8_H

#include <qopt/qopt.h>

#include "../support/support.h"

#define MX_BLOCK QK_MXFP8_BLOCK
#define MX_DOMAIN "trt"
#define MX_DQ "TRT_MXFP8DequantizeLinear"
#define MX_DYNQ "TRT_MXFP8DynamicQuantize"
#define MX_FOLD_MAX_BYTES (UINT64_C(8) << 30)

enum mx_mode { MX_REAL = 0, MX_FAKE = 1 };
enum mx_format { MX_TRT = 0, MX_ONNX = 1 };

/* One activation already quantized: its replacement, reused by every
 * selected consumer of the same value. */
struct mx_act {
	qir_value *x, *q;
};

struct mx_done {
	qir_value *v;
	int rc;		/* 0 quantized (v is the new value), 1 skipped */
};

struct mx_cfg {
	qopt_ctx *ctx;
	qir_model *m;
	qk_ctx *qk;
	int mode, format, weights, activations;
	struct ps_targets tg;
	struct mx_act *acts;
	size_t nacts, cap;
	struct mx_done *done;	/* weights seen, and their outcome */
	size_t ndone, capdone;
	int opset_asked;
	qopt_status opset_rc;
	struct ps_coverage cov;	/* every candidate weight's outcome */
	int match_in;		/* include index of mx_match's last layer */
	int pattern;		/* that of the layer mx_weight is called for */
};

/* Skip kinds of this pass. */
extern const struct ps_skip_kind mx_skip_k_block, mx_skip_mixed,
	mx_skip_act_layout;

/* plugin.c: 0 when the targets select layer n, else 1 with s set. */
int mx_match(struct mx_cfg *cfg, qir_node *n, struct ps_skip *s);

/* weight.c: one stored weight read by selected consumers (plain
 * model): 0 quantized (now or before), 1 skipped (said), -1 after
 * qopt_error. */
int mx_weight(struct mx_cfg *cfg, qir_value *stored);
/* The new weight for float tensor t (K axis kaxis) under the mode and
 * format: its value, typed like t, replacing nothing yet. NULL after
 * qopt_error. */
qir_value *mx_weight_value(struct mx_cfg *cfg, qir_graph *g, qir_tensor *t,
			   int kaxis, const char *name);
/* Replaces every use of old by nv, removes what defined old once
 * unused, and gives nv old's name. */
int mx_replace(struct mx_cfg *cfg, qir_value *old, qir_value *nv);

/* act.c: x quantized (the real chain or the fake one), typed `out`
 * dtype; memoized per x. why: set when x cannot be blocked (NULL
 * return, not an error); NULL with *why NULL after qopt_error. */
qir_value *mx_activation(struct mx_cfg *cfg, qir_value *x, int64_t k,
			 int out_dtype, const char **why);
/* The fake chain of x whose last axis is k (standard ops), out typed
 * out_dtype. */
qir_value *mx_fake_chain(struct mx_cfg *cfg, qir_value *x, int64_t k,
			 int out_dtype);
/* Why x cannot carry blocks of 32 along its last axis (TensorRT's
 * constraints), or NULL. k: the layer's K when known (the weight's),
 * else -1 (then x's declared last axis). */
const char *mx_act_check(qir_value *x, int64_t k, char *buf, size_t n);

/* export.c: the model's trt::TRT_MXFP8* nodes (ModelOpt's export):
 * *found says how many; converted or typed by mode and format. 0, or
 * -1 after qopt_error. */
int mx_export(struct mx_cfg *cfg, int *found, int *changed);

/* Ensures the opset the mode and format need (once). QOPT_OK, else
 * the manager's code (logged). */
qopt_status mx_opset(struct mx_cfg *cfg);

/* util */
int mx_is_float(int dtype);
/* Nodes of every graph in walk order that want accepts (plugin.c's
 * linear layers, export.c's MXFP8 ops); v is owned (free it). */
struct mx_nodes {
	int (*want)(const qir_node *n);
	qir_node **v;
	size_t n, cap;
};
/* A qir_graph_walk callback on a struct mx_nodes: -1 out of memory. */
int mx_collect(qir_graph *g, void *arg);
qir_node *mx_node(qir_graph *g, const char *op, const char *domain,
		  const char *hint, qir_value *a, qir_value *b);
qir_value *mx_out(qir_node *n, const char *hint, int dtype,
		  const qir_value *shape_from);
qir_value *mx_const_i64(qir_graph *g, const char *name, int rank,
			const int64_t *dims, const int64_t *v);
qir_value *mx_const_f32(qir_graph *g, const char *name, int rank,
			const int64_t *dims, const float *v);

#endif
