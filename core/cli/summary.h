/*
 * core/cli/summary.h - `--summary`: the model before and after a run
 * (node counts by op type, initializers, opset, file size) and the
 * passes' one-line results, as a table on stderr.
 */
#ifndef QOPT_CLI_SUMMARY_H
#define QOPT_CLI_SUMMARY_H
#include <stdint.h>
#include <stdio.h>
#include <qopt/ir.h>
#include "manager/session-api.h"

struct cli_op_count {
	char *op;		/* owned: "Domain::Op" outside the default domain */
	size_t n;
};

struct cli_summary {
	struct cli_op_count *ops;	/* owned; sorted by op */
	size_t nops;
	size_t nnodes, ninits;
	uint64_t init_bytes;
	int64_t opset;		/* default domain; -1 when none is imported */
	int64_t file_bytes;	/* the model file; -1 unknown */
	int64_t data_bytes;	/* its external data file; -1 none */
};

/* Fills s from m's main graph (owned by s until cli_summary_free).
 * Returns -1 when out of memory. */
int cli_summary_take(struct cli_summary *s, const qir_model *m);
/* The sizes of path and of its data file (NULL: none). */
void cli_summary_files(struct cli_summary *s, const char *path,
		       const char *data_path);
void cli_summary_free(struct cli_summary *s);

/* The before/after table and one line per pass of the session's last
 * run, through its sink. */
void cli_summary_print(qm_session *s, const struct cli_summary *before,
		       const struct cli_summary *after);
#endif
