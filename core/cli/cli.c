/*
 * core/cli/cli.c - the command line's one parser (getopt_long over one
 * table: each option names the commands that take it, so `qopt
 * calibrate` and the main command parse alike) and the usage texts.
 */
#include "config.h"
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/ort-child.h"

enum {
	OPT_PASSES = 256, OPT_LOAD, OPT_LIST, OPT_HELP_PASS, OPT_PRINT_PL,
	OPT_VERIFY_EACH, OPT_PRINT_AFTER, OPT_PRINT_AFTER_ALL,
	OPT_PRINT_CHANGED, OPT_TIME, OPT_STATS, OPT_STATS_JSON, OPT_STRICT,
	OPT_BISECT_LIMIT, OPT_DEVICE, OPT_EXT_THRESHOLD, OPT_EXT_NAME,
	OPT_ALL_INLINE, OPT_DRY_RUN, OPT_THREADS, OPT_TEST, OPT_SUMMARY,
	OPT_NO_SUMMARY, OPT_PERCENTILE, OPT_RANDOM, OPT_SEED, OPT_DIM,
	OPT_CAL_DATA, OPT_CAL_RANDOM, OPT_METHOD, OPT_ORT_TIMEOUT, OPT_MERGE,
};

/* Which commands take an option: the main command (run, dump, verify,
 * bisect) and calibrate. */
enum { MAIN = 1, CALIB = 2, BOTH = 3 };

struct cli_option {
	struct option o;
	unsigned cmds;
};

/* In each command's order of old, so that abbreviations resolve as
 * they always did. */
static const struct cli_option table[] = {
	{ { "pipeline", required_argument, NULL, 'p' }, MAIN },
	{ { "passes", required_argument, NULL, OPT_PASSES }, MAIN },
	{ { "output", required_argument, NULL, 'o' }, MAIN },
	{ { "plugin-dir", required_argument, NULL, 'L' }, MAIN },
	{ { "load", required_argument, NULL, OPT_LOAD }, MAIN },
	{ { "list-passes", no_argument, NULL, OPT_LIST }, MAIN },
	{ { "help-pass", required_argument, NULL, OPT_HELP_PASS }, MAIN },
	{ { "print-pipeline", no_argument, NULL, OPT_PRINT_PL }, MAIN },
	{ { "verify-each", no_argument, NULL, OPT_VERIFY_EACH }, MAIN },
	{ { "print-after", required_argument, NULL, OPT_PRINT_AFTER }, MAIN },
	{ { "print-after-all", no_argument, NULL, OPT_PRINT_AFTER_ALL }, MAIN },
	{ { "print-changed", no_argument, NULL, OPT_PRINT_CHANGED }, MAIN },
	{ { "time-passes", no_argument, NULL, OPT_TIME }, MAIN },
	{ { "stats", no_argument, NULL, OPT_STATS }, MAIN },
	{ { "stats-json", required_argument, NULL, OPT_STATS_JSON }, MAIN },
	{ { "summary", no_argument, NULL, OPT_SUMMARY }, MAIN },
	{ { "no-summary", no_argument, NULL, OPT_NO_SUMMARY }, MAIN },
	{ { "strict", no_argument, NULL, OPT_STRICT }, MAIN },
	{ { "bisect-limit", required_argument, NULL, OPT_BISECT_LIMIT }, MAIN },
	{ { "device", required_argument, NULL, OPT_DEVICE }, MAIN },
	{ { "threads", required_argument, NULL, OPT_THREADS }, MAIN },
	{ { "external-threshold", required_argument, NULL, OPT_EXT_THRESHOLD },
	  MAIN },
	{ { "external-name", required_argument, NULL, OPT_EXT_NAME }, MAIN },
	{ { "all-inline", no_argument, NULL, OPT_ALL_INLINE }, MAIN },
	{ { "dry-run", no_argument, NULL, OPT_DRY_RUN }, MAIN },
	{ { "test", required_argument, NULL, OPT_TEST }, MAIN },
	{ { "verbose", no_argument, NULL, 'v' }, MAIN },
	{ { "quiet", no_argument, NULL, 'q' }, MAIN },
	{ { "help", no_argument, NULL, 'h' }, MAIN },
	{ { "version", no_argument, NULL, 'V' }, MAIN },
	{ { "calibration-data", required_argument, NULL, OPT_CAL_DATA }, MAIN },
	{ { "calibration-random", required_argument, NULL, OPT_CAL_RANDOM },
	  MAIN },
	{ { "seed", required_argument, NULL, OPT_SEED }, MAIN },
	{ { "dim", required_argument, NULL, OPT_DIM }, MAIN },
	{ { "percentile", required_argument, NULL, OPT_PERCENTILE }, MAIN },
	{ { "method", required_argument, NULL, OPT_METHOD }, MAIN },
	{ { "ort-timeout", required_argument, NULL, OPT_ORT_TIMEOUT }, MAIN },
	{ { "data", required_argument, NULL, 'd' }, CALIB },
	{ { "output", required_argument, NULL, 'o' }, CALIB },
	{ { "percentile", required_argument, NULL, OPT_PERCENTILE }, CALIB },
	{ { "method", required_argument, NULL, OPT_METHOD }, CALIB },
	{ { "random", required_argument, NULL, OPT_RANDOM }, CALIB },
	{ { "seed", required_argument, NULL, OPT_SEED }, CALIB },
	{ { "dim", required_argument, NULL, OPT_DIM }, CALIB },
	{ { "ort-timeout", required_argument, NULL, OPT_ORT_TIMEOUT }, CALIB },
	{ { "pipeline", required_argument, NULL, 'p' }, CALIB },
	{ { "passes", required_argument, NULL, OPT_PASSES }, CALIB },
	{ { "load", required_argument, NULL, OPT_LOAD }, CALIB },
	{ { "plugin-dir", required_argument, NULL, 'L' }, CALIB },
	{ { "help", no_argument, NULL, 'h' }, CALIB },
	{ { "verbose", no_argument, NULL, 'v' }, CALIB },
	{ { "quiet", no_argument, NULL, 'q' }, CALIB },
	{ { "merge", no_argument, NULL, OPT_MERGE }, CALIB },
};
#define NOPTIONS (sizeof(table) / sizeof(*table))

/* The short options of each command. */
static const char *const shortopts[] = {
	[MAIN] = ":p:o:L:vqhV", [CALIB] = ":d:o:p:L:hvq",
};

void cli_usage(FILE *f)
{
	fputs(
"usage: qopt [OPTIONS] MODEL.onnx [-o OUT.onnx] run a pipeline (none: round trip)\n"
"       qopt dump MODEL.onnx                    print the IR\n"
"       qopt verify MODEL.onnx                  check a model\n"
"       qopt bisect [OPTIONS] MODEL.onnx --test 'CMD {}' [-o DIR]\n"
"       qopt calibrate MODEL.onnx --data DIR | --random N [--seed S]\n"
"                      [--dim NAME=VALUE] [-o CALIB.json] [--percentile P]\n"
"                      [--method max|percentile|entropy|mse]\n"
"                      [--ort-timeout S]\n"
"                      [-p FILE | --passes LIST] activation ranges the\n"
"                                               passes read (default fp8-mha)\n"
"       qopt plan MODEL.onnx --data DIR --formats LIST (--effective-bits B |\n"
"                 --max-loss X) [-o PLAN.ini] [--json REPORT.json]\n"
"                                               a format per layer, measured\n"
"       qopt autocast-tune MODEL.onnx --data DIR -o KEEP.txt\n"
"                                               autocast's FLOAT nodes, measured\n"
"       qopt --list-passes | --help-pass NAME\n"
"\n"
"Pipeline:\n"
"  -p, --pipeline FILE       passes and options from an INI file\n"
"      --passes LIST         inline: 'name[:key=val...][,name...]' (list items: ';';\n"
"                            values with ':' or ',' in quotes: key=\"onnx::W*\")\n"
"      --print-pipeline      print the parsed pipeline as INI and exit\n"
"  -o, --output FILE         output model (default: MODEL.qopt.onnx;\n"
"                            /dev/null: run and verify, write nothing)\n"
"      --dry-run             run the passes, write nothing\n"
"Plugins:\n"
"  -L, --plugin-dir DIR      load every *.so in DIR (also QOPT_PLUGIN_PATH)\n"
"      --load FILE.so        load one plugin\n"
"      --list-passes         list passes with plugin, version and summary\n"
"      --help-pass NAME      a pass's options\n"
"Instrumentation:\n"
"      --verify-each         verify the IR after every pass\n"
"      --print-after NAMES   print the IR after these passes (comma-separated)\n"
"      --print-after-all     print the IR after every pass\n"
"      --print-changed       print the IR after passes that changed it\n"
"      --time-passes         per-pass wall time at exit\n"
"      --stats               counters the passes reported, kernel statistics\n"
"      --stats-json FILE     the same as JSON\n"
"      --summary, --no-summary  before/after table of the model and the\n"
"                            passes' results (default: on when stderr is a\n"
"                            terminal)\n"
"      --strict              warnings are errors\n"
"      --bisect-limit N      run only the first N passes/rewrites (-1: all)\n"
"Execution and output:\n"
"      --device cpu|cuda|auto  kernel device (also QOPT_DEVICE)\n"
"      --threads N           CPU threads for kernels (0: all)\n"
"      --external-threshold BYTES  tensors this large go to external data\n"
"      --external-name NAME  external data file name\n"
"      --all-inline          keep every tensor inline\n"
"Calibration (one command from a float model):\n"
"      --calibration-data DIR  before each pass that reads a calibration\n"
"                            file, measure its ranges on the model as it\n"
"                            is then (samples as for qopt calibrate --data)\n"
"      --calibration-random N  N seeded random samples (smoke test only);\n"
"                            --seed S, --dim NAME=VALUE as qopt calibrate\n"
"      --percentile P        as qopt calibrate (default 100: max)\n"
"      --method M            as qopt calibrate: max (default), percentile,\n"
"                            entropy or mse (INT8 thresholds)\n"
"      --ort-timeout S       bound on each ONNX Runtime run, seconds (0: none;\n"
"                            also QOPT_ORT_TIMEOUT; default sized for the\n"
"                            model and samples)\n"
"Bisect:\n"
"      --test 'CMD {}'       exit 0 good, 1-124 bad, 125 skip; 126, 127, a\n"
"                            signal, above 127: error; {} = candidate\n"
"  -o DIR                    where bisect leaves its files (default qopt-bisect)\n"
"General:\n"
"  -v, --verbose             debug messages (and BISECT lines in bisect runs)\n"
"  -q, --quiet               only warnings and errors\n"
"  -h, --help                this help\n"
"  -V, --version             version and plugin ABI\n"
"\n"
"Exit status: 0 success, 1 failure (bad model, pass failure, --strict\n"
"warning), 2 bad usage or pipeline. See qopt(1).\n", f);
}

/* `qopt calibrate`'s usage, on stderr (as it always was). */
static void calib_usage_text(qm_session *s)
{
	qm_say(s, QOPT_LOG_INFO, "%s",
	       "usage: qopt calibrate MODEL.onnx --data DIR [-o CALIB.json] "
	       "[--percentile P]\n"
	       "       [--method max|percentile|entropy|mse] (default max; "
	       "entropy, mse: INT8)\n"
	       "       qopt calibrate MODEL.onnx --random N [--seed S] "
	       "[--dim NAME=VALUE]... (smoke test only)\n"
	       "       qopt calibrate --merge A.json B.json... -o OUT.json "
	       "(files of one model,\n       method max: the max of each "
	       "tensor, the samples added up)\n"
	       "  the pipeline whose passes say what to measure: -p FILE.ini or "
	       "--passes LIST\n"
	       "  (default --passes fp8-mha); plugins: -L DIR, --load FILE.so\n"
	       "  --data: a folder of samples, or one batch, FILE.npz (an array "
	       "per input)\n"
	       "  or FILE.npy (NAME.npy for input NAME), N samples on the first "
	       "axis\n"
	       "  --ort-timeout S: bound on ONNX Runtime's run in seconds (0: "
	       "none; also\n  QOPT_ORT_TIMEOUT; default 600 + per sample 10 + "
	       "60 per GiB of model)\n"
	       "  -v: ONNX Runtime's own log too; -q: only warnings and errors\n");
}

/* A usage problem, said as the command says them. */
static int usage_error(const struct cli_opts *c, const char *msg,
		       const char *arg)
{
	if (!strcmp(c->cmd, "calibrate")) {
		qm_say(c->s, QOPT_LOG_ERROR, "qopt calibrate: error: %s%s%s\n",
		       msg, arg ? " " : "", arg ? arg : "");
		calib_usage_text(c->s);
		return QOPT_EXIT_USAGE;
	}
	qm_say(c->s, QOPT_LOG_ERROR, "qopt: error: %s%s%s%s\n", msg,
	       arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
	qm_say(c->s, QOPT_LOG_ERROR, "Try 'qopt --help'.\n");
	return QOPT_EXIT_USAGE;
}

static int push(const char ***v, size_t *n, const char *s)
{
	const char **grown = realloc(*v, (*n + 1) * sizeof(*grown));

	if (!grown)
		return -1;
	grown[(*n)++] = s;
	*v = grown;
	return 0;
}

static int push_names(struct cli_opts *c, const char *list)
{
	char *copy = strdup(list), *save = NULL, *tok;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *dup = strdup(tok);
		char **grown = realloc(c->print_after,
				       (c->nprint_after + 1) * sizeof(*grown));

		if (!dup || !grown) {
			free(dup);
			free(copy);
			return -1;
		}
		c->print_after = grown;
		c->print_after[c->nprint_after++] = dup;
	}
	free(copy);
	return 0;
}

static int parse_int(const struct cli_opts *c, const char *opt,
		     const char *s, int64_t min, int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (!*s || *end || errno || v < min) {
		qm_say(c->s, QOPT_LOG_ERROR,
		       "qopt: error: %s expects an integer >= %lld, got '%s'\n",
		       opt, (long long)min, s);
		return -1;
	}
	*out = v;
	return 0;
}

/* An int setting: a value beyond INT_MAX must not wrap. */
static int parse_small_int(const struct cli_opts *c, const char *opt,
			   const char *s, int min, int *out)
{
	int64_t v;

	if (parse_int(c, opt, s, min, &v) < 0)
		return -1;
	if (v > INT_MAX) {
		qm_say(c->s, QOPT_LOG_ERROR,
		       "qopt: error: %s expects an integer from %d to %d, got '%s'\n",
		       opt, min, INT_MAX, s);
		return -1;
	}
	*out = (int)v;
	return 0;
}

/* Plain decimal only: no hex, inf or nan spellings. */
static int parse_number(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	if (s[strspn(s, "0123456789.eE+-")])
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v <= hi))
		return -1;
	*out = v;
	return 0;
}

int cli_parse_uint(const char *s, unsigned long long lo,
		   unsigned long long hi, long *out)
{
	unsigned long long v = 0;
	const char *p = s;

	if (!*p)
		return -1;
	for (; *p; p++) {
		if (*p < '0' || *p > '9' || v > (hi - (unsigned)(*p - '0')) / 10)
			return -1;
		v = v * 10 + (unsigned)(*p - '0');
	}
	if (v < lo)
		return -1;
	*out = (long)v;
	return 0;
}

static int method_known(const char *m)
{
	return !strcmp(m, "max") || !strcmp(m, "percentile") ||
	       !strcmp(m, "entropy") || !strcmp(m, "mse");
}

/* calibrate's own options; -1 after the usage error. */
static int take_calib_option(struct cli_opts *c, int ch, const char *arg)
{
	long v;

	if (strcmp(c->cmd, "calibrate"))
		c->calib_given = 1;	/* the main command's calibration */
	else
		c->measure_given = 1;	/* not with --merge */
	switch (ch) {
	case 'd':
	case OPT_CAL_DATA:
		c->data = arg;
		break;
	case OPT_PERCENTILE:
		if (parse_number(arg, 50.0, 100.0, &c->percentile))
			return usage_error(c, "--percentile takes a number "
					   "from 50 to 100, got", arg), -1;
		c->percentile_given = 1;
		break;
	case OPT_METHOD:
		if (!method_known(arg))
			return usage_error(c, "--method takes max, percentile, "
					   "entropy or mse, got", arg), -1;
		c->method = arg;
		break;
	case OPT_RANDOM:
	case OPT_CAL_RANDOM:
		if (cli_parse_uint(arg, 1, 1000000, &v))
			return usage_error(c, ch == OPT_RANDOM ? "--random takes "
					   "a sample count from 1 to 1000000, got" :
					   "--calibration-random takes a sample "
					   "count from 1 to 1000000, got", arg), -1;
		c->random = v;
		break;
	case OPT_SEED:
		if (cli_parse_uint(arg, 0, 4294967295ULL, &v))
			return usage_error(c, "--seed takes an integer from 0 "
					   "to 2^32-1, got", arg), -1;
		c->seed = v;
		break;
	case OPT_ORT_TIMEOUT:
		if (calib_ort_timeout_parse(arg, &c->ort_timeout))
			return usage_error(c, "--ort-timeout takes seconds from "
					   "0 (no bound) to 31536000, got",
					   arg), -1;
		break;
	case OPT_DIM:
		if (!strchr(arg, '=') || arg[0] == '=' ||
		    cli_parse_uint(strchr(arg, '=') + 1, 1, 1000000000, &v))
			return usage_error(c, "--dim expects NAME=VALUE with a "
					   "positive integer VALUE, got", arg), -1;
		if (push(&c->dims, &c->ndims, arg) < 0)
			return usage_error(c, "out of memory", NULL), -1;
		break;
	default: return -1;
	}
	return 0;
}

/* -1 after saying why. */
static int take_option(struct cli_opts *c, int ch, const char *arg)
{
	int calib = !strcmp(c->cmd, "calibrate");

	switch (ch) {
	case 'p': c->pipeline_file = arg; break;
	case OPT_PASSES: c->passes_inline = arg; break;
	case 'o': c->output = arg; break;
	case 'L':
	case OPT_LOAD:
		if (push(ch == 'L' ? &c->plugin_dirs : &c->loads,
			 ch == 'L' ? &c->nplugin_dirs : &c->nloads, arg) == 0)
			break;
		if (calib)
			usage_error(c, "out of memory", NULL);
		return -1;
	case OPT_LIST: c->list_passes = 1; break;
	case OPT_HELP_PASS: c->help_pass = arg; break;
	case OPT_PRINT_PL: c->print_pipeline = 1; break;
	case OPT_VERIFY_EACH: c->verify_each = 1; break;
	case OPT_PRINT_AFTER: return push_names(c, arg);
	case OPT_PRINT_AFTER_ALL: c->print_after_all = 1; break;
	case OPT_PRINT_CHANGED: c->print_changed = 1; break;
	case OPT_TIME: c->time_passes = 1; break;
	case OPT_STATS: c->stats = 1; break;
	case OPT_STATS_JSON: c->stats_json = arg; break;
	case OPT_SUMMARY: c->summary = 1; break;
	case OPT_NO_SUMMARY: c->summary = 0; break;
	case OPT_STRICT: c->strict = 1; break;
	case OPT_BISECT_LIMIT:
		c->bisect_given = 1;
		return parse_int(c, "--bisect-limit", arg, -1,
				 &c->bisect_limit);
	case OPT_DEVICE:
		if (qk_device_from_name(arg) < 0) {
			qm_say(c->s, QOPT_LOG_ERROR,
			       "qopt: error: --device expects cpu, cuda or auto, got '%s'\n",
			       arg);
			return -1;
		}
		c->device = arg;
		break;
	case OPT_THREADS:
		return parse_small_int(c, "--threads", arg, 0, &c->threads);
	case OPT_EXT_THRESHOLD:
		return parse_int(c, "--external-threshold", arg, 0,
				 &c->external_threshold);
	case OPT_EXT_NAME: c->external_name = arg; break;
	case OPT_ALL_INLINE: c->all_inline = 1; break;
	case OPT_DRY_RUN: c->dry_run = 1; break;
	case OPT_TEST: c->test_cmd = arg; break;
	case 'v': c->verbose++; break;
	case 'q': c->quiet = 1; break;
	case OPT_MERGE: c->merge = 1; break;
	default: return take_calib_option(c, ch, arg);
	}
	return 0;
}

static void pick_command(struct cli_opts *c, int *argc, char ***argv)
{
	static const char *const cmds[] = { "dump", "verify", "bisect",
					    "calibrate" };
	size_t i;

	c->cmd = "run";
	if (*argc < 2)
		return;
	for (i = 0; i < sizeof(cmds) / sizeof(*cmds); i++) {
		if (!strcmp((*argv)[1], cmds[i])) {
			c->cmd = cmds[i];
			(*argc)--;
			(*argv)++;
			break;
		}
	}
}

/* Without -o, MODEL.onnx becomes MODEL<suffix> beside it, like a
 * compiler's default output: never the input itself. NULL when the
 * path would pass max bytes. */
static char *default_output(const char *input, const char *suffix,
			    size_t max)
{
	size_t n = strlen(input), k = strlen(suffix);
	char *out;

	if (n > 5 && !strcmp(input + n - 5, ".onnx"))
		n -= 5;
	if (n + k + 1 > max)
		return NULL;
	out = malloc(n + k + 1);
	if (out) {
		memcpy(out, input, n);
		memcpy(out + n, suffix, k + 1);
	}
	return out;
}

/* The main command's calibration options (one command from a float
 * model): for a run only, one source of samples. */
static int check_calibration(struct cli_opts *c)
{
	if (!c->calib_given)
		return 0;
	if (strcmp(c->cmd, "run"))
		return usage_error(c, "--calibration-data and its options "
				   "belong to the main command (qopt MODEL -o "
				   "OUT), not to", c->cmd);
	if (c->data && c->random)
		return usage_error(c, "give either --calibration-data DIR or "
				   "--calibration-random N, not both", NULL);
	if (!c->data && !c->random)
		return usage_error(c, "--seed, --dim, --percentile, --method "
				   "and --ort-timeout belong to "
				   "--calibration-data DIR or "
				   "--calibration-random N", NULL);
	if (c->ndims && !c->random)
		return usage_error(c, "--dim belongs to --calibration-random",
				   NULL);
	if (c->data && !*c->data)
		return usage_error(c, "--calibration-data needs a folder, "
				   "got ''", NULL);
	return 0;
}

static int check_combination(struct cli_opts *c)
{
	int inspect = c->list_passes || c->help_pass || c->print_pipeline;

	if (check_calibration(c))
		return QOPT_EXIT_USAGE;

	if (c->pipeline_file && c->passes_inline)
		return usage_error(c, "give either -p or --passes, not both",
				   NULL);
	if (!strcmp(c->cmd, "bisect") && !c->test_cmd)
		return usage_error(c, "bisect needs --test 'CMD {}'", NULL);
	if (strcmp(c->cmd, "bisect") && c->test_cmd)
		return usage_error(c, "--test belongs to 'qopt bisect'", NULL);
	if (inspect && !strcmp(c->cmd, "run"))
		return 0;
	if (!c->input)
		return usage_error(c, "no input model given", NULL);
	if (!*c->input)
		return usage_error(c, "the input model path is empty", NULL);
	if (c->output && !*c->output)
		return usage_error(c, "-o needs a file name, got ''", NULL);
	if (c->pipeline_file && !*c->pipeline_file)
		return usage_error(c, "-p needs a file name, got ''", NULL);
	if (c->stats_json && !*c->stats_json)
		return usage_error(c, "--stats-json needs a file name, got ''",
				   NULL);
	if (!strcmp(c->cmd, "run") && !c->output && !c->dry_run) {
		c->output = c->output_buf = default_output(c->input,
							   ".qopt.onnx", 4096);
		if (!c->output)
			return usage_error(c, "input path too long for a "
					   "default output; give -o OUT.onnx",
					   NULL);
	}
	return 0;
}

/* --merge A B... -o OUT: files only, nothing measured. */
static int check_merge(struct cli_opts *c)
{
	size_t i;

	if (c->measure_given || c->pipeline_file || c->passes_inline ||
	    c->nplugin_dirs || c->nloads)
		return usage_error(c, "--merge reads calibration files and "
				   "measures nothing: --data, --random, --seed, "
				   "--dim, --method, --percentile, "
				   "--ort-timeout, -p, --passes, -L and --load "
				   "do not go with it", NULL);
	if (c->nmerge_in < 2)
		return usage_error(c, "--merge takes two calibration files or "
				   "more", NULL);
	if (!c->output || !*c->output)
		return usage_error(c, "--merge needs -o OUT.json", NULL);
	for (i = 0; i < c->nmerge_in; i++)
		if (!*c->merge_in[i])
			return usage_error(c, "--merge: an empty file name",
					   NULL);
	return 0;
}

static int check_calibrate(struct cli_opts *c)
{
	if (!c->input || !*c->input)
		return usage_error(c, "no input model given", NULL);
	if (!!c->data == !!c->random)
		return usage_error(c, "give either --data DIR or --random N",
				   NULL);
	if (c->ndims && !c->random)
		return usage_error(c, "--dim belongs to --random", NULL);
	if (c->output && !*c->output)
		return usage_error(c, "-o needs a file name, got ''", NULL);
	if (c->pipeline_file && c->passes_inline)
		return usage_error(c, "give either -p FILE or --passes LIST",
				   NULL);
	if (!c->output) {
		c->output = c->output_buf = default_output(c->input,
							   ".calib.json",
							   (size_t)-1);
		if (!c->output)
			return usage_error(c, "out of memory", NULL);
	}
	return 0;
}

/* The command's options from the one table. */
static struct option *options_of(unsigned cmd)
{
	struct option *o = calloc(NOPTIONS + 1, sizeof(*o));
	size_t i, n = 0;

	for (i = 0; o && i < NOPTIONS; i++)
		if (table[i].cmds & cmd)
			o[n++] = table[i].o;
	return o;
}

/* -h, -V: what they print; -1 (exit 0). */
static int help_or_version(const struct cli_opts *c, int ch)
{
	if (ch == 'h' && !strcmp(c->cmd, "calibrate"))
		calib_usage_text(c->s);
	else if (ch == 'h')
		cli_usage(qm_data(c->s));
	else
		fprintf(qm_data(c->s), "qopt %s (plugin ABI %d.%d)\n",
			PACKAGE_VERSION, QOPT_ABI_VERSION, QOPT_ABI_MINOR);
	return -1;
}

static int parse_options(struct cli_opts *c, int argc, char **argv)
{
	unsigned cmd = !strcmp(c->cmd, "calibrate") ? CALIB : MAIN;
	struct option *longopts = options_of(cmd);
	int ch, rc = 0;

	if (!longopts)
		return QOPT_EXIT_FAIL;
	opterr = 0;
	optind = 1;
	while (!rc && (ch = getopt_long(argc, argv, shortopts[cmd], longopts,
					NULL)) != -1) {
		if (ch == 'h' || ch == 'V')
			rc = help_or_version(c, ch);
		else if (ch == '?')
			rc = usage_error(c, "unknown option", argv[optind - 1]);
		else if (ch == ':')
			rc = usage_error(c, "missing argument for",
					 argv[optind - 1]);
		else if (take_option(c, ch, optarg) < 0)
			rc = QOPT_EXIT_USAGE;
	}
	free(longopts);
	return rc;
}

/* --percentile alone picks the method percentile below 100 (as before
 * --method); with --method it is the method percentile's only, whose
 * default is 99.99. */
static int pick_method(struct cli_opts *c)
{
	if (!c->method) {
		c->method = c->percentile < 100 ? "percentile" : "max";
		return 0;
	}
	if (c->percentile_given && strcmp(c->method, "percentile"))
		return usage_error(c, "--percentile belongs to --method "
				   "percentile, not to --method", c->method);
	if (!c->percentile_given && !strcmp(c->method, "percentile"))
		c->percentile = 99.99;
	return 0;
}

int cli_parse(struct cli_opts *c, qm_session *s, int argc, char **argv)
{
	int rc;

	memset(c, 0, sizeof(*c));
	c->s = s;
	c->external_threshold = -1;
	c->bisect_limit = -1;
	c->summary = -1;
	c->percentile = 100.0;
	c->ort_timeout = -1;
	c->seed = 1;
	pick_command(c, &argc, &argv);
	rc = parse_options(c, argc, argv);
	if (rc)
		return rc;
	if (c->merge) {
		while (optind < argc)
			if (push(&c->merge_in, &c->nmerge_in, argv[optind++]))
				return usage_error(c, "out of memory", NULL);
		return check_merge(c);
	}
	if (optind < argc)
		c->input = argv[optind++];
	if (optind < argc)
		return usage_error(c, "unexpected argument", argv[optind]);
	rc = pick_method(c);
	if (rc)
		return rc;
	return !strcmp(c->cmd, "calibrate") ? check_calibrate(c) :
	       check_combination(c);
}

void cli_free(struct cli_opts *c)
{
	size_t i;

	for (i = 0; i < c->nprint_after; i++)
		free(c->print_after[i]);
	free(c->print_after);
	free(c->plugin_dirs);
	free(c->loads);
	free(c->dims);
	free(c->merge_in);
	free(c->output_buf);
}
