/*
 * core/cli/cli.h - the qopt command line (binary only, not in libqopt).
 * It uses the pass manager through core/manager/session-api.h only,
 * and says everything through the session's sink (qm_msg, qm_say);
 * data (IR, listings, reports) goes to qm_data().
 */
#ifndef QOPT_CLI_H
#define QOPT_CLI_H

#include <stddef.h>
#include <stdint.h>
#include "manager/session-api.h"

enum { QOPT_EXIT_OK = QM_OK, QOPT_EXIT_FAIL = QM_FAIL,
       QOPT_EXIT_USAGE = QM_USAGE };

/* The command line, as cli_parse read it (one parser for every
 * subcommand: each option says which commands take it). */
struct cli_opts {
	qm_session *s;		/* the manager's session (main.c owns it) */
	const char *cmd;	/* "run", "dump", "verify", "bisect", "calibrate" */
	const char *input;
	const char *output;
	char *output_buf;	/* the default output, when output is it */
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
	/* calibrate */
	const char *data;	/* --data DIR */
	const char **dims;	/* --dim NAME=VALUE */
	size_t ndims;
	double percentile;	/* 100: plain max */
	int percentile_given;
	/* --method: max, percentile, entropy or mse (measured by
	 * tools/qopt-calib-hist.js); set by cli_parse, never NULL after */
	const char *method;
	long random, seed;
	long ort_timeout;	/* --ort-timeout seconds (0: none), -1: not given */
	/* the main command: --calibration-data / --calibration-random,
	 * --seed, --dim or --percentile given (they set the fields above) */
	int calib_given;
	/* calibrate: an option of measuring given (not with --merge) */
	int measure_given;
	/* calibrate --merge A B...: the files merged into -o */
	int merge;
	const char **merge_in;
	size_t nmerge_in;
	void *calib_inline;	/* calib-runner.c's, while a run calibrates */
};

/* Fills c from argv (argv[1] may name the command); prints usage
 * problems and returns QOPT_EXIT_USAGE, or -1 when it printed --help
 * or --version and qopt should exit 0. */
int cli_parse(struct cli_opts *c, qm_session *s, int argc, char **argv);
void cli_free(struct cli_opts *c);
/* Decimal digits only, lo..hi: no sign, space, exponent or base
 * prefix, so what is checked is what is used. 0, or -1. */
int cli_parse_uint(const char *s, unsigned long long lo,
		   unsigned long long hi, long *out);
void cli_usage(FILE *f);

/* Parses the pipeline (passes when -p and --passes are not given),
 * loads its plugins, resolves it (core/cli/setup.c). Returns an exit
 * status (0 fine). */
int cli_setup(struct cli_opts *c, const char *passes);
/* Registers the hooks the options and [qopt] ask for and picks the
 * device (core/cli/setup.c); once per session. An exit status. */
int cli_run_begin(struct cli_opts *c, qk_device *device);
void cli_save_opts(const struct cli_opts *c, qir_save_opts *so);
/* Loads a model, printing "qopt: FILE: error: ..." on failure. */
qir_model *cli_load(qm_session *s, const char *path);

/* Where this program's pieces are (core/cli/discovery.c). The built-in
 * passes: this build tree's passes/.libs when run uninstalled from it,
 * a DESTDIR-staged folder (in buf, PATH_MAX), else $(pkglibdir)/passes. */
const char *cli_builtin_pass_dir(char *buf, size_t len);
/* Run from the build tree: libqopt's CUDA module search goes to this
 * tree's module (QOPT_CUDA_MODULE, unless the user set it). */
void cli_use_build_tree_modules(void);
/* The build tree's top folder when run uninstalled from it, else NULL. */
const char *cli_build_tree(void);

int cmd_run(struct cli_opts *c);
int cmd_dump(struct cli_opts *c);
int cmd_verify(struct cli_opts *c);
int cmd_bisect(struct cli_opts *c);
int cmd_calibrate(struct cli_opts *c);
/* `qopt plan` (core/cli/cmd-plan.c) parses its own options. */
int cmd_plan(qm_session *s, int argc, char **argv);
/* `qopt autocast-tune` (core/cli/cmd-autocast-tune.c), likewise. */
int cmd_autocast_tune(qm_session *s, int argc, char **argv);
int cmd_list_passes(struct cli_opts *c);
int cmd_help_pass(struct cli_opts *c, const char *name);

#endif
