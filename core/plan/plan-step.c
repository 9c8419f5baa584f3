/*
 * core/plan/plan-step.c - the plan's steps in sessions of this process:
 * a candidate (a format's pass on one layer), the plan's pipeline, a
 * calibration. Each runs as the qopt command would run it, with the
 * settings of the plan's session; its messages are kept as the lines
 * the command would have printed, since the plan reports a step's first
 * error as the reason a format cannot hold a layer (plan.h).
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qopt/calib.h>
#include <qopt/session.h>
#include "plan/plan.h"

static int log_put(struct plan_log *log, const char *text)
{
	size_t n = strlen(text);

	if (log->len + n + 1 > log->cap) {
		size_t cap = 2 * (log->len + n + 1) + 256;
		char *g = realloc(log->text, cap);

		if (!g)
			return -1;
		log->text = g;
		log->cap = cap;
	}
	memcpy(log->text + log->len, text, n + 1);
	log->len += n;
	return 0;
}

/* A diagnostic as the qopt command prints it: "qopt: [TAG: ]KIND: MSG". */
static void on_diag(void *arg, const qopt_diag *d)
{
	static const char *const kind[] = { "error: ", "warning: ", "", "" };
	struct plan_log *log = arg;
	char *line = NULL;
	int lv = d->severity < 0 || d->severity > 3 ? 2 : d->severity;

	if (asprintf(&line, "qopt: %s%s%s%s\n", d->pass ? d->pass : "",
		     d->pass ? ": " : "", kind[lv], d->message) < 0)
		return;
	(void)log_put(log, line);
	free(line);
}

static qopt_session *step_session(struct plan *p, unsigned flags,
				  struct plan_log *log)
{
	qopt_session *c = qm_pub_child(p->parent, p->s);
	char v[8];

	if (!c) {
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: out of memory\n");
		return NULL;
	}
	qopt_session_set_diag(c, on_diag, log);
	snprintf(v, sizeof(v), "%d", flags & PLAN_STEP_QUIET ? QOPT_LOG_WARN :
		 QOPT_LOG_INFO);
	if (qopt_session_set(c, "verbosity", v) ||
	    ((flags & PLAN_STEP_STRICT) && qopt_session_set(c, "strict", "1"))) {
		qopt_session_free(c);
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: out of memory\n");
		return NULL;
	}
	return c;
}

/* The run of c's pipeline (rc: how setting it went) on in into out. */
static int step_run(qopt_session *c, qopt_status rc, const char *in,
		    const char *out, unsigned flags, struct plan_log *log)
{
	if (!rc)
		rc = flags & PLAN_STEP_LINK ? qm_pub_run_file_linked(c, in, out) :
		     qopt_session_run_file(c, in, out);
	if (!rc && (flags & PLAN_STEP_STATS) &&
	    qopt_session_report_json(c, &log->stats))
		log->stats = NULL;
	qopt_session_free(c);
	return rc ? 1 : 0;
}

int plan_step_passes(struct plan *p, const char *spec, const char *in,
		     const char *out, unsigned flags, struct plan_log *log)
{
	qopt_session *c = step_session(p, flags, log);

	if (!c)
		return -1;
	return step_run(c, qopt_session_pipeline_passes(c, spec), in, out,
			flags, log);
}

int plan_step_ini(struct plan *p, const char *ini, const char *in,
		  const char *out, unsigned flags, struct plan_log *log)
{
	qopt_session *c = step_session(p, flags, log);

	if (!c)
		return -1;
	return step_run(c, qopt_session_pipeline_file(c, ini), in, out, flags,
			log);
}

int plan_step_calibrate(struct plan *p, const char *in, const char *passes,
			const char *out, struct plan_log *log)
{
	qopt_calib_opts o = { .size = sizeof(o), .samples = p->data };
	qopt_session *c = step_session(p, PLAN_STEP_QUIET, log);
	qopt_calib *ranges = NULL;
	qir_error err = { 0 };
	qopt_status rc;

	if (!c)
		return -1;
	rc = qopt_session_pipeline_passes(c, passes);
	if (!rc)
		rc = qopt_session_calibrate(c, in, &o, p->runner, p->runner_arg,
					    &ranges);
	if (!rc && (rc = qopt_calib_write(ranges, out, &err))) {
		char *line = NULL;

		if (asprintf(&line, "qopt: error: %s\n", err.msg) >= 0)
			(void)log_put(log, line);
		free(line);
	}
	qopt_calib_free(ranges);
	qopt_session_free(c);
	return rc ? 1 : 0;
}

void plan_log_free(struct plan_log *log)
{
	free(log->text);
	free(log->stats);
	memset(log, 0, sizeof(*log));
}

/* The next line of log from *at into line (n bytes, cut); 0 at the end. */
static int next_line(const char **at, char *line, size_t n)
{
	const char *s = *at, *e;
	size_t k;

	if (!s || !*s)
		return 0;
	e = strchr(s, '\n');
	k = e ? (size_t)(e - s) : strlen(s);
	snprintf(line, n, "%.*s", (int)(k < n ? k : n - 1), s);
	*at = e ? e + 1 : s + k;
	return 1;
}

void plan_log_reason(const struct plan_log *log, char *buf, size_t n)
{
	const char *at = log->text;
	char line[2048];
	int first = 1;

	snprintf(buf, n, "the pass failed (no message)");
	while (next_line(&at, line, sizeof(line))) {
		char *e = strstr(line, "error: "), *tag;

		/* no "error:" line (the INI reader's "FILE:LINE: ..."):
		 * the first line says more than nothing */
		if (first && *line) {
			snprintf(buf, n, "%s", strncmp(line, "qopt: ", 6) ?
				 line : line + 6);
			first = 0;
		}
		if (!e || strstr(line, "turned into errors"))
			continue;
		/* "qopt: PASS: error: WHY [--strict]" -> "PASS: WHY" */
		if (!strncmp(line, "qopt: ", 6) && e > line + 6)
			snprintf(buf, n, "%.*s%s", (int)(e - line - 6), line + 6,
				 e + 7);
		else
			snprintf(buf, n, "%s", e + 7);
		/* the [--strict] tag says nothing about the layer */
		if ((tag = strstr(buf, " [--strict]")))
			*tag = 0;
		break;
	}
}

int plan_log_line(const struct plan_log *log, const char *needle, char *buf,
		  size_t n)
{
	const char *at = log->text;
	char line[2048];

	snprintf(buf, n, "(no message)");
	while (next_line(&at, line, sizeof(line)))
		if (strstr(line, needle)) {
			snprintf(buf, n, "%s", strncmp(line, "qopt: ", 6) ?
				 line : line + 6);
			return 0;
		}
	return -1;
}

long plan_stat(const struct plan_log *log, const char *name)
{
	char key[256];
	const char *at;
	long sum = 0;

	if (!log->stats)
		return -1;
	snprintf(key, sizeof(key), "\"%s\": ", name);
	for (at = log->stats; (at = strstr(at, key)); at += strlen(key))
		sum += strtol(at + strlen(key), NULL, 10);
	return sum;
}
