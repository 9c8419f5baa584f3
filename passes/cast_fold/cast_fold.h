/*
 * cast_fold.h - shared by the files of the cast-fold pass (private to
 * the module; the pass sees only the public qopt API).
 */
#ifndef QOPT_PASSES_CAST_FOLD_H
#define QOPT_PASSES_CAST_FOLD_H

#include <qopt/qopt.h>

#include "../support/cleanup.h"

struct cast_fold_state {
	qopt_ctx *ctx;
	qir_model *m;
	int opset;
	int changed;
	/* Report round: rewrites are off; skipped patterns are counted and
	 * warned about (once, after the rewriting rounds converged). */
	int report;
	int64_t opset_skips;	/* patterns the report round left for opset < 19 */
	/* Nodes a rewrite may have orphaned (ps_sweep_mark); erased at the
	 * end of a round when nothing uses them, with the Constant and
	 * DequantizeLinear nodes and initializers only they read (never
	 * nodes the rewrite did not touch). */
	struct ps_sweep sweep;
};

/* The fold functions return 1 when the Cast was rewritten (it may be
 * erased), 0 when no rewrite applies, CAST_FOLD_DECLINED when the bisect gate
 * said no, -1 on error (reported). */
#define CAST_FOLD_DECLINED (-2)

/* qdq.c: DequantizeLinear -> Cast and Cast -> QuantizeLinear. */
int cast_fold_fold_dq_cast(struct cast_fold_state *s, qir_node *cast);
int cast_fold_fold_cast_q(struct cast_fold_state *s, qir_node *cast);
/* redundant.c */
int cast_fold_fold_redundant(struct cast_fold_state *s, qir_node *cast);

/* util.c */
/* Element type of v as far as the model says (value type or constant). */
/* Constant FLOAT tensor behind v, or NULL. */
qir_tensor *cast_fold_const_f32(qir_value *v);
/* Caller owns: t (FLOAT) converted to dtype (FLOAT16 or BFLOAT16) and
 * named newname; NULL (with a warning naming the tensor `name`) when a
 * value is not finite and non-zero in the new type. */
qir_tensor *cast_fold_convert_scale(struct cast_fold_state *s, qir_tensor *t,
			     const char *name, const char *newname,
			     int dtype);
/* A copy of n (same op, inputs, attributes) placed before `before`,
 * with one fresh output per output of n. */
qir_node *cast_fold_clone_node(qir_node *n, qir_node *before);
/* Sets v's type to dtype with the shape of like (or unknown). */
QIR_MUST_CHECK int cast_fold_set_type_like(qir_value *v, int dtype,
				    const qir_value *like);
/* Makes repl take the place of `old` (an output of n): its uses, graph
 * output slots and name; erases n. */
int cast_fold_take_over(struct cast_fold_state *s, qir_node *n, qir_value *old,
		 qir_value *repl);
/* The sweep's follow function: Constant and DequantizeLinear. */
int cast_fold_follow(const qir_node *p, void *arg);
/* Removes v when it is an initializer nothing uses any more. */
void cast_fold_drop_if_unused(qir_value *v);

#endif
