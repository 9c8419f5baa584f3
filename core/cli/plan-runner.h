/*
 * core/cli/plan-runner.h - the qopt program's runner of the ONNX
 * Runtime jobs libqopt's plan hands it (plan-runner.c).
 */
#ifndef QOPT_CLI_PLAN_RUNNER_H
#define QOPT_CLI_PLAN_RUNNER_H

#include <qopt/calib.h>
#include "manager/session-api.h"

/* qopt_calib_runner; arg: the qm_session messages go to. */
qopt_status cli_plan_runner(void *arg, const char *job, const char *result,
			    double timeout_s, qir_error *err);

#endif
