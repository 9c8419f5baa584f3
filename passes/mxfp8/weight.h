/*
 * passes/mxfp8/weight.h - weight.c: static weights.
 */
#ifndef QOPT_PASSES_MXFP8_WEIGHT_H
#define QOPT_PASSES_MXFP8_WEIGHT_H

#include "mxfp8.h"

/* One stored weight read by selected consumers (plain model): 0
 * quantized (now or before), 1 skipped (said), -1 after qopt_error. */
int mxfp8_weight(struct mxfp8_cfg *cfg, qir_value *stored);
/* The new weight for float tensor t (K axis kaxis) under the mode and
 * format: its value, typed like t, replacing nothing yet. NULL after
 * qopt_error. */
qir_value *mxfp8_weight_value(struct mxfp8_cfg *cfg, qir_graph *g, qir_tensor *t,
			   int kaxis, const char *name);
/* Replaces every use of old by nv, removes what defined old once
 * unused, and gives nv old's name. */
int mxfp8_replace(struct mxfp8_cfg *cfg, qir_value *old, qir_value *nv);

#endif
