/*
 * core/manager/log.c - the one sink: every message of the pass manager
 * and of the passes (through their context) is written here. libqopt
 * itself prints nothing; it returns errors.
 */
#include <stdarg.h>
#include <stdio.h>
#include <qopt/pass.h>
#include "manager/core.h"

static int max_level = QOPT_LOG_INFO;
static int strict_mode;
static unsigned nwarnings;
static int bar_shown;

void pm_msg_setup(int level, int strict)
{
	max_level = level;
	strict_mode = strict;
}

int pm_msg_level(void)
{
	return max_level;
}

unsigned pm_msg_warnings(void)
{
	return nwarnings;
}

void pm_msg_set_bar(int shown)
{
	bar_shown = shown;
}

void pm_msg_clear_bar(void)
{
	if (bar_shown) {
		fputs("\r\033[K", stderr);
		bar_shown = 0;
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

void pm_vmsg(int level, const char *tag, const char *fmt, va_list ap)
{
	const char *kind = "";
	const char *tail = "";

	if (level == QOPT_LOG_WARN)
		nwarnings++;
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
	pm_msg_clear_bar();
	fflush(stdout);
	if (tag)
		fprintf(stderr, "qopt: %s: %s", tag, kind);
	else
		fprintf(stderr, "qopt: %s", kind);
	put_escaped(fmt, ap);
	fprintf(stderr, "%s\n", tail);
}

void pm_msg_line(const char *fmt, ...)
{
	va_list ap;

	pm_msg_clear_bar();
	fflush(stdout);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void pm_msg(int level, const char *tag, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pm_vmsg(level, tag, fmt, ap);
	va_end(ap);
}
