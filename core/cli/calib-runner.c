/*
 * core/cli/calib-runner.c - the qopt program's calibration runner
 * (qopt_calib_runner, core/calib/calib-run.h): node running the script
 * qopt-calibrate-ort on the job libqopt wrote, with a bounded wait
 * (cli_child_wait), and the command line's settings for measuring.
 *
 * The script runs in its own process group with TMPDIR the job's
 * temporary folder; a stop signal to qopt ends it and removes the
 * folder's files (the manager's guard, given the library's list and
 * ONNX Runtime's own files once the child's pid is known).
 */
#include "config.h"
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "cli/cli.h"
#include "cli/calib-runner.h"
#include "cli/ort-child.h"
#include "cli/spawn.h"

/* The most files the library's guard list holds (calib-run.c's probe
 * files and the one-command form's). */
#define GUARD_MAX 8
/* ONNX Runtime's own files in its TMPDIR (ort_files) */
#define ORT_FILES 2

/* The script's exit status after an error it printed itself (one
 * line, names escaped): qopt adds nothing (tools/qopt-calibrate.js,
 * EXIT_SAID); EXIT_USAGE_SAID when the error is the command line's
 * (--dim naming no dimension of the model). */
#define SCRIPT_SAID 3
#define SCRIPT_USAGE_SAID 4

/* How the script ended. */
enum script_end { SCRIPT_OK, SCRIPT_FAILED, SCRIPT_INTERRUPTED, SCRIPT_USAGE };

/* The files ONNX Runtime's node binding leaves in its TMPDIR (telemetry:
 * an empty mat-debug-PID.log named after the script's process, and
 * .ses): the script's TMPDIR is qopt's temporary folder, so they are
 * ours to remove, on a stop too (the guard is given their names). */
static void ort_files(const char *dir, pid_t pid,
		      char out[ORT_FILES][4200])
{
	snprintf(out[0], 4200, "%s/mat-debug-%ld.log", dir, (long)pid);
	snprintf(out[1], 4200, "%s/.ses", dir);
}

/* What the script needs besides its arguments: its TMPDIR (qopt's
 * temporary folder), the bound on its run, and the files a stop
 * removes (the guard's list, ORT's files added once its pid is
 * known). */
struct script_run {
	const char *tmpdir;
	long timeout;		/* seconds, 0: none */
	const char *guard[GUARD_MAX + ORT_FILES];
	size_t nguard;
};

/* The child's side: its own process group (a bound that is reached
 * ends whatever node started), TMPDIR, node. */
static void exec_script(qm_session *s, const char *who, const char *node,
			const char *script, const char *job,
			const struct script_run *r)
{
	setpgid(0, 0);
	signal(SIGINT, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (setenv("TMPDIR", r->tmpdir, 1) < 0)
		_exit(127);
	execlp(node, node, script, job, (char *)NULL);
	qm_say_as(s, QOPT_LOG_ERROR, who, "error: cannot run %s (%s): %s; "
		"install node with ./tools/install-deps.sh from qopt's "
		"source tree (Debian: apt-get install nodejs), or set "
		"QOPT_NODE to node's path\n", node, script, strerror(errno));
	_exit(127);
}

/* How a script that ran to its end ended, said unless it said it. */
static enum script_end script_status(qm_session *s, const char *who,
				     const char *node, const char *script,
				     int st)
{
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return SCRIPT_OK;
	if (WIFEXITED(st) && WEXITSTATUS(st) == SCRIPT_USAGE_SAID)
		return SCRIPT_USAGE;
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGINT)
		return SCRIPT_INTERRUPTED;
	if (WIFSIGNALED(st))
		qm_say_as(s, QOPT_LOG_ERROR, who, "error: %s %s ended by signal "
			"%d; no calibration file written\n", node, script,
			WTERMSIG(st));
	else if (WEXITSTATUS(st) != 127 && WEXITSTATUS(st) != SCRIPT_SAID)
		qm_say_as(s, QOPT_LOG_ERROR, who, "error: %s %s failed (exit "
			"status %d); no calibration file written\n", node,
			script, WEXITSTATUS(st));
	return SCRIPT_FAILED;
}

/* Runs the script and waits, at most r->timeout seconds: past it the
 * script's group is ended (SIGTERM, then SIGKILL) and reaped, and the
 * run fails saying so. qopt ignores SIGQUIT meanwhile (like system());
 * a SIGINT, SIGTERM or SIGHUP to qopt ends the script, removes the
 * folder and ends qopt by that signal (130 for SIGINT). A script
 * ended by SIGINT alone is an interruption too. Any other failure is
 * said here, exit status and all: a script that fails silently
 * (QOPT_NODE=/bin/false) still gets a message. */
static enum script_end run_script(qm_session *s, const char *who,
				   const char *script, const char *job,
				   struct script_run *r)
{
	const char *node = getenv("QOPT_NODE");
	struct sigaction ign, old_quit;
	enum script_end end = SCRIPT_FAILED;
	char ort[ORT_FILES][4200];
	pid_t pid;
	int st = 0, k;

	/* QOPT_NODE overrides the node configure found */
	if (!node || !*node)
		node = strcmp(QOPT_CONFIGURED_NODE, "no") ? QOPT_CONFIGURED_NODE :
			"node";
	fflush(NULL);
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGQUIT, &ign, &old_quit);
	pid = fork();
	if (pid < 0) {
		qm_say_as(s, QOPT_LOG_ERROR, who, "error: fork: %s\n",
			strerror(errno));
		goto out;
	}
	if (!pid)
		exec_script(s, who, node, script, job, r);
	setpgid(pid, pid);
	ort_files(r->tmpdir, pid, ort);
	for (k = 0; k < ORT_FILES; k++)
		r->guard[r->nguard + k] = ort[k];
	qm_guard_files(r->guard, r->nguard + ORT_FILES, r->tmpdir);
	qm_guard_child(pid, 1);
	k = cli_child_wait(pid, 1, r->timeout, &st);
	qm_guard_child(0, 1);
	qm_guard_files(r->guard, r->nguard, r->tmpdir);
	unlink(ort[0]);
	unlink(ort[1]);
	if (k < 0)
		qm_say_as(s, QOPT_LOG_ERROR, who, "error: waiting for %s: %s\n",
			script, strerror(errno));
	else if (k > 0)
		qm_say_as(s, QOPT_LOG_ERROR, who, "error: ONNX Runtime did not "
			"finish within %ld s (--ort-timeout, QOPT_ORT_TIMEOUT): "
			"%s %s ended (SIGTERM, then SIGKILL); no calibration "
			"file written\n", r->timeout, node, script);
	else
		end = script_status(s, who, node, script, st);
out:
	sigaction(SIGQUIT, &old_quit, NULL);
	return end;
}


/* qopt_calib_runner: the job run by node, within timeout_s. What went
 * wrong is said here (err stays empty). */
static qopt_status run_job(void *arg, const char *job, const char *result,
			   double timeout_s, qir_error *err)
{
	struct cli_calib *cc = arg;
	struct calib_settings *a = &cc->cs;
	struct script_run r = { 0 };
	size_t k;

	(void)result;	/* the job names it to the script */
	(void)err;
	r.tmpdir = a->tmpdir;
	r.timeout = (long)timeout_s;
	r.nguard = a->nguard < GUARD_MAX ? a->nguard : GUARD_MAX;
	for (k = 0; k < r.nguard; k++)
		r.guard[k] = a->guard[k];
	switch (run_script(a->s, a->who, cc->script, job, &r)) {
	case SCRIPT_OK:
		return QOPT_OK;
	case SCRIPT_USAGE:
		return QOPT_EUSAGE;
	case SCRIPT_INTERRUPTED:
		return QOPT_EINTERRUPTED;
	default:
		return QOPT_EIO;
	}
}

static int begin(void *arg, qk_device *dev)
{
	return cli_run_begin(arg, dev);
}

int cli_calib_init(struct cli_calib *cc, struct cli_opts *c)
{
	struct calib_settings *a = &cc->cs;
	const char *node = getenv("QOPT_NODE");

	memset(cc, 0, sizeof(*cc));
	a->s = c->s;
	a->input = c->input;
	a->data = c->data;
	a->random = c->random;
	a->seed = c->seed;
	a->dims = c->dims;
	a->ndims = c->ndims;
	a->method = c->method ? c->method : "max";
	a->percentile = c->percentile;
	a->ort_timeout = c->ort_timeout;
	a->verbose = c->verbose;
	a->strict = c->strict;
	a->threads = c->threads;
	a->raise_sigint = 1;
	a->begin = begin;
	a->begin_arg = c;
	a->runner = run_job;
	a->runner_arg = cc;
	cc->script = cli_launcher_path("QOPT_CALIBRATE_ORT", "qopt-calibrate-ort");
	if (!cc->script || asprintf(&cc->name, "%s %s", node && *node ? node :
				    "node", cc->script) < 0) {
		cc->name = NULL;
		qm_say(c->s, QOPT_LOG_ERROR, "qopt: error: out of memory\n");
		cli_calib_free(cc);
		return QOPT_EXIT_FAIL;
	}
	a->runner_name = cc->name;
	return QOPT_EXIT_OK;
}

void cli_calib_free(struct cli_calib *cc)
{
	free(cc->script);
	free(cc->name);
	cc->script = cc->name = NULL;
}

int cli_calib_check_samples(struct cli_opts *c, const char *who,
			    const char *out)
{
	struct calib_settings a = { 0 };

	a.s = c->s;
	a.data = c->data;
	return calib_check_samples(&a, who, out);
}

int cli_calib_inline_begin(struct cli_opts *c)
{
	struct cli_calib *cc = malloc(sizeof(*cc));
	int rc;

	if (!cc) {
		qm_say(c->s, QOPT_LOG_ERROR, "qopt: error: out of memory\n");
		return QOPT_EXIT_FAIL;
	}
	rc = cli_calib_init(cc, c);
	if (!rc)
		rc = calib_inline_begin(&cc->cs);
	if (rc) {
		/* a refusal after the hook was set (--strict with nothing to
		 * measure) leaves its state: no run follows, so it goes now */
		calib_inline_end(&cc->cs);
		cli_calib_free(cc);
		free(cc);
		return rc;
	}
	c->calib_inline = cc;
	return QOPT_EXIT_OK;
}

void cli_calib_inline_end(struct cli_opts *c)
{
	struct cli_calib *cc = c->calib_inline;

	if (!cc)
		return;
	calib_inline_end(&cc->cs);
	cli_calib_free(cc);
	free(cc);
	c->calib_inline = NULL;
}
