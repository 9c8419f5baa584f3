/*
 * core/manager/log.c - the one sink: every message of the pass manager,
 * of the passes (through their context) and of the qopt command
 * (qm_msg, qm_say) goes to the session's sink, stderr unless its user
 * set another (qm_set_sink). libqopt itself prints nothing; it
 * returns errors.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <qopt/pass.h>
#include "manager/session.h"

void pm_msg_setup(pm_session *s, int level, int strict)
{
	s->max_level = level;
	s->strict = strict;
}

int pm_msg_level(const pm_session *s)
{
	return s ? s->max_level : QOPT_LOG_INFO;
}

unsigned pm_msg_warnings(const pm_session *s)
{
	return s ? s->nwarnings : 0;
}

int pm_msg_tty(pm_session *s)
{
	if (!s)
		return 0;
	if (s->tty < 0)
		s->tty = isatty(2);
	return s->tty;
}

void pm_msg_set_bar(pm_session *s, int shown)
{
	if (s)
		s->bar_shown = shown;
}

/* The default sink: messages after what stdout holds so far, the
 * progress bar as it comes. */
static void to_stderr(int level, const char *text)
{
	if (level != QM_LOG_PROGRESS)
		fflush(stdout);
	fputs(text, stderr);
}

void pm_emit(pm_session *s, int level, const char *text)
{
	if (s && s->sink)
		s->sink(s->sink_arg, level, text);
	else
		to_stderr(level, text);
}

void pm_msg_clear_bar(pm_session *s)
{
	if (s && s->bar_shown) {
		pm_emit(s, QM_LOG_PROGRESS, "\r\033[K");
		s->bar_shown = 0;
	}
}

/* fmt's text, malloc'd (NULL when out of memory). */
static char *format(const char *fmt, va_list ap)
{
	va_list aq;
	char *buf;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0 || !(buf = malloc((size_t)n + 1)))
		return NULL;
	vsnprintf(buf, (size_t)n + 1, fmt, ap);
	return buf;
}

void pm_vmsg(pm_session *s, int level, const char *tag, const char *fmt,
	     va_list ap)
{
	const char *kind = "";
	const char *tail = "";
	int max_level = pm_msg_level(s), strict_mode = s ? s->strict : 0;
	/* One line: control bytes from names in the model are shown as
	 * \xNN (ir/model/error.c does the same for error texts); each
	 * byte may grow to four. */
	char raw[8192], esc[4 * sizeof(raw)], *line;
	size_t n;

	if (level == QOPT_LOG_WARN && s)
		s->nwarnings++;
	/* Errors always show; so do warnings that --strict turns into
	 * errors, whatever the verbosity. */
	if (level > max_level && level != QOPT_LOG_ERROR &&
	    !(level == QOPT_LOG_WARN && strict_mode))
		return;
	if (level == QOPT_LOG_ERROR) {
		kind = "error: ";
	} else if (level == QOPT_LOG_WARN) {
		kind = strict_mode ? "error: " : "warning: ";
		tail = strict_mode ? " [--strict]" : "";
	}
	vsnprintf(raw, sizeof(raw), fmt, ap);
	qir_escape_text(esc, sizeof(esc), raw);
	if (s && s->diag) {
		pm_msg_clear_bar(s);
		s->diag(s->diag_arg, level, strict_mode, tag, esc);
		return;
	}
	n = strlen(esc) + (tag ? strlen(tag) : 0) + 64;
	line = malloc(n);
	pm_msg_clear_bar(s);
	if (!line) {
		pm_emit(s, level, "qopt: error: out of memory\n");
		return;
	}
	if (tag)
		snprintf(line, n, "qopt: %s: %s%s%s\n", tag, kind, esc, tail);
	else
		snprintf(line, n, "qopt: %s%s%s\n", kind, esc, tail);
	pm_emit(s, level, line);
	free(line);
}

/* fmt as given (BISECT: ..., file:line: ...), and a newline. */
void pm_msg_line(pm_session *s, const char *fmt, ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	text = format(fmt, ap);
	va_end(ap);
	pm_msg_clear_bar(s);
	if (!text)
		return;
	pm_emit(s, QOPT_LOG_INFO, text);
	pm_emit(s, QOPT_LOG_INFO, "\n");
	free(text);
}

void pm_msg(pm_session *s, int level, const char *tag, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pm_vmsg(s, level, tag, fmt, ap);
	va_end(ap);
}

void qm_msg(qm_session *s, int level, const char *tag, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pm_vmsg(s, level, tag, fmt, ap);
	va_end(ap);
}

void qm_say(qm_session *s, int level, const char *fmt, ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	text = format(fmt, ap);
	va_end(ap);
	pm_msg_clear_bar(s);
	if (text)
		pm_emit(s, level, text);
	free(text);
}

void qm_say_as(qm_session *s, int level, const char *who, const char *fmt,
	       ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	text = format(fmt, ap);
	va_end(ap);
	qm_say(s, level, "%s: %s", who, text ? text : "out of memory\n");
	free(text);
}

void qm_set_sink(qm_session *s, qm_sink_fn *fn, void *arg)
{
	s->sink = fn;
	s->sink_arg = arg;
}

void qm_set_diag(qm_session *s, qm_diag_fn *fn, void *arg)
{
	s->diag = fn;
	s->diag_arg = arg;
}

void qm_set_verbosity(qm_session *s, int max_level, int strict)
{
	pm_msg_setup(s, max_level, strict);
}

int qm_verbosity(const qm_session *s)
{
	return pm_msg_level(s);
}

FILE *qm_data(const qm_session *s)
{
	return s && s->data ? s->data : stdout;
}

void qm_set_data(qm_session *s, FILE *f)
{
	s->data = f;
}
