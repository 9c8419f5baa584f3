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
 * its bytes cannot be read (err set). */
int ps_nonfinite(qir_tensor *t, uint64_t *at, const char **what,
		 qir_error *err);

#endif
