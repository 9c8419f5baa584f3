/*
 * core/cli/cli.c - command line parsing (getopt_long) and usage.
 */
#include "config.h"
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"

enum {
	OPT_PASSES = 256, OPT_LOAD, OPT_LIST, OPT_HELP_PASS, OPT_PRINT_PL,
	OPT_VERIFY_EACH, OPT_PRINT_AFTER, OPT_PRINT_AFTER_ALL,
	OPT_PRINT_CHANGED, OPT_TIME, OPT_STATS, OPT_STATS_JSON, OPT_STRICT,
	OPT_BISECT_LIMIT, OPT_DEVICE, OPT_EXT_THRESHOLD, OPT_EXT_NAME,
	OPT_ALL_INLINE, OPT_DRY_RUN, OPT_THREADS, OPT_TEST, OPT_SUMMARY,
	OPT_NO_SUMMARY,
};

static const struct option longopts[] = {
	{ "pipeline", required_argument, NULL, 'p' },
	{ "passes", required_argument, NULL, OPT_PASSES },
	{ "output", required_argument, NULL, 'o' },
	{ "plugin-dir", required_argument, NULL, 'L' },
	{ "load", required_argument, NULL, OPT_LOAD },
	{ "list-passes", no_argument, NULL, OPT_LIST },
	{ "help-pass", required_argument, NULL, OPT_HELP_PASS },
	{ "print-pipeline", no_argument, NULL, OPT_PRINT_PL },
	{ "verify-each", no_argument, NULL, OPT_VERIFY_EACH },
	{ "print-after", required_argument, NULL, OPT_PRINT_AFTER },
	{ "print-after-all", no_argument, NULL, OPT_PRINT_AFTER_ALL },
	{ "print-changed", no_argument, NULL, OPT_PRINT_CHANGED },
	{ "time-passes", no_argument, NULL, OPT_TIME },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "stats-json", required_argument, NULL, OPT_STATS_JSON },
	{ "summary", no_argument, NULL, OPT_SUMMARY },
	{ "no-summary", no_argument, NULL, OPT_NO_SUMMARY },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "bisect-limit", required_argument, NULL, OPT_BISECT_LIMIT },
	{ "device", required_argument, NULL, OPT_DEVICE },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "external-threshold", required_argument, NULL, OPT_EXT_THRESHOLD },
	{ "external-name", required_argument, NULL, OPT_EXT_NAME },
	{ "all-inline", no_argument, NULL, OPT_ALL_INLINE },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "test", required_argument, NULL, OPT_TEST },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
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
"                      [-p FILE | --passes LIST] activation ranges the\n"
"                                               passes read (default fp8-mha)\n"
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

static int push(const char ***v, size_t *n, const char *s)
{
	const char **grown = realloc(*v, (*n + 1) * sizeof(*grown));

	if (!grown)
		return -1;
	grown[(*n)++] = s;
	*v = grown;
	return 0;
}

static int push_names(struct pm_cli *c, const char *list)
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

static int parse_int(const char *opt, const char *s, int64_t min,
		     int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (!*s || *end || errno || v < min) {
		fprintf(stderr, "qopt: error: %s expects an integer >= %lld, got '%s'\n",
			opt, (long long)min, s);
		return -1;
	}
	*out = v;
	return 0;
}

/* An int setting: a value beyond INT_MAX must not wrap. */
static int parse_small_int(const char *opt, const char *s, int min, int *out)
{
	int64_t v;

	if (parse_int(opt, s, min, &v) < 0)
		return -1;
	if (v > INT_MAX) {
		fprintf(stderr, "qopt: error: %s expects an integer from %d to %d, got '%s'\n",
			opt, min, INT_MAX, s);
		return -1;
	}
	*out = (int)v;
	return 0;
}

static int usage_error(const char *msg, const char *arg)
{
	fprintf(stderr, "qopt: error: %s%s%s%s\n", msg, arg ? " '" : "",
		arg ? arg : "", arg ? "'" : "");
	fprintf(stderr, "Try 'qopt --help'.\n");
	return QOPT_EXIT_USAGE;
}

static int take_option(struct pm_cli *c, int ch, const char *arg)
{
	switch (ch) {
	case 'p': c->pipeline_file = arg; break;
	case OPT_PASSES: c->passes_inline = arg; break;
	case 'o': c->output = arg; break;
	case 'L': return push(&c->plugin_dirs, &c->nplugin_dirs, arg);
	case OPT_LOAD: return push(&c->loads, &c->nloads, arg);
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
		return parse_int("--bisect-limit", arg, -1, &c->bisect_limit);
	case OPT_DEVICE:
		if (qk_device_from_name(arg) < 0) {
			fprintf(stderr, "qopt: error: --device expects cpu, cuda or auto, got '%s'\n",
				arg);
			return -1;
		}
		c->device = arg;
		break;
	case OPT_THREADS:
		return parse_small_int("--threads", arg, 0, &c->threads);
	case OPT_EXT_THRESHOLD:
		return parse_int("--external-threshold", arg, 0,
				 &c->external_threshold);
	case OPT_EXT_NAME: c->external_name = arg; break;
	case OPT_ALL_INLINE: c->all_inline = 1; break;
	case OPT_DRY_RUN: c->dry_run = 1; break;
	case OPT_TEST: c->test_cmd = arg; break;
	case 'v': c->verbose++; break;
	case 'q': c->quiet = 1; break;
	default: return -1;
	}
	return 0;
}

static int pick_command(struct pm_cli *c, int *argc, char ***argv)
{
	static const char *const cmds[] = { "dump", "verify", "bisect" };
	size_t i;

	c->cmd = "run";
	if (*argc < 2)
		return 0;
	for (i = 0; i < 3; i++) {
		if (!strcmp((*argv)[1], cmds[i])) {
			c->cmd = cmds[i];
			(*argc)--;
			(*argv)++;
			break;
		}
	}
	return 0;
}

/* Without -o, MODEL.onnx becomes MODEL.qopt.onnx beside it, like a
 * compiler's default output: never the input itself. */
static int default_output(struct pm_cli *c)
{
	static char buf[4096];
	size_t n = strlen(c->input);

	if (n > 5 && !strcmp(c->input + n - 5, ".onnx"))
		n -= 5;
	if (n + sizeof(".qopt.onnx") > sizeof(buf))
		return usage_error("input path too long for a default output; "
				   "give -o OUT.onnx", NULL);
	memcpy(buf, c->input, n);
	memcpy(buf + n, ".qopt.onnx", sizeof(".qopt.onnx"));
	c->output = buf;
	return 0;
}

static int check_combination(struct pm_cli *c)
{
	int inspect = c->list_passes || c->help_pass || c->print_pipeline;

	if (c->pipeline_file && c->passes_inline)
		return usage_error("give either -p or --passes, not both", NULL);
	if (!strcmp(c->cmd, "bisect") && !c->test_cmd)
		return usage_error("bisect needs --test 'CMD {}'", NULL);
	if (strcmp(c->cmd, "bisect") && c->test_cmd)
		return usage_error("--test belongs to 'qopt bisect'", NULL);
	if (inspect && !strcmp(c->cmd, "run"))
		return 0;
	if (!c->input)
		return usage_error("no input model given", NULL);
	if (!*c->input)
		return usage_error("the input model path is empty", NULL);
	if (c->output && !*c->output)
		return usage_error("-o needs a file name, got ''", NULL);
	if (c->pipeline_file && !*c->pipeline_file)
		return usage_error("-p needs a file name, got ''", NULL);
	if (c->stats_json && !*c->stats_json)
		return usage_error("--stats-json needs a file name, got ''", NULL);
	if (!strcmp(c->cmd, "run") && !c->output && !c->dry_run)
		return default_output(c);
	return 0;
}

int cli_parse(struct pm_cli *c, int argc, char **argv)
{
	int ch;

	memset(c, 0, sizeof(*c));
	c->external_threshold = -1;
	c->bisect_limit = -1;
	c->summary = -1;
	pick_command(c, &argc, &argv);
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":p:o:L:vqhV", longopts,
				 NULL)) != -1) {
		if (ch == 'h') {
			cli_usage(stdout);
			return -1;
		}
		if (ch == 'V') {
			printf("qopt %s (plugin ABI %d.%d)\n", PACKAGE_VERSION,
			       QOPT_ABI_VERSION, QOPT_ABI_MINOR);
			return -1;
		}
		if (ch == '?')
			return usage_error("unknown option", argv[optind - 1]);
		if (ch == ':')
			return usage_error("missing argument for",
					   argv[optind - 1]);
		if (take_option(c, ch, optarg) < 0)
			return QOPT_EXIT_USAGE;
	}
	if (optind < argc)
		c->input = argv[optind++];
	if (optind < argc)
		return usage_error("unexpected argument", argv[optind]);
	return check_combination(c);
}

void cli_free(struct pm_cli *c)
{
	size_t i;

	for (i = 0; i < c->nprint_after; i++)
		free(c->print_after[i]);
	free(c->print_after);
	free(c->plugin_dirs);
	free(c->loads);
}
