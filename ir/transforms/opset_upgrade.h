/*
 * ir/transforms/opset_upgrade.h - shared by the files of the opset upgrade
 * (opset_history.c, opset_rules.c, opset_rewrite.c, opset_upgrade.c);
 * private to the IR library.
 */
#ifndef QOPT_IR_OPSET_UPGRADE_H
#define QOPT_IR_OPSET_UPGRADE_H

#include <qopt/upgrade.h>
#include "model/internal.h"

/* Highest opset whose operator changes the rules know. */
#define IR_UPGRADE_MAX_OPSET 25

/* ---- opset_history.c ---- */

/* since_version list of one operator, ascending, 0-terminated. */
struct ir_op_history {
	const char *op;
	int since[12];
};

/* NULL when op is not an ai.onnx operator known up to
 * QIR_OPSET_UPGRADE_MAX. */
const struct ir_op_history *ir_op_history(const char *op);
/* Version of op's definition in force at opset v; 0 when the op does
 * not exist yet at v. */
int ir_op_version_at(const struct ir_op_history *h, int opset);
/* First since_version of the op after version v (exclusive) and not
 * above limit; 0 when none. */
int ir_op_next_change(const struct ir_op_history *h, int v, int limit);
/* 1 for "" and "ai.onnx". */
int ir_default_domain(const char *domain);

/* ---- the state of one upgrade, shared by the rules ---- */
struct ir_up {
	qir_model *m;
	int dry;		/* check preconditions only */
	int to;			/* target opset */
	qir_error *err;		/* never NULL here */
};

/* ---- opset_rules.c ---- */

/* A rule adapts one node across one version step of its op. It may
 * replace the node (the new node is returned through *n). Returns 0,
 * or -1 with u->err set. In a dry run it checks its preconditions
 * only and leaves the node as it is. */
typedef int (*ir_rule_fn)(struct ir_up *u, qir_node **n, int step);
struct ir_rule {
	const char *op;
	int step;		/* since_version crossed */
	ir_rule_fn fn;	/* NULL: unsupported, fail */
	const char *rename;	/* the op the node becomes, or NULL */
	const char *what;	/* for messages and the report callback */
};
const struct ir_rule *ir_rule_find(const char *op, int step);

/* ---- opset_rewrite.c: graph-building helpers for the rules ---- */

/* Sets u->err (QIR_EUNSUPPORTED) to "cannot upgrade <node> across
 * <op>-<step>: <why>"; returns -1. */
int ir_up_fail(struct ir_up *u, const qir_node *n, int step,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* "node 'name' (Op)" or "Op node producing 'out'" (thread-local
 * buffer, valid until the next call). */
const char *ir_up_label(const qir_node *n);
qir_value *ir_up_const_i64(struct ir_up *u, qir_graph *g,
			     const char *hint, const int64_t *v,
			     size_t count, int scalar);
qir_value *ir_up_const_scalar(struct ir_up *u, qir_graph *g,
				const char *hint, int dtype, double v);
/* Element type of v, following type-preserving producers; 0 unknown. */
int ir_up_infer_dtype(qir_value *v);
/* Rebuilds *n as op_type with the given inputs, the same attributes
 * (minus skip, may be NULL) and its first nout outputs (names kept);
 * *n becomes the new node. The dry run checks that the attributes can
 * be carried and that the dropped outputs are unused. */
int ir_up_rebuild(struct ir_up *u, qir_node **n, const char *op_type,
		    qir_value *const *inputs, size_t nin, size_t nout,
		    const char *const *skip);
/* Makes repl[i] take the place (uses and name) of n's output i, for
 * i < k, then erases n; heir (may be NULL) takes n's name. */
int ir_up_replace(struct ir_up *u, qir_node *n, qir_value *const *repl,
		    size_t k, qir_node *heir);
/* Removes v when it is an initializer nothing uses any more. */
void ir_up_drop_if_unused(qir_value *v);
/* The INTS attribute name of n, or NULL. */
const qir_attr *ir_up_ints_attr(const qir_node *n, const char *name);

#endif /* QOPT_IR_OPSET_UPGRADE_H */
