/*
 * passes/mxfp8/act.h - act.c: activations quantized at run time.
 */
#ifndef QOPT_PASSES_MXFP8_ACT_H
#define QOPT_PASSES_MXFP8_ACT_H

#include "mxfp8.h"

/* x quantized (the real chain or the fake one), typed `out` dtype;
 * memoized per x. why: set when x cannot be blocked (NULL return, not
 * an error); NULL with *why NULL after qopt_error. */
qir_value *mxfp8_activation(struct mxfp8_cfg *cfg, qir_value *x, int64_t k,
			 int out_dtype, const char **why);
/* The fake chain of x whose last axis is k (standard ops), out typed
 * out_dtype. */
qir_value *mxfp8_fake_chain(struct mxfp8_cfg *cfg, qir_value *x, int64_t k,
			 int out_dtype);
/* Why x cannot carry blocks of 32 along its last axis (TensorRT's
 * constraints), or NULL. k: the layer's K when known (the weight's),
 * else -1 (then x's declared last axis). */
const char *mxfp8_act_check(qir_value *x, int64_t k, char *buf, size_t n);

#endif
