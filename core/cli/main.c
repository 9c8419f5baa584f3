/*
 * core/cli/main.c - the qopt command: picks the subcommand.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <qopt/file.h>
#include "cli/cli.h"

/* A listing or dump that did not reach its reader is a failure. */
static int stdout_done(int rc)
{
	errno = 0;
	if ((fflush(stdout) == 0 && !ferror(stdout)) || rc)
		return rc;	/* a failed run has said why */
	fprintf(stderr, "qopt: error: cannot write to standard output%s%s\n",
		errno ? ": " : "", errno ? strerror(errno) : "");
	return QOPT_EXIT_FAIL;
}

int main(int argc, char **argv)
{
	struct pm_cli c;
	pm_session *s;
	qir_error err = { 0 };
	int rc;

	pm_use_build_tree_modules();
	s = pm_session_new();
	if (!s) {
		fprintf(stderr, "qopt: error: out of memory\n");
		return QOPT_EXIT_FAIL;
	}
	/* calibrate has options of its own (core/cli/cmd-calibrate.c) */
	if (argc >= 2 && !strcmp(argv[1], "calibrate")) {
		rc = cmd_calibrate(s, argc - 1, argv + 1);
		pm_session_free(s);
		return stdout_done(rc);
	}
	rc = cli_parse(&c, argc, argv);
	c.s = s;
	if (rc) {
		cli_free(&c);
		pm_session_free(s);
		return rc < 0 ? stdout_done(QOPT_EXIT_OK) : rc;
	}
	if (pm_guard_install()) {
		fprintf(stderr, "qopt: error: cannot install the exit handler\n");
		cli_free(&c);
		pm_session_free(s);
		return QOPT_EXIT_FAIL;
	}
	pm_msg_setup(s, c.quiet ? QOPT_LOG_WARN :
		     c.verbose ? QOPT_LOG_DEBUG : QOPT_LOG_INFO, c.strict);
	if (!strcmp(c.cmd, "dump"))
		rc = cmd_dump(&c);
	else if (!strcmp(c.cmd, "verify"))
		rc = cmd_verify(&c);
	else if (!strcmp(c.cmd, "bisect"))
		rc = cmd_bisect(&c);
	else
		rc = cmd_run(&c);
	if (!rc && qir_map_faulted(&err)) {
		/* What was read or printed came partly from zero pages. */
		fprintf(stderr, "qopt: error: %s\n", err.msg);
		rc = QOPT_EXIT_FAIL;
	}
	cli_free(&c);
	pm_session_free(s);
	return stdout_done(rc);
}
