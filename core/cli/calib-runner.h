/*
 * core/cli/calib-runner.h - the qopt program's side of calibration:
 * its runner (node running qopt-calibrate-ort, bounded) and the
 * measuring settings from its command line (core/calib/calib-run.h).
 */
#ifndef QOPT_CLI_CALIB_RUNNER_H
#define QOPT_CLI_CALIB_RUNNER_H

#include "cli/cli.h"
#include "calib/calib-run.h"

/* The settings of c (which must outlive cc) with the program's runner. */
struct cli_calib {
	struct calib_settings cs;
	char *script;	/* the node script's path */
	char *name;	/* "node SCRIPT", for messages */
};

/* An exit status (out of memory said). cli_calib_free after. */
int cli_calib_init(struct cli_calib *cc, struct cli_opts *c);
void cli_calib_free(struct cli_calib *cc);

/* calib_check_samples for c's --data / --calibration-data. */
int cli_calib_check_samples(struct cli_opts *c, const char *who,
			    const char *out);
/* The one-command form for c's run (calib_inline_begin), its state in
 * c->calib_inline until cli_calib_inline_end (a no-op without). */
int cli_calib_inline_begin(struct cli_opts *c);
void cli_calib_inline_end(struct cli_opts *c);

#endif
