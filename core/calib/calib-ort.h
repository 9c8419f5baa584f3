/*
 * core/calib/calib-ort.h - what the library knows about ONNX Runtime
 * runs of its jobs (calibration, the plan's measurements): the bound on
 * a run, which the runner is given, and the models ORT is never given
 * because it would not return from them.
 */
#ifndef QOPT_CALIB_ORT_H
#define QOPT_CALIB_ORT_H

#include <stddef.h>
#include <stdint.h>
#include "manager/session-api.h"

/* Seconds an ORT run may take: `given` (the command's --ort-timeout,
 * -1 when not given), else $QOPT_ORT_TIMEOUT, else the default for
 * `bytes` of model run over `samples` samples (docs/calibration.md,
 * "ONNX Runtime's child"). 0: no bound. -1 with the reason in why (a
 * malformed $QOPT_ORT_TIMEOUT: a usage error). */
long calib_ort_timeout(long given, uint64_t bytes, long samples, char *why,
		       size_t whyn);

/* Parses SECONDS for --ort-timeout and $QOPT_ORT_TIMEOUT: decimal
 * digits, 0 (no bound) to a year. 0, or -1. */
int calib_ort_timeout_parse(const char *s, long *out);

/* The bytes of a model file and its external data file FILE.data (the
 * name qopt writes), for the default bound. */
uint64_t calib_model_bytes(const char *file);

/* The samples a run will take: random when data is NULL, else the
 * data folder's sub-folders (none: the folder itself, one). */
long calib_count_samples(const char *data, long random);

/* Refuses a model ONNX Runtime 1.30 would spin on forever: a Conv or
 * ConvTranspose whose input or weight has a zero-size dimension (a
 * Conv over zero input channels never returns from run). The error
 * names the node and the tensor. 0, or -1 after saying why. */
int calib_ort_refuse(qm_session *s, const char *who, const qir_model *m);

#endif
