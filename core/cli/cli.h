/*
 * core/cli/cli.h - the qopt command line (binary only, not in libqopt).
 */
#ifndef QOPT_CLI_H
#define QOPT_CLI_H

#include <stddef.h>
#include <stdint.h>
#include "manager/run.h"

enum { QOPT_EXIT_OK = 0, QOPT_EXIT_FAIL = 1, QOPT_EXIT_USAGE = 2 };

struct pm_cli {
	pm_session *s;		/* the manager's session (main.c owns it) */
	const char *cmd;	/* "run", "dump", "verify", "bisect" */
	const char *input;
	const char *output;
	const char *pipeline_file;
	const char *passes_inline;
	const char *test_cmd;	/* bisect --test */
	const char **plugin_dirs;
	size_t nplugin_dirs;
	const char **loads;
	size_t nloads;
	char **print_after;
	size_t nprint_after;
	const char *stats_json;
	const char *help_pass;
	const char *device;
	const char *external_name;
	int64_t external_threshold; /* -1: not given */
	int64_t bisect_limit;
	int bisect_given;
	int list_passes, print_pipeline, verify_each, print_after_all;
	int print_changed, time_passes, stats, strict, dry_run, all_inline;
	int verbose, quiet, threads;
	int out_discard, stats_discard;	/* -o / --stats-json /dev/null */
	int summary;		/* --summary 1, --no-summary 0, -1: a tty */
};

/* Fills c from argv; prints usage problems and returns QOPT_EXIT_USAGE,
 * or -1 when it printed --help/--version and qopt should exit 0. */
int cli_parse(struct pm_cli *c, int argc, char **argv);
void cli_free(struct pm_cli *c);
void cli_usage(FILE *f);

/* Pipeline and plugins as the options and [qopt] say (core/cli/setup.c).
 * Returns an exit status (0 fine). */
int cli_setup(struct pm_cli *c, struct pm_pipeline *pl,
		   struct pm_registry **reg);
int cli_run_opts(const struct pm_cli *c,
		      const struct pm_pipeline *pl,
		      struct pm_run_opts *o);
void cli_save_opts(const struct pm_cli *c,
			const struct pm_pipeline *pl, qir_save_opts *so);
/* Loads a model, printing "qopt: FILE: error: ..." on failure. */
qir_model *cli_load(pm_session *s, const char *path);

int cmd_run(struct pm_cli *c);
int cmd_dump(struct pm_cli *c);
int cmd_verify(struct pm_cli *c);
int cmd_bisect(struct pm_cli *c);
/* qopt calibrate ARGS (argv[0] is "calibrate"): exit status. */
int cmd_calibrate(pm_session *s, int argc, char **argv);
int cmd_list_passes(const struct pm_registry *r);
int cmd_help_pass(const struct pm_registry *r, const char *name);

#endif
