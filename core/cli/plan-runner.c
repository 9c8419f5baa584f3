/*
 * core/cli/plan-runner.c - the qopt program's runner for `qopt plan`
 * (qopt/calib.h's qopt_calib_runner, which libqopt's plan calls): node
 * running qopt-plan-ort on a job that lists "candidates" (the plan's
 * measurements), qopt-calibrate-ort on any other (the calibrations the
 * plan makes), each bounded, in its own process group, with TMPDIR the
 * job's folder, whose ONNX Runtime leftovers it removes.
 */
#include "config.h"
#include <dirent.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <qopt/file.h>
#include "cli/plan-runner.h"
#include "cli/spawn.h"

/* The scripts' exit statuses after an error they said themselves
 * (tools/qopt-plan.js, tools/qopt-calibrate.js: EXIT_SAID,
 * EXIT_USAGE_SAID). */
#define SCRIPT_SAID 3
#define SCRIPT_USAGE_SAID 4

/* A job of the plan's measurements: its JSON lists "candidates". */
static int is_plan_job(const char *job)
{
	qir_error err = { 0 };
	char *text = qir_read_file(job, 0, (size_t)64 << 20, NULL, &err);
	int yes = text && strstr(text, "\"candidates\"");

	free(text);
	return yes;
}

/* ONNX Runtime's node binding leaves mat-debug-PID.log and .ses in its
 * TMPDIR, here the job's folder, which libqopt removes after the job. */
static void remove_ort_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[8400];

	while (d && (e = readdir(d)))
		if (!strcmp(e->d_name, ".ses") ||
		    (!strncmp(e->d_name, "mat-debug-", 10) &&
		     strstr(e->d_name, ".log"))) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
}

static qopt_status ended(qm_session *s, int rc, long timeout,
			 const char *node, const char *script)
{
	if (rc == 0)
		return QOPT_OK;
	if (rc == -2)
		qm_say(s, QOPT_LOG_ERROR, "qopt plan: error: ONNX Runtime "
		       "did not finish within %ld s (--ort-timeout, "
		       "QOPT_ORT_TIMEOUT): %s %s ended (SIGTERM, then "
		       "SIGKILL)\n", timeout, node, script);
	else if (rc == SCRIPT_USAGE_SAID)
		return QOPT_EUSAGE;
	else if (rc > 0 && rc != SCRIPT_SAID && rc != 127)
		qm_say(s, QOPT_LOG_ERROR, "qopt plan: error: %s %s failed "
		       "(exit status %d); install node and ONNX Runtime with "
		       "./tools/install-deps.sh, or set QOPT_NODE\n", node,
		       script, rc);
	return rc == -2 ? QOPT_EINTERRUPTED : QOPT_EIO;
}

qopt_status cli_plan_runner(void *arg, const char *job, const char *result,
			    double timeout_s, qir_error *err)
{
	qm_session *s = arg;
	const char *node = getenv("QOPT_NODE");
	int plan = is_plan_job(job);
	char *script = plan ? cli_launcher_path("QOPT_PLAN_ORT", "qopt-plan-ort") :
		       cli_launcher_path("QOPT_CALIBRATE_ORT",
					 "qopt-calibrate-ort");
	char *copy = strdup(job);
	const char *argv[4];
	qopt_status st;
	int rc;

	(void)result;	/* the job names it to the script */
	(void)err;	/* what went wrong is said here */
	if (!node || !*node)
		node = strcmp(QOPT_CONFIGURED_NODE, "no") ?
		       QOPT_CONFIGURED_NODE : "node";
	if (!script || !copy) {
		qm_say(s, QOPT_LOG_ERROR, "qopt plan: error: out of memory\n");
		free(script);
		free(copy);
		return QOPT_ENOMEM;
	}
	argv[0] = node;
	argv[1] = script;
	argv[2] = job;
	argv[3] = NULL;
	rc = cli_spawn(s, "qopt plan", argv, NULL, dirname(copy),
		       (long)timeout_s);
	remove_ort_files(copy);
	st = ended(s, rc, (long)timeout_s, node, script);
	free(script);
	free(copy);
	return st;
}
