/*
 * passes/fp8_mha/calib.h - calibrated Q/DQ placement (option
 * `calibration = FILE`): the file written by `qopt calibrate` and the
 * placement that uses it.
 */
#ifndef QOPT_PASSES_FP8MHA_CALIB_H
#define QOPT_PASSES_FP8MHA_CALIB_H

#include "fp8mha.h"

struct fp8mha_calib_entry {
	char *name;		/* owned */
	double amax;		/* as written; checked when used */
};

/* A parsed calibration file. Owned by whoever loaded it. */
struct fp8mha_calib {
	char hash[32];		/* model_hash, lower-case hex */
	struct fp8mha_calib_entry *e;	/* owned, sorted by name */
	size_t n;
};

/* calib_file.c. Parses path (a JSON file from `qopt calibrate`); on
 * failure -1 with why (the caller adds the file name), or
 * FP8MHA_CALIB_UNREADABLE when the file cannot be read (why names it). */
#define FP8MHA_CALIB_UNREADABLE (-2)
int fp8mha_calib_load(const char *path, struct fp8mha_calib **out,
		      char *why, size_t n);
const struct fp8mha_calib_entry *
fp8mha_calib_find(const struct fp8mha_calib *c, const char *name);
void fp8mha_calib_free(struct fp8mha_calib *c);

/* calib_place.c, the pass fp8-calibrate-place (first in fp8-mha), when
 * `calibration` is set: checks the file's hash against the model as
 * the pass received it, then places Q/DQ (weights as Q(W) -> DQ, for
 * fp8-compress-weights to store). */
int fp8mha_calib_place(struct fp8mha_cfg *cfg, int *changed);

/* calib_targets.c: the pass's calibration_targets (what `qopt
 * calibrate` measures for it). */
qopt_status fp8mha_calibration_targets(qopt_ctx *ctx, qir_model *m);

#endif
