/*
 * core/cli/plan-run.h - `qopt plan`'s child processes (binary only):
 * qopt itself for each candidate model and the calibration, node for
 * ONNX Runtime's measurements, and what their logs say.
 */
#ifndef QOPT_CLI_PLAN_RUN_H
#define QOPT_CLI_PLAN_RUN_H

#include <stddef.h>
#include "plan/plan.h"

/* Each returns 0, or -1 after saying why. */
/* qopt itself with args (NULL-terminated), stderr to log; its exit
 * status, or -1 when it could not run. */
int plan_qopt(struct plan *p, const char *const *args, const char *log);
/* The first "error:" line of log (qopt's prefix cut) into buf. */
void plan_log_reason(const char *log, char *buf, size_t n);
/* The first line of log holding needle ("qopt: " cut) into buf; 0, or
 * -1 when there is none (buf then says so). */
int plan_log_line(const char *log, const char *needle, char *buf, size_t n);
/* The counter name of pass stats in a --stats-json file, summed over
 * the passes that report it; -1 when the file cannot be read. */
long plan_stat(const char *stats_json, const char *name);
/* node with tools/qopt-plan.js over files[0..n): fills nmse, cos, top1
 * (top1 NaN when no output has rows). */
int plan_measure(struct plan *p, const char *const *files, size_t n,
		 double *nmse, double *cos, double *top1);

#endif
