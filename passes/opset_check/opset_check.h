/*
 * opset_check.h - shared by the files of the opset-check pass (private
 * to the module; the pass sees only the public qopt API).
 */
#ifndef QOPT_PASSES_OPSET_CHECK_H
#define QOPT_PASSES_OPSET_CHECK_H

#include <qopt/qopt.h>

/* Highest default-domain opset whose operator changes the upgrade
 * (qir_model_upgrade_opset) knows. */
#define OPSET_CHECK_MAX_OPSET ((int)qir_upgrade_max_opset())

/* What the model needs (needs.c). */
struct opset_check_needs {
	int opset;		/* highest opset any reason asks for */
	int ir;			/* highest IR version the types ask for */
	int reasons;		/* number of reasons reported */
	int trt_ops;		/* TensorRT custom ops present */
};
/* Reports at INFO every reason, naming node or tensor. */
void opset_check_scan_needs(qopt_ctx *ctx, qir_model *m, int declared,
		   struct opset_check_needs *out);

#endif
