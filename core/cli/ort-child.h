/*
 * core/cli/ort-child.h - what qopt does around an ONNX Runtime child
 * (node running tools/qopt-calibrate.js or tools/qopt-plan.js): the
 * bounded wait that ends it. The bound itself and the models ORT is
 * never given are the library's (core/calib/calib-ort.h).
 */
#ifndef QOPT_CLI_ORT_CHILD_H
#define QOPT_CLI_ORT_CHILD_H

#include <stdint.h>
#include <sys/types.h>
#include "cli/cli.h"
#include "calib/calib-ort.h"

/* Waits for the child pid (its own process group when group) at most
 * `seconds` (0: no bound). Past the bound the group gets SIGTERM, then
 * SIGKILL after a grace, and is reaped. 0 when it ended by itself (its
 * status in *st), 1 when it was ended so, -1 (errno) when waitpid
 * failed. */
int cli_child_wait(pid_t pid, int group, long seconds, int *st);

#endif
