/*
 * core/cli/cmd-plan.c - `qopt plan`: a format per layer chosen by
 * measurement in ONNX Runtime (docs/plan.md).
 *
 *   qopt plan MODEL.onnx --data DIR --formats LIST
 *             (--effective-bits B | --max-loss X) [-o PLAN.ini]
 *             [--json REPORT.json] [--save-model OUT.onnx]
 *
 * The command line over libqopt's plan (core/plan/plan.h: the
 * candidates, their measurement, the solver and the writer): the
 * options, the outputs checked before any work, ONNX Runtime run by
 * node (plan-runner.c), and the files written: the calibration files
 * beside the INI, the INI, the report.
 */
#include "config.h"
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <qopt/file.h>
#include "cli/cli.h"
#include "plan/plan.h"
#include "cli/plan-runner.h"
#include "calib/calib-samples.h"
#include "calib/calib-ort.h"
#include "cli/outpath.h"

/* ------------------------------------------------------------------ */
/* the command line */

static void usage(qm_session *s)
{
	qm_say(s, QOPT_LOG_INFO, "%s",
	       "usage: qopt plan MODEL.onnx --data DIR --formats LIST\n"
	       "                 (--effective-bits B | --max-loss X) "
	       "[-o PLAN.ini] [--json REPORT.json]\n"
	       "                 [--save-model OUT.onnx] [--ort-timeout S] "
	       "[-q] [-v]\n"
	       "                 [--autocast float16|bfloat16] "
	       "[--max-float-layers N]\n"
	       "  LIST: formats in fallback order from none (16 bits), fp8 "
	       "(8), int8 (8),\n"
	       "  nvfp4 (4.5: 4 + an FP8 scale per 16), mxfp8 (8.25), "
	       "hadamard+nvfp4 (4.5: the layer\n  rotated by hadamard-rotate, "
	       "then nvfp4), w4a4 (4.5: nvfp4 weights and activations);\n"
	       "  e.g. --formats nvfp4,fp8,none (Hopper), int8,none "
	       "(Ampere)\n"
	       "  --autocast T: the INI ends with autocast (to = T) and "
	       "cast-fold, so none\n  means T and the rest of the model "
	       "runs in T (TensorRT 11 is strongly typed)\n"
	       "  --max-float-layers N: at most N layers none (each a "
	       "reformat each way\n  between quantized layers)\n");
}

static int usage_error(qm_session *s, const char *fmt, const char *arg)
{
	char shown[1024];

	qir_escape_text(shown, sizeof(shown), arg ? arg : "");
	qm_say(s, QOPT_LOG_ERROR, "qopt plan: error: ");
	qm_say(s, QOPT_LOG_ERROR, fmt, shown);
	qm_say(s, QOPT_LOG_ERROR, "\n");
	usage(s);
	return QOPT_EXIT_USAGE;
}

static int parse_formats(struct plan *p, const char *list)
{
	char why[512];
	int rc = plan_parse_formats(p, list, why, sizeof(why));

	if (rc == QM_USAGE)
		return usage_error(p->s, "%s", why);
	if (rc)
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: %s\n", why);
	return rc;
}

static int parse_bits(qm_session *s, const char *opt, const char *arg,
		      double *out)
{
	char *end;

	errno = 0;
	*out = strtod(arg, &end);
	if (!*arg || *end || errno || !isfinite(*out) || *out < 0 ||
	    arg[strspn(arg, "0123456789.eE+-")]) {
		char msg[128];

		snprintf(msg, sizeof(msg), "%s takes a number >= 0, got '%%s'",
			 opt);
		return usage_error(s, msg, arg);
	}
	return 0;
}

enum { OPT_FORMATS = 256, OPT_BITS, OPT_LOSS, OPT_JSON, OPT_SAVE,
       OPT_ORT_TIMEOUT, OPT_AUTOCAST, OPT_MAX_FLOAT };

/* --max-float-layers: a count from 0. */
static int parse_count(struct plan *p, const char *arg)
{
	char *end;

	errno = 0;
	p->max_float = strtol(arg, &end, 10);
	if (!*arg || *end || errno || p->max_float < 0 ||
	    arg[strspn(arg, "0123456789")])
		return usage_error(p->s, "--max-float-layers takes a count "
				   "from 0, got '%s'", arg);
	return 0;
}

static int parse_args(struct plan *p, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "data", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "formats", required_argument, NULL, OPT_FORMATS },
		{ "effective-bits", required_argument, NULL, OPT_BITS },
		{ "max-loss", required_argument, NULL, OPT_LOSS },
		{ "json", required_argument, NULL, OPT_JSON },
		{ "save-model", required_argument, NULL, OPT_SAVE },
		{ "ort-timeout", required_argument, NULL, OPT_ORT_TIMEOUT },
		{ "autocast", required_argument, NULL, OPT_AUTOCAST },
		{ "max-float-layers", required_argument, NULL, OPT_MAX_FLOAT },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *formats = NULL;
	int ch, rc = 0;

	opterr = 0;
	optind = 1;
	while (!rc && (ch = getopt_long(argc, argv, ":d:o:vqh", opts,
					NULL)) != -1) {
		switch (ch) {
		case 'd': p->data = optarg; break;
		case 'o': p->output = optarg; break;
		case OPT_FORMATS: formats = optarg; break;
		case OPT_BITS:
			rc = parse_bits(p->s, "--effective-bits", optarg,
					&p->budget);
			break;
		case OPT_LOSS:
			rc = parse_bits(p->s, "--max-loss", optarg,
					&p->max_loss);
			break;
		case OPT_JSON: p->json = optarg; break;
		case OPT_SAVE: p->save_model = optarg; break;
		case OPT_ORT_TIMEOUT:
			/* through the environment: the bound of the node
			 * script and of each qopt calibrate child */
			if (calib_ort_timeout_parse(optarg, &(long){ 0 }) < 0)
				return usage_error(p->s, "--ort-timeout takes "
						   "seconds from 0 (no bound) "
						   "to 31536000, got '%s'",
						   optarg);
			if (setenv("QOPT_ORT_TIMEOUT", optarg, 1) < 0)
				return QOPT_EXIT_FAIL;
			break;
		case OPT_AUTOCAST:
			if (strcmp(optarg, "float16") && strcmp(optarg, "bfloat16"))
				return usage_error(p->s, "--autocast takes float16 "
						   "or bfloat16, got '%s'", optarg);
			p->autocast = optarg;
			break;
		case OPT_MAX_FLOAT:
			rc = parse_count(p, optarg);
			break;
		case 'v': p->verbose++; break;
		case 'q': p->quiet = 1; break;
		case 'h': usage(p->s); return -1;
		case ':':
			return usage_error(p->s, "missing argument for %s",
					   argv[optind - 1]);
		default:
			return usage_error(p->s, "unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (rc)
		return rc;
	if (optind < argc)
		p->input = argv[optind++];
	if (optind < argc)
		return usage_error(p->s, "unexpected argument '%s'",
				   argv[optind]);
	if (!p->input || !*p->input)
		return usage_error(p->s, "no input model given%s", "");
	if (!p->data)
		return usage_error(p->s, "--data DIR is required: the "
				   "samples the layers are measured on%s", "");
	if (!formats)
		return usage_error(p->s, "--formats LIST is required%s", "");
	if ((p->budget >= 0) == (p->max_loss >= 0))
		return usage_error(p->s, "give either --effective-bits B or "
				   "--max-loss X%s", "");
	return parse_formats(p, formats);
}

/* The budget against the formats: below the cheapest, no plan. */
static int check_samples(struct plan *p, struct calib_samples *cs)
{
	char why[1024], shown[1024];

	if (calib_samples_check(p->data, cs, why, sizeof(why)) < 0) {
		qir_escape_text(shown, sizeof(shown), why);
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: %s\n", shown);
		return QOPT_EXIT_FAIL;
	}
	return 0;
}

/* The calibration file named cname can stand in the INI's line
 * "calibration = NAME": inih would end the value at an inline comment
 * (" ;"), strip blanks, and refuse a line over PLAN_INI_LINE_MAX. */
enum { OUT_INI, OUT_JSON, OUT_MODEL, OUT_FP8, OUT_W4A4, OUT_COUNT };

struct plan_outputs {
	const char *what[OUT_COUNT];
	char *path[OUT_COUNT];	/* NULL: not written */
};

static int derived_output(struct plan *p, struct plan_outputs *o, int k,
			  const char *suffix)
{
	char cname[1024], *copy = strdup(p->output);

	if (!copy)
		return QOPT_EXIT_FAIL;
	plan_calib_name(p, suffix, cname, sizeof(cname));
	if (!plan_ini_value_ok(cname)) {
		char shown[1024], out[1024];

		qir_escape_text(shown, sizeof(shown), cname);
		qir_escape_text(out, sizeof(out), p->output);
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: -o '%s': the "
		       "INI would name its calibration file '%s' on a line "
		       "\"calibration = NAME\", which cannot hold it (a ';', "
		       "a control byte, a leading blank or over %zu bytes); "
		       "choose another -o\n", out, shown,
		       PLAN_INI_LINE_MAX - strlen("calibration = "));
		free(copy);
		return QOPT_EXIT_USAGE;
	}
	if (asprintf(&o->path[k], "%s/%s", dirname(copy), cname) < 0)
		o->path[k] = NULL;
	free(copy);
	return o->path[k] ? 0 : QOPT_EXIT_FAIL;
}

static int check_output(struct plan *p, const struct plan_outputs *o, int k,
			const struct calib_samples *cs)
{
	char a[1024], b[1024];
	int discard, rc, j;
	size_t i;

	rc = cli_outpath_check(p->s, o->what[k], o->path[k], &discard);
	if (!rc && discard) {
		/* the INI names its calibration file beside it, and a
		 * report or model thrown away is no use */
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: %s needs a "
		       "file, not /dev/null\n", o->what[k]);
		rc = QOPT_EXIT_USAGE;
	}
	qir_escape_text(a, sizeof(a), o->path[k]);
	if (!rc && cli_same_path(p->input, o->path[k])) {
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: %s ('%s') is "
		       "the input model; qopt never modifies its input\n",
		       o->what[k], a);
		rc = QOPT_EXIT_USAGE;
	}
	for (j = 0; !rc && j < k; j++)
		if (o->path[j] && cli_same_path(o->path[j], o->path[k])) {
			qir_escape_text(b, sizeof(b), o->path[j]);
			qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: %s "
			       "('%s') and %s ('%s') are one file; each output "
			       "needs its own\n", o->what[k], a, o->what[j], b);
			rc = QOPT_EXIT_USAGE;
		}
	for (i = 0; !rc && i < cs->n; i++)
		if (cli_same_path(cs->files[i], o->path[k])) {
			qir_escape_text(b, sizeof(b), cs->files[i]);
			qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: %s ('%s') "
			       "is the sample %s; qopt never modifies its "
			       "input\n", o->what[k], a, b);
			rc = QOPT_EXIT_USAGE;
		}
	return rc;
}

static int check_outputs(struct plan *p, char **owned,
			 const struct calib_samples *cs)
{
	struct plan_outputs o = {
		{ "-o", "--json", "--save-model", "-o's fp8 calibration file",
		  "-o's w4a4 calibration file" },
		{ NULL }
	};
	const char *given[3] = { p->output, p->json, p->save_model };
	int k, rc = 0;
	size_t n;

	if (!p->output) {
		n = strlen(p->input);
		if (n > 5 && !strcmp(p->input + n - 5, ".onnx"))
			n -= 5;
		if (asprintf(owned, "%.*s.plan.ini", (int)n, p->input) < 0)
			return QOPT_EXIT_FAIL;
		p->output = given[0] = *owned;
	}
	for (k = 0; k < 3 && !rc; k++)
		if (given[k] && !(o.path[k] = strdup(given[k])))
			rc = QOPT_EXIT_FAIL;
	for (k = 0; k < 3 && !rc; k++)
		if (o.path[k])
			rc = check_output(p, &o, k, cs);
	if (!rc && plan_has_format(p, PF_FP8) &&
	    !(rc = derived_output(p, &o, OUT_FP8, ".calib.json")))
		rc = check_output(p, &o, OUT_FP8, cs);
	if (!rc && plan_has_format(p, PF_W4A4) &&
	    !(rc = derived_output(p, &o, OUT_W4A4, ".w4a4.calib.json")))
		rc = check_output(p, &o, OUT_W4A4, cs);
	for (k = 0; k < OUT_COUNT; k++)
		free(o.path[k]);
	return rc;
}


/* What the library's plan leaves for the command to write: the
 * calibration files beside the INI, the INI, the report. 0, or -1
 * after saying why. */
static int write_outputs(struct plan *p)
{
	const char *name[PLAN_NCALIB] = { p->calib_name, p->int8_calib_name,
					  p->w4a4_calib_name };
	char *copy = strdup(p->output), *dir, path[8400], *text;
	int k, rc = 0;

	if (!copy)
		return -1;
	dir = dirname(copy);
	for (k = 0; k < PLAN_NCALIB && !rc; k++) {
		if (!p->calib_text[k])
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, name[k]);
		rc = plan_write_text(p, path, p->calib_text[k]);
	}
	free(copy);
	if (!rc)
		rc = plan_write_ini(p, p->output);
	if (!rc && p->json) {
		text = plan_json_text(p);
		rc = text ? plan_write_text(p, p->json, text) : -1;
		free(text);
	}
	return rc;
}

int cmd_plan(qm_session *s, int argc, char **argv)
{
	struct calib_samples cs;
	struct plan p;
	char *owned = NULL, line[2048];
	qir_model *m;
	int rc;

	plan_init(&p, s);
	rc = parse_args(&p, argc, argv);
	if (rc < 0)
		return QOPT_EXIT_OK;	/* --help */
	qm_set_verbosity(s, p.quiet ? QOPT_LOG_WARN : p.verbose ?
			 QOPT_LOG_DEBUG : QOPT_LOG_INFO, 0);
	if (!rc)
		rc = plan_check_budget(&p);
	memset(&cs, 0, sizeof(cs));
	if (!rc)
		rc = check_samples(&p, &cs);
	if (!rc)
		rc = check_outputs(&p, &owned, &cs);
	calib_samples_free(&cs);
	if (rc) {
		free(owned);
		return rc;
	}
	p.runner = cli_plan_runner;
	p.runner_arg = s;
	m = cli_load(s, p.input);
	rc = m ? plan_run(&p, m) : QOPT_EXIT_FAIL;
	if (!rc && write_outputs(&p) < 0)
		rc = QOPT_EXIT_FAIL;
	if (!rc) {
		plan_summary(&p, line, sizeof(line));
		qm_say(s, QOPT_LOG_INFO, "qopt plan: %s\n", line);
	}
	plan_free(&p);
	free(owned);
	return rc;
}
