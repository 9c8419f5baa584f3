/*
 * core/manager/msg.h - private to core/manager: the session handle, the
 * message sink every manager message goes through, and the "did you
 * mean" suggestions. The CLI and other users see the session only
 * through core/manager/session-api.h.
 */
#ifndef QOPT_PM_MSG_H
#define QOPT_PM_MSG_H

#include <stdarg.h>
#include <stddef.h>
#include <qopt/pass.h>

/* ---- the session (core/manager/session.c): what the manager keeps
 * between calls, owned by its caller. Every registry, pipeline and run
 * belongs to one; none of the manager's state is global (but for the
 * signal guard, guard.c, which is the process's by nature). ---- */
typedef struct qm_session pm_session;
/* NULL when out of memory. Free after everything made with it. */
pm_session *pm_session_new(void);
void pm_session_free(pm_session *s);

/* ---- messages (core/manager/log.c) ----------------------------------
 * "qopt: <tag>: warning: ...", "qopt: <tag>: error: ...". tag NULL:
 * "qopt: error: ...". Messages above the session's level are dropped.
 * s NULL: level info, not strict, nothing counted.
 */
void pm_msg_setup(pm_session *s, int max_level, int strict);
int pm_msg_level(const pm_session *s);
void pm_msg(pm_session *s, int level, const char *tag, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void pm_vmsg(pm_session *s, int level, const char *tag, const char *fmt,
	     va_list ap);
/* A line as given (BISECT: ..., file:line: ...), through the same sink:
 * after wiping a progress bar, on stderr. */
void pm_msg_line(pm_session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Warnings printed so far in the session (each one fails the run under
 * --strict). */
unsigned pm_msg_warnings(const pm_session *s);
/* Wipes a progress bar off the terminal line before other output. */
void pm_msg_clear_bar(pm_session *s);
void pm_msg_set_bar(pm_session *s, int shown);
/* 1 when stderr is a terminal (asked once per session). */
int pm_msg_tty(pm_session *s);

/* ---- suggestions (core/manager/suggest.c) ---- */
size_t pm_edit_distance(const char *a, const char *b);
/* Closest candidate within a distance that still looks like a typo, or
 * NULL. Borrowed from cands. */
const char *pm_suggest(const char *word, const char *const *cands,
			 size_t n);
/* " (did you mean 'x'?)" or "" into buf; returns buf. */
const char *pm_did_you_mean(const char *word, const char *const *cands,
			    size_t n, char *buf, size_t size);
/* The size of buffer pm_did_you_mean needs for a name of up to 200
 * bytes (longer ones are cut). */
#define PM_DID_YOU_MEAN_SIZE 256

#endif /* QOPT_PM_MSG_H */
