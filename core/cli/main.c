/*
 * core/cli/main.c - the qopt command: one session, the command line
 * parsed, the subcommand picked.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <qopt/file.h>
#include "cli/cli.h"

/* A listing or dump that did not reach its reader is a failure. */
static int stdout_done(qm_session *s, int rc)
{
	errno = 0;
	if ((fflush(stdout) == 0 && !ferror(stdout)) || rc)
		return rc;	/* a failed run has said why */
	qm_say(s, QOPT_LOG_ERROR,
	       "qopt: error: cannot write to standard output%s%s\n",
	       errno ? ": " : "", errno ? strerror(errno) : "");
	return QOPT_EXIT_FAIL;
}

static int run_command(struct cli_opts *c)
{
	qir_error err = { 0 };
	int rc;

	/* calibrate's node script has its own stop handling (calib-runner.c) */
	if (strcmp(c->cmd, "calibrate") && qm_guard_install(1)) {
		qm_say(c->s, QOPT_LOG_ERROR,
		       "qopt: error: cannot install the exit handler\n");
		return QOPT_EXIT_FAIL;
	}
	if (!strcmp(c->cmd, "calibrate"))
		return cmd_calibrate(c);
	qm_set_verbosity(c->s, c->quiet ? QOPT_LOG_WARN :
			 c->verbose ? QOPT_LOG_DEBUG : QOPT_LOG_INFO, c->strict);
	if (!strcmp(c->cmd, "dump"))
		rc = cmd_dump(c);
	else if (!strcmp(c->cmd, "verify"))
		rc = cmd_verify(c);
	else if (!strcmp(c->cmd, "bisect"))
		rc = cmd_bisect(c);
	else
		rc = cmd_run(c);
	if (!rc && qir_map_faulted(&err)) {
		/* What was read or printed came partly from zero pages. */
		qm_say(c->s, QOPT_LOG_ERROR, "qopt: error: %s\n", err.msg);
		rc = QOPT_EXIT_FAIL;
	}
	return rc;
}

/* `qopt calibrat ...` would be read as a model named "calibrat" and
 * fail on calibrate's first option ("unknown option '--data'"): a
 * first argument that is no file and a typo of a subcommand is named
 * as one. A file of that name is a model, whatever it is called. */
static int mistyped_command(qm_session *s, const char *arg)
{
	static const char *const cmds[] = { "dump", "verify", "bisect",
					    "calibrate", "plan",
					    "autocast-tune" };
	char hint[QM_DID_YOU_MEAN_SIZE];
	struct stat st;
	size_t i, n = sizeof(cmds) / sizeof(*cmds);

	if (arg[0] == '-' || strpbrk(arg, "./") || stat(arg, &st) == 0)
		return 0;	/* an option, or meant as a path */
	for (i = 0; i < n; i++)
		if (!strcmp(arg, cmds[i]))
			return 0;
	if (!qm_suggest(arg, cmds, n, hint, sizeof(hint))[0])
		return 0;
	qm_say(s, QOPT_LOG_ERROR,
	       "qopt: error: unknown command '%s'%s: no such command or file\n",
	       arg, hint);
	qm_say(s, QOPT_LOG_ERROR, "Try 'qopt --help'.\n");
	return 1;
}

int main(int argc, char **argv)
{
	char dir[PATH_MAX];
	struct cli_opts c;
	qm_session *s;
	int rc;

	cli_use_build_tree_modules();
	s = qm_session_new();
	if (!s || qm_set_builtin_dir(s, cli_builtin_pass_dir(dir, sizeof(dir)))) {
		/* no session, no sink: the one direct write */
		qm_session_free(s);
		fputs("qopt: error: out of memory\n", stderr);
		return QOPT_EXIT_FAIL;
	}
	if (argc > 1 && mistyped_command(s, argv[1])) {
		qm_session_free(s);
		return QOPT_EXIT_USAGE;
	}
	if (argc > 1 && !strcmp(argv[1], "plan")) {	/* its own options */
		rc = qm_guard_install(1) ? QOPT_EXIT_FAIL :
		     cmd_plan(s, argc - 1, argv + 1);
		qm_session_free(s);
		return rc;
	}
	if (argc > 1 && !strcmp(argv[1], "autocast-tune")) {
		rc = qm_guard_install(1) ? QOPT_EXIT_FAIL :
		     cmd_autocast_tune(s, argc - 1, argv + 1);
		qm_session_free(s);
		return rc;
	}
	rc = cli_parse(&c, s, argc, argv);
	if (rc < 0)
		rc = QOPT_EXIT_OK;	/* --help, --version */
	else if (!rc)
		rc = run_command(&c);
	rc = stdout_done(s, rc);
	cli_free(&c);
	qm_session_free(s);
	return rc;
}
