/*
 * core/cli/calib-json.h - the calibration file of `qopt calibrate`, as
 * JSON (binary only; read back by passes/support/calib_file.c).
 */
#ifndef QOPT_CALIB_JSON_H
#define QOPT_CALIB_JSON_H

#include <stdint.h>
#include <stdio.h>

/* What the file says; nothing owned. */
struct calib_doc {
	const char *model;	/* the model's file name, for people */
	uint64_t hash;		/* qir_model_hash() of it */
	const char *method;	/* max, percentile, entropy or mse */
	double percentile;	/* written for the method percentile */
	long samples;
	const char *source;	/* the data folder, or the random label */
	size_t n;
	const char *const *names;	/* tensor names, bytes as in the model */
	const char *const *dtypes;
	const double *amax;	/* finite, >= 0 */
};

/* The histogram's bin count of the methods other than max (the job
 * tells the script; the file records it, as results depend on it). */
#define CALIB_BINS 4096

/* Writes d to f. Refuses (-1, *bad = the index) an amax JSON cannot
 * hold (Inf, NaN) or that is negative, before writing anything.
 * Returns 0, or -1 with *bad == (size_t)-1 when a write failed. */
int calib_json_write(FILE *f, const struct calib_doc *d, size_t *bad);

/* Strings are written by qm_json_str() (manager/session-api.h). */

#endif
