/*
 * core/cli/cmd-model.c - `qopt dump` and `qopt verify`.
 */
#include <stdio.h>
#include "cli.h"

int cmd_dump(struct pm_cli *c)
{
	qir_model *m = cli_load(c->input);

	if (!m)
		return QOPT_EXIT_FAIL;
	qir_print(m, stdout);
	qir_model_free(m);
	return fflush(stdout) == 0 ? QOPT_EXIT_OK : QOPT_EXIT_FAIL;
}

int cmd_verify(struct pm_cli *c)
{
	qir_error err = { 0 };
	qir_model *m = cli_load(c->input);
	int rc = QOPT_EXIT_OK;

	if (!m)
		return QOPT_EXIT_FAIL;
	if (qir_verify(m, &err) < 0) {
		fprintf(stderr, "qopt: %s: error: %s\n", c->input, err.msg);
		rc = QOPT_EXIT_FAIL;
	} else {
		printf("%s: ok\n", c->input);
	}
	qir_model_free(m);
	return rc;
}
