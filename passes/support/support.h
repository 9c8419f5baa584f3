/*
 * passes/support/support.h - small helpers shared by the built-in passes
 * (linked into each pass module; public API only underneath, like the
 * passes themselves). Not part of the plugin interface.
 */
#ifndef PASSES_SUPPORT_H
#define PASSES_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "qopt/qopt.h"

/* *buf grown to hold at least n bytes (never shrunk; the caller frees
 * it when done with every weight); NULL when out of memory, *buf kept. */
uint8_t *ps_grow(uint8_t **buf, size_t *cap, size_t n);

/* Where big results go: the model's spill file until that fails once
 * (*spill_failed, the pass's own flag, shared with its other spills). */
struct ps_results {
	qopt_ctx *ctx;
	qir_model *m;
	size_t spill_min;	/* results this size and up are spilled */
	const char *what;	/* "FP8 weights", for the warning */
	int *spill_failed;
};

/* Caller owns: a tensor holding a copy of nbytes at bytes (a buffer the
 * caller reuses), which must be what dtype and dims need. Big ones go
 * straight to the spill file; when that fails the pass warns once and
 * the rest are copied into the heap. NULL with err set on error. */
qir_tensor *ps_result(const struct ps_results *r, const char *name, int dtype,
		      int rank, const int64_t *dims, const void *bytes,
		      size_t nbytes, qir_error *err);

/* Moves t's bytes to the spill file when they are r->spill_min or more
 * (qir_tensor_spill); on the first failure the pass warns once and
 * keeps later results in memory. Not fatal either way. */
void ps_spill(const struct ps_results *r, qir_tensor *t);

/* 1 when the FLOAT, FLOAT16 or BFLOAT16 tensor t holds Inf or NaN:
 * *at is the first such element, *what "Inf" or "NaN" (static). 0 when
 * every element is finite (or t is of another type, or empty); -1 when
 * its bytes cannot be read (err set). Scans on kc's threads (NULL: one).
 * amax (may be NULL): max |t| when 0 came from a scan, else -1 (the
 * same read gives it; qk_nvfp4_quantize_amax takes it). */
int ps_nonfinite(qk_ctx *kc, qir_tensor *t, uint64_t *at,
		 const char **what, float *amax, qir_error *err);

#endif
