/*
 * core/cli/ort-child.h - what qopt does around an ONNX Runtime child
 * (node running tools/qopt-calibrate.js or tools/qopt-plan.js): the
 * bound on its run, the bounded wait that ends it, and the models ORT
 * is never given because it would not return from them.
 */
#ifndef QOPT_CLI_ORT_CHILD_H
#define QOPT_CLI_ORT_CHILD_H

#include <stdint.h>
#include <sys/types.h>
#include "cli/cli.h"

/* Seconds an ORT run may take: `given` (the command's --ort-timeout,
 * -1 when not given), else $QOPT_ORT_TIMEOUT, else the default for
 * `bytes` of model run over `samples` samples (docs/calibration.md,
 * "ONNX Runtime's child"). 0: no bound. -1 with the reason in why (a malformed
 * $QOPT_ORT_TIMEOUT: a usage error). */
long cli_ort_timeout(long given, uint64_t bytes, long samples, char *why,
		     size_t whyn);

/* Parses SECONDS for --ort-timeout and $QOPT_ORT_TIMEOUT: decimal
 * digits, 0 (no bound) to a year. 0, or -1. */
int cli_ort_timeout_parse(const char *s, long *out);

/* Waits for the child pid (its own process group when group) at most
 * `seconds` (0: no bound). Past the bound the group gets SIGTERM, then
 * SIGKILL after a grace, and is reaped. 0 when it ended by itself (its
 * status in *st), 1 when it was ended so, -1 (errno) when waitpid
 * failed. */
int cli_child_wait(pid_t pid, int group, long seconds, int *st);

/* The bytes of a model file and its external data file FILE.data (the
 * name qopt writes), for the default bound. */
uint64_t cli_model_bytes(const char *file);

/* The samples a run will take: random when data is NULL, else the
 * data folder's sub-folders (none: the folder itself, one). */
long cli_count_samples(const char *data, long random);

/* Refuses a model ONNX Runtime 1.30 would spin on forever: a Conv or
 * ConvTranspose whose input or weight has a zero-size dimension (a
 * Conv over zero input channels never returns from run). The error
 * names the node and the tensor. 0, or -1 after saying why. */
int cli_ort_refuse(qm_session *s, const char *who, const qir_model *m);

#endif
