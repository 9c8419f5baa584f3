/*
 * core/manager/sys.h - private to core/manager: what belongs to the
 * process rather than to a session: the signal guard (guard.c), the
 * atomic output files (outfile.c) and the clock.
 */
#ifndef QOPT_PM_SYS_H
#define QOPT_PM_SYS_H

#include <stdio.h>
#include <sys/types.h>
#include <qopt/pass.h>
#include "manager/session-api.h"

/* ---- core/manager/guard.c: signals, crashes and exit() inside a pass ---- */

/* qm_guard_install, qm_guard_child, qm_guard_files and qm_guard_folder
 * are declared in session-api.h: SIGINT/SIGTERM/SIGHUP remove the
 * temporary output files and re-raise; a crash or an exit() while a
 * pass runs names the pass. */
/* The pass running now, for those messages (the manager sets it). */
void pm_guard_enter(const char *pass);
void pm_guard_leave(void);
/* Async-signal-safe: SIGTERM to pid (to its process group with group),
 * SIGKILL if it is still there 5 s later, and waits for pid. For stop
 * handlers. */
void pm_child_stop(pid_t pid, int group);

/* ---- core/manager/outfile.c: qopt's own outputs, atomically ------ */

/* A temporary file beside path (QIR_EUSAGE when path is there and is
 * not a regular file or a symlink); *fp writes to it. */
typedef struct qm_outfile pm_outfile;
pm_outfile *pm_outfile_open(const char *path, FILE **fp, qir_error *err);
/* Closes *fp, checking every write, and syncs; still temporary. */
int pm_outfile_ready(pm_outfile *o, qir_error *err);
/* Ready, then renamed over its path; frees o either way. */
int pm_outfile_commit(pm_outfile *o, qir_error *err);
/* Removes the temporary file; frees o. NULL is fine. */
void pm_outfile_abort(pm_outfile *o);
double pm_now(void);

#endif /* QOPT_PM_SYS_H */
