/*
 * core/cli/main.c - the qopt command: picks the subcommand.
 */
#include <string.h>
#include "cli.h"

int main(int argc, char **argv)
{
	struct pm_cli c;
	int rc;

	pm_use_build_tree_modules();
	rc = cli_parse(&c, argc, argv);

	if (rc) {
		cli_free(&c);
		return rc < 0 ? QOPT_EXIT_OK : rc;
	}
	pm_msg_setup(c.quiet ? QOPT_LOG_WARN :
		       c.verbose ? QOPT_LOG_DEBUG : QOPT_LOG_INFO, c.strict);
	if (!strcmp(c.cmd, "dump"))
		rc = cmd_dump(&c);
	else if (!strcmp(c.cmd, "verify"))
		rc = cmd_verify(&c);
	else if (!strcmp(c.cmd, "bisect"))
		rc = cmd_bisect(&c);
	else
		rc = cmd_run(&c);
	cli_free(&c);
	return rc;
}
