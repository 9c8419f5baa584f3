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

/* ---- core/manager/guard.c: signals, crashes and exit() inside a pass ---- */

/* Installs the handlers (once): SIGINT/SIGTERM/SIGHUP remove the
 * temporary output files and re-raise; a crash or an exit() while a
 * pass runs names the pass. Nonzero when atexit fails. */
int pm_guard_install(void);
/* The pass running now, for those messages (the manager sets it). */
void pm_guard_enter(const char *pass);
void pm_guard_leave(void);
/* A stop signal also ends this child's process group (SIGTERM) and
 * waits for the child before the cleanup; 0: none. */
void pm_guard_child(pid_t pgid);
/* ... and removes these files (at most 2, replacing the last list;
 * n = 0 clears). -1 when a path does not fit (it is not removed). */
int pm_guard_files(const char *const *paths, size_t n);
/* Async-signal-safe: SIGTERM to pid (to its process group with group)
 * and waits for pid. For stop handlers. */
void pm_child_stop(pid_t pid, int group);

/* ---- core/manager/outfile.c: qopt's own outputs, atomically ------ */

/* A temporary file beside path (QIR_EUSAGE when path is there and is
 * not a regular file or a symlink); *fp writes to it. */
typedef struct pm_outfile pm_outfile;
pm_outfile *pm_outfile_open(const char *path, FILE **fp, qir_error *err);
/* Closes *fp, checking every write, and syncs; still temporary. */
int pm_outfile_ready(pm_outfile *o, qir_error *err);
/* Ready, then renamed over its path; frees o either way. */
int pm_outfile_commit(pm_outfile *o, qir_error *err);
/* Removes the temporary file; frees o. NULL is fine. */
void pm_outfile_abort(pm_outfile *o);
double pm_now(void);

#endif /* QOPT_PM_SYS_H */
