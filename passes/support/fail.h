/*
 * passes/support/fail.h - a pass's failure with its real status code.
 * A pass's files return -1 up their call chains after saying why; the
 * code that says what kind of failure it was (out of memory, a model the
 * pass cannot accept, a form it does not handle) would be lost on the
 * way. ps_fail says the message (qopt_error) and remembers the code; the
 * pass's run() returns ps_status(rc), which gives that code, or
 * QOPT_EPASS when nothing more precise was said. The first failure of a
 * run wins: later ones are usually its consequences.
 */
#ifndef PASSES_SUPPORT_FAIL_H
#define PASSES_SUPPORT_FAIL_H

#include <qopt/qopt.h>

/* Says fmt's message as an error and remembers code (a qopt_status,
 * not QOPT_OK) as the run's status; returns -1, what the pass's files
 * return on failure. */
int ps_fail(qopt_ctx *ctx, qopt_status code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The status run() returns for rc (0: QOPT_OK, else the remembered code
 * or QOPT_EPASS), forgetting the code for the next run. */
qopt_status ps_status(int rc);

#endif
