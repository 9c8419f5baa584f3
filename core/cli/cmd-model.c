/*
 * core/cli/cmd-model.c - `qopt dump` and `qopt verify`: the IR and the
 * verdict are data (qm_data), problems go to the session's sink.
 */
#include <stdio.h>
#include "cli/cli.h"

int cmd_dump(struct cli_opts *c)
{
	qir_model *m = cli_load(c->s, c->input);

	if (!m)
		return QOPT_EXIT_FAIL;
	qir_print(m, qm_data(c->s));
	qir_model_free(m);
	return QOPT_EXIT_OK;	/* main checks that stdout took it all */
}

int cmd_verify(struct cli_opts *c)
{
	qir_error err = { 0 };
	qir_model *m = cli_load(c->s, c->input);
	/* A path may hold control bytes too: shown escaped, as names are. */
	char shown[4 * 4096 + 1];
	int rc = QOPT_EXIT_OK;

	if (!m)
		return QOPT_EXIT_FAIL;
	qir_escape_text(shown, sizeof(shown), c->input);
	if (qir_verify(m, &err) < 0) {
		qm_say(c->s, QOPT_LOG_ERROR, "qopt: %s: error: %s\n", shown,
		       err.msg);
		rc = QOPT_EXIT_FAIL;
	} else {
		fprintf(qm_data(c->s), "%s: ok\n", shown);
	}
	qir_model_free(m);
	return rc;
}
