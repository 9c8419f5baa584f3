/*
 * passes/support/finite.h - does a float weight hold Inf or NaN (finite.c)?
 */
#ifndef PASSES_SUPPORT_FINITE_H
#define PASSES_SUPPORT_FINITE_H

#include <stddef.h>
#include <stdint.h>

#include <qopt/qopt.h>

/* 1 when the FLOAT, FLOAT16 or BFLOAT16 tensor t holds Inf or NaN:
 * *at is the first such element, *what "Inf" or "NaN" (static). 0 when
 * every element is finite (or t is of another type, or empty); -1 when
 * its bytes cannot be read (err set). Scans on kc's threads (NULL: one).
 * amax (may be NULL): max |t| when 0 came from a scan, else -1 (the
 * same read gives it; qk_nvfp4_quantize_amax takes it). */
int ps_nonfinite(qk_ctx *kc, qir_tensor *t, uint64_t *at,
		 const char **what, float *amax, qir_error *err);

#endif
