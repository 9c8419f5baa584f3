/*
 * core/manager/log.c - the one sink: every message of the pass manager
 * and of the passes (through their context) is written here. libqopt
 * itself prints nothing; it returns errors.
 */
#include <stdarg.h>
#include <stdio.h>
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

void pm_msg_clear_bar(pm_session *s)
{
	if (s && s->bar_shown) {
		fputs("\r\033[K", stderr);
		s->bar_shown = 0;
	}
}

/* One line each: control bytes from names in the model are shown as
 * \xNN (ir/model/error.c does the same for error texts). */
static void put_escaped(const char *fmt, va_list ap)
{
	/* Each byte may grow to four (\xNN). */
	char raw[8192], esc[4 * sizeof(raw)];

	vsnprintf(raw, sizeof(raw), fmt, ap);
	qir_escape_text(esc, sizeof(esc), raw);
	fputs(esc, stderr);
}

void pm_vmsg(pm_session *s, int level, const char *tag, const char *fmt,
	     va_list ap)
{
	const char *kind = "";
	const char *tail = "";
	int max_level = pm_msg_level(s), strict_mode = s ? s->strict : 0;

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
	pm_msg_clear_bar(s);
	fflush(stdout);
	if (tag)
		fprintf(stderr, "qopt: %s: %s", tag, kind);
	else
		fprintf(stderr, "qopt: %s", kind);
	put_escaped(fmt, ap);
	fprintf(stderr, "%s\n", tail);
}

void pm_msg_line(pm_session *s, const char *fmt, ...)
{
	va_list ap;

	pm_msg_clear_bar(s);
	fflush(stdout);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void pm_msg(pm_session *s, int level, const char *tag, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pm_vmsg(s, level, tag, fmt, ap);
	va_end(ap);
}
