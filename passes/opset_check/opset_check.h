/*
 * opset_check.h - shared by the files of the opset-check pass (private
 * to the module; the pass sees only the public qopt API).
 */
#ifndef QOPT_PASSES_OPSET_CHECK_H
#define QOPT_PASSES_OPSET_CHECK_H

#include <qopt/qopt.h>

/* Highest default-domain opset whose operator changes we know. */
#define OC_MAX_OPSET 23

/* since_version list of one operator, ascending, 0-terminated. */
struct oc_op_history {
	const char *op;
	int since[12];
};
extern const struct oc_op_history oc_op_history[];

const struct oc_op_history *oc_history(const char *op);
/* Version of op's definition in force at opset v; 0 when the op does
 * not exist yet at v. */
int oc_version_at(const struct oc_op_history *h, int opset);
/* First since_version of the op after version v (exclusive) and not
 * above limit; 0 when none. */
int oc_next_change(const struct oc_op_history *h, int v, int limit);
/* IR version an ONNX release introduced with this opset. */
int oc_ir_for_opset(int opset);
/* 1 for "" and "ai.onnx". */
int oc_default_domain(const char *domain);

/* What the model needs (needs.c). */
struct oc_needs {
	int opset;		/* highest opset any reason asks for */
	int ir;			/* highest IR version the types ask for */
	int reasons;		/* number of reasons reported */
	int trt_ops;		/* TensorRT custom ops present */
};
/* Reports at INFO every reason, naming node or tensor. */
void oc_scan_needs(qopt_ctx *ctx, qir_model *m, int declared,
		   struct oc_needs *out);

/* Upgrade (upgrade.c). On failure, errmsg names the op and versions
 * (and the node); the model is then left unchanged when the failure is
 * detected by the dry run, which covers every rule precondition. */
int oc_upgrade(qopt_ctx *ctx, qir_model *m, int from, int to,
	       char *errmsg, size_t errlen);

/* ---- rules (rules.c) ---- */
struct oc_up {
	qopt_ctx *ctx;
	qir_model *m;
	int dry;		/* check preconditions only */
	int to;			/* target opset */
	char *err;
	size_t errlen;
	int64_t rewritten;	/* nodes whose form changed */
};

/* A rule adapts one node across one version step of its op. It may
 * replace the node (the new node is returned through *n). Returns 0,
 * or -1 with u->err set. rename: the op the node becomes (NULL: same). */
typedef int (*oc_rule_fn)(struct oc_up *u, qir_node **n, int step);
struct oc_rule {
	const char *op;
	int step;		/* since_version crossed */
	oc_rule_fn fn;		/* NULL: unsupported, fail */
	const char *rename;
	const char *what;	/* for the README table and messages */
};
extern const struct oc_rule oc_rules[];
const struct oc_rule *oc_rule_find(const char *op, int step);

/* Helpers (upgrade_util.c). */
int oc_fail(struct oc_up *u, const qir_node *n, int step,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
const char *oc_node_label(const qir_node *n);
qir_value *oc_const_i64(struct oc_up *u, qir_graph *g, const char *hint,
			const int64_t *v, size_t count, int scalar);
qir_value *oc_const_scalar(struct oc_up *u, qir_graph *g, const char *hint,
			   int dtype, double v);
/* Element type of v, following type-preserving producers; 0 unknown. */
int oc_infer_dtype(qir_value *v);
/* Rebuilds n as op_type with the given inputs, the same attributes
 * (minus skip_attr, may be NULL) and its first nout outputs (names
 * kept). *n becomes the new node. */
int oc_node_rebuild(struct oc_up *u, qir_node **n, const char *op_type,
		    qir_value *const *inputs, size_t nin, size_t nout,
		    const char *const *skip_attrs);
/* Makes repl[i] take the place (uses and name) of n's output i, for
 * i < k, then erases n. */
int oc_replace_node(struct oc_up *u, qir_node *n, qir_value *const *repl,
		    size_t k);
/* Removes v when it is an initializer nothing uses any more. */
void oc_drop_if_unused(qir_value *v);
/* Constant int64 list of an INTS attribute, or NULL. */
const qir_attr *oc_ints_attr(const qir_node *n, const char *name);

#endif
