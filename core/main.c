/*
 * core/main.c - the qopt command: picks the subcommand.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"

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
	struct qopt_cli c;
	int rc;

	/* calibrate has options of its own (core/cmd-calibrate.c) */
	if (argc >= 2 && !strcmp(argv[1], "calibrate")) {
		qopt_msg_setup(QOPT_LOG_INFO, 0);
		return stdout_done(qopt_cmd_calibrate(argc - 1, argv + 1));
	}
	rc = qopt_cli_parse(&c, argc, argv);

	if (rc) {
		qopt_cli_free(&c);
		return rc < 0 ? stdout_done(QOPT_EXIT_OK) : rc;
	}
	if (qopt_guard_install()) {
		fprintf(stderr, "qopt: error: cannot install the exit handler\n");
		qopt_cli_free(&c);
		return QOPT_EXIT_FAIL;
	}
	qopt_msg_setup(c.quiet ? QOPT_LOG_WARN :
		       c.verbose ? QOPT_LOG_DEBUG : QOPT_LOG_INFO, c.strict);
	if (!strcmp(c.cmd, "dump"))
		rc = qopt_cmd_dump(&c);
	else if (!strcmp(c.cmd, "verify"))
		rc = qopt_cmd_verify(&c);
	else if (!strcmp(c.cmd, "bisect"))
		rc = qopt_cmd_bisect(&c);
	else
		rc = qopt_cmd_run(&c);
	qopt_cli_free(&c);
	return stdout_done(rc);
}
