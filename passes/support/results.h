/*
 * passes/support/results.h - big pass results built in reused buffers and
 * kept off the heap: the model's spill file (results.c).
 */
#ifndef PASSES_SUPPORT_RESULTS_H
#define PASSES_SUPPORT_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include <qopt/qopt.h>

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

#endif
