/*
 * core/cli/spawn.h - running another program from qopt: a child qopt
 * (the plan's candidates, autocast-tune's rounds) or node for ONNX
 * Runtime, with its output to a log, its TMPDIR, a bounded wait and the
 * stop-signal guard. One copy for every command that spawns.
 */
#ifndef QOPT_CLI_SPAWN_H
#define QOPT_CLI_SPAWN_H

#include <stddef.h>
#include "manager/session-api.h"

/* Runs argv with stdout and stderr to log (NULL: inherited) and
 * TMPDIR=tmp when tmp is not NULL (ONNX Runtime leaves mat-debug-PID.log
 * files in TMPDIR: they go with the caller's temporary folder); waits,
 * at most timeout seconds when timeout > 0 (the child in its own process
 * group then: past the bound the group is ended, SIGTERM then SIGKILL,
 * reaped, and -2 returned). A stop signal to qopt ends the child too
 * (qm_guard_child); a child ended by SIGINT ends qopt by it. who names
 * the command in messages ("qopt plan"). The child's exit status,
 * 128 + its signal, or -1 after saying why. */
int cli_spawn(qm_session *s, const char *who, const char *const *argv,
	      const char *log, const char *tmp, long timeout);

/* This program's path, what /proc/self/exe names, in buf (n bytes).
 * 0, or -1. */
int cli_self_path(char *buf, size_t n);

/* Where a node launcher named name (qopt-plan-ort, ...) is: $env when
 * set and not empty, beside this program when installed there, else
 * the build tree's tools/ copy (caller frees; NULL out of memory). */
char *cli_launcher_path(const char *env, const char *name);

#endif
