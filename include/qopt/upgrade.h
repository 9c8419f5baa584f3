/*
 * qopt/upgrade.h - the opset upgrade, a transform over the IR (public,
 * versioned: qopt/version.h). Implemented in ir/transforms/.
 */
#ifndef QOPT_UPGRADE_H
#define QOPT_UPGRADE_H

#include <stddef.h>
#include <stdint.h>
#include <qopt/ir.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Highest default-domain opset whose operator changes this libqopt's
 * upgrade knows (a run-time answer: a later libqopt knows more). */
int64_t qir_upgrade_max_opset(void);

/* IR version of the ONNX release that introduced this default-domain
 * opset (9 for 19, 10 for 21, 11 for 23, 12 for 24, 13 for 25). */
int64_t qir_opset_min_ir_version(int64_t opset);

/* Opset that first defined ai.onnx operator op; 0 when op is not one
 * known up to qir_upgrade_max_opset(). */
int64_t qir_op_first_opset(const char *op);

/* Caller-provided; start from QIR_UPGRADE_REPORT_INIT (its size first,
 * as the option structs of <qopt/ir.h>). qir_model_upgrade_opset fills
 * the counts the size covers and leaves the callbacks (which it calls
 * when set) as they are. */
typedef struct qir_upgrade_report {
	uint32_t size;	/* sizeof(qir_upgrade_report): QIR_UPGRADE_REPORT_INIT */
	int64_t from_opset, to_opset;
	int64_t ir_before, ir_after;
	int64_t nodes_checked;	/* default-domain nodes, every graph */
	int64_t nodes_rewritten; /* operator changes a rule carried a
				  * node across */
	/* After each rule applied: the node (as "node 'name' (Op)"), its
	 * op, the opset step crossed and what the rule did. */
	void (*on_rewrite)(void *arg, const char *node, const char *op,
			   int step, const char *what);
	/* After each node of the rewrite: done of total. */
	void (*on_progress)(void *arg, size_t done, size_t total);
	void *arg;
} qir_upgrade_report;
#define QIR_UPGRADE_REPORT_INIT { .size = sizeof(qir_upgrade_report) }

/* Raises the default-domain opset to target (at most
 * qir_upgrade_max_opset()), carrying every default-domain node of every
 * graph across each change of its operator's definition with the
 * rewrite that keeps its meaning, then sets the opset import and raises
 * the IR version to qir_opset_min_ir_version(target). A dry run checks
 * every node first: an op it cannot upgrade (QIR_EUNSUPPORTED, naming
 * node, op and versions), a model with local functions (whose bodies
 * would not be upgraded) or a target below the declared opset
 * (QIR_EUSAGE) fails with the model untouched. Only an allocation
 * failure during the rewrite itself can leave it partly rewritten
 * (then it must not be saved). target equal to the declared opset:
 * nothing changes. rep may be NULL. */
QIR_MUST_CHECK int qir_model_upgrade_opset(qir_model *m, int64_t target,
			    qir_upgrade_report *rep, qir_error *err);

#ifdef __cplusplus
}
#endif
#endif /* QOPT_UPGRADE_H */
