/*
 * core/cli/cmd-plan.c - `qopt plan`: a format per layer chosen by
 * measurement in ONNX Runtime (docs/plan.md).
 *
 *   qopt plan MODEL.onnx --data DIR --formats LIST
 *             (--effective-bits B | --max-loss X) [-o PLAN.ini]
 *             [--json REPORT.json] [--save-model OUT.onnx]
 *
 * The candidates are the constant weights of the main graph's MatMul,
 * Gemm, Conv and ConvTranspose nodes. For each candidate and format,
 * qopt runs the format's pass on that layer alone (include = the node,
 * --strict, so a pass that cannot take the layer says why and the
 * format falls back to the next one in --formats); one node process
 * (tools/qopt-plan.js) runs the float model and every candidate model
 * over the samples and returns each one's score: the output MSE over
 * the float output's variance. A multiple-choice knapsack
 * (plan-knapsack.c) picks the format per layer: the least summed score
 * within the effective-bits budget, or the fewest bits whose summed
 * score stays within --max-loss. The plan is written as an INI pipeline
 * (plan-write.c) with its calibration file beside it, run once here as
 * `qopt -p PLAN.ini MODEL` would run it, and that model measured too.
 * Passes and calibration run as child processes of this same program,
 * so the INI reproduces byte for byte the model measured.
 */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <qopt/file.h>
#include "cli/cli.h"
#include "plan/plan.h"
#include "plan/plan-knapsack.h"
#include "cli/plan-run.h"
#include "calib/calib-samples.h"
#include "cli/outpath.h"
#include "cli/ort-child.h"


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
	char *copy = strdup(list), *save = NULL, *tok;
	int rc = 0, k;

	if (!copy)
		return QOPT_EXIT_FAIL;
	for (tok = strtok_r(copy, ",", &save); tok && !rc;
	     tok = strtok_r(NULL, ",", &save)) {
		for (k = 0; k < PF_COUNT; k++)
			if (!strcmp(tok, plan_formats[k].name))
				break;
		if (k == PF_COUNT)
			rc = usage_error(p->s, "unknown format '%s' in "
					 "--formats (known: none, fp8, int8, "
					 "nvfp4, mxfp8, hadamard+nvfp4, w4a4)",
					 tok);
		for (size_t i = 0; !rc && i < p->nfmt; i++)
			if (p->fmt[i] == k)
				rc = usage_error(p->s, "format '%s' given twice "
						 "in --formats", tok);
		if (!rc)
			p->fmt[p->nfmt++] = k;
	}
	free(copy);
	if (!rc && !p->nfmt)
		rc = usage_error(p->s, "--formats names no format%s", "");
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
static int check_budget(struct plan *p)
{
	double least = 16;
	size_t i;

	for (i = 0; i < p->nfmt; i++)
		if (plan_formats[p->fmt[i]].bits < least)
			least = plan_formats[p->fmt[i]].bits;
	if (p->budget >= 0 && p->budget < least) {
		char b[64], l[64];

		/* every digit that tells them apart: 4.49999999999 is not
		 * "4.5 below 4.5" */
		qm_fmt_double(b, sizeof(b), p->budget);
		qm_fmt_double(l, sizeof(l), least);
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: --effective-bits "
		       "%s is below the cheapest format given (%s bits)\n", b,
		       l);
		return QOPT_EXIT_USAGE;
	}
	return 0;
}

static int has_format(const struct plan *p, int k)
{
	size_t i;

	for (i = 0; i < p->nfmt; i++)
		if (p->fmt[i] == k)
			return 1;
	return 0;
}

/* A calibration file's name beside the INI: PLAN.ini -> PLAN + suffix
 * (".calib.json", ".w4a4.calib.json"). */
static void calib_name(const struct plan *p, const char *suffix, char *buf,
		       size_t n)
{
	char *copy = strdup(p->output), *base;
	size_t k;

	buf[0] = 0;
	if (!copy)
		return;
	base = basename(copy);
	k = strlen(base);
	if (k > 4 && !strcmp(base + k - 4, ".ini"))
		k -= 4;
	snprintf(buf, n, "%.*s%s", (int)k, base, suffix);
	free(copy);
}

/* The samples in p->data into cs (calib_samples_free frees it on
 * every way out). */
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
static int ini_value_ok(const char *cname)
{
	size_t i, n = strlen(cname);

	if (!n || n > PLAN_INI_LINE_MAX - strlen("calibration = ") ||
	    cname[0] == ' ' || strchr(cname, ';'))
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)cname[i] < 0x20 || cname[i] == 0x7f)
			return 0;
	return 1;
}

/* What qopt plan may write, checked before any work as the main
 * command checks -o: -o (default MODEL.plan.ini), --json,
 * --save-model and the calibration files the INI may name beside it
 * (with fp8 or w4a4 offered); none the input model, none another (one
 * file by path or by identity, links included). */
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
	calib_name(p, suffix, cname, sizeof(cname));
	if (!ini_value_ok(cname)) {
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
	if (!rc && has_format(p, PF_FP8) &&
	    !(rc = derived_output(p, &o, OUT_FP8, ".calib.json")))
		rc = check_output(p, &o, OUT_FP8, cs);
	if (!rc && has_format(p, PF_W4A4) &&
	    !(rc = derived_output(p, &o, OUT_W4A4, ".w4a4.calib.json")))
		rc = check_output(p, &o, OUT_W4A4, cs);
	for (k = 0; k < OUT_COUNT; k++)
		free(o.path[k]);
	return rc;
}

/* ------------------------------------------------------------------ */
/* the candidate layers */

static int is_layer_op(const qir_node *n)
{
	static const char *const ops[] = { "MatMul", "Gemm", "Conv",
					   "ConvTranspose" };
	size_t i;

	if (*n->domain && strcmp(n->domain, "ai.onnx"))
		return 0;
	for (i = 0; i < sizeof(ops) / sizeof(*ops); i++)
		if (!strcmp(n->op_type, ops[i]))
			return 1;
	return 0;
}

/* The longest layer name the INI takes: "exclude = node=NAME" (or
 * "include = ...") on one line. */
#define NAME_MAX_BYTES (PLAN_INI_LINE_MAX - sizeof("exclude = " \
			PLAN_NODE_KEY) + 1)

/* The include item for name into *key (malloc'd): PLAN_NODE_KEY name,
 * which selects that node alone. 0; 1 with *why when the name is empty
 * or cannot stand in an INI list or an inline option (a list
 * separator, an inline comment, a quote, a backslash, a control byte,
 * blanks at an end, a line too long for the INI reader); -1 when out
 * of memory. */
static int layer_key(const char *name, char **key, const char **why)
{
	size_t n = strlen(name), i;

	*why = "it has no name, so no include list can name it alone";
	if (!n)
		return 1;
	*why = "its name cannot be written in an include list";
	if (n > NAME_MAX_BYTES || name[0] == ' ' || name[n - 1] == ' ' ||
	    strpbrk(name, ",;#\"\\"))
		return 1;
	for (i = 0; i < n; i++)
		if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
			return 1;
	return asprintf(key, PLAN_NODE_KEY "%s", name) < 0 ? -1 : 0;
}

/* A constant weight: an initializer, or a Constant node's value (as
 * paddle2onnx exports them); NULL otherwise. */
static const qir_tensor *weight_of(const qir_value *w)
{
	const qir_attr *a;

	if (!w)
		return NULL;
	if (w->init)
		return w->init;
	if (!w->producer || strcmp(w->producer->op_type, "Constant") ||
	    *w->producer->domain)
		return NULL;
	a = qir_node_attr(w->producer, "value");
	return a ? a->t : NULL;
}

/* A layer kept out of the plan: float, counted as 16 bits, said. */
static void leave_out(struct plan *p, const qir_node *n, int64_t params,
		      const char *why)
{
	char shown[512];

	qir_escape_text(shown, sizeof(shown), n->name);
	qm_say(p->s, QOPT_LOG_WARN, "qopt plan: warning: layer '%s' (%s): "
	       "%s; it stays float and out of the plan (counted as 16 "
	       "bits)\n", shown, n->op_type, why);
	p->total_params += params;
	p->float_params += params;
}

static int add_layer(struct plan *p, qir_node *n, size_t *cap)
{
	qir_value *w = n->inputs[1];
	int64_t params = (int64_t)qir_tensor_numel(weight_of(w));
	struct plan_layer *l;
	const char *why;
	char *key = NULL;
	int k;

	/* node names are unique: ONNX Runtime, which measures, refuses
	 * a model where two nodes share one */
	k = layer_key(n->name, &key, &why);
	if (k) {
		if (k > 0)
			leave_out(p, n, params, why);
		return k > 0 ? 0 : -1;
	}
	if (p->nlayers == *cap) {
		struct plan_layer *g = realloc(p->layers, (*cap ? 2 * *cap : 16) *
					       sizeof(*g));
		if (!g) {
			free(key);
			return -1;
		}
		p->layers = g;
		*cap = *cap ? 2 * *cap : 16;
	}
	l = &p->layers[p->nlayers++];
	memset(l, 0, sizeof(*l));
	l->key = key;
	l->node = strdup(n->name);
	l->weight = strdup(w->name);
	l->op = strdup(n->op_type);
	if (!l->node || !l->weight || !l->op)
		return -1;
	l->params = params;
	for (k = 0; k < PF_COUNT; k++)
		l->cand[k] = -1;
	p->total_params += l->params;
	return 0;
}

/* Layers of the main graph with a constant float weight as input 1
 * (a weight behind a Transpose or a Cast is not a candidate). */
static int find_layers(struct plan *p, qir_model *m)
{
	size_t cap = 0;
	qir_node *n;

	qir_graph_for_each_node(m->graph, n) {
		const qir_tensor *w = n->ninputs > 1 ? weight_of(n->inputs[1]) :
				      NULL;

		if (!is_layer_op(n) || !w || !qir_dtype_is_float(w->dtype) ||
		    !n->noutputs)
			continue;
		if (add_layer(p, n, &cap) < 0) {
			qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: out of "
			       "memory\n");
			return QOPT_EXIT_FAIL;
		}
	}
	if (!p->nlayers && p->total_params) {
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: %s: error: every "
		       "candidate layer is left out (the warnings above say "
		       "why): nothing to plan\n", p->input);
		return QOPT_EXIT_FAIL;
	}
	if (!p->nlayers) {
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: %s: error: no MatMul, "
		       "Gemm, Conv or ConvTranspose with a constant weight: "
		       "nothing to plan\n", p->input);
		return QOPT_EXIT_FAIL;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* measuring */

static void progress(struct plan *p, const char *what, size_t done,
		     size_t total)
{
	char bar[160];
	int w = 30, k = (int)(w * done / (total ? total : 1));

	if (p->quiet || !isatty(2))
		return;
	snprintf(bar, sizeof(bar), "\rqopt plan: %s [%.*s%*s] %zu/%zu%s",
		 what, k, "##############################", w - k, "", done,
		 total, done == total ? "\n" : "");
	qm_say(p->s, QM_LOG_PROGRESS, "%s", bar);
}

/* `qopt calibrate MODEL --data DIR --passes PASSES -o CALIB`: the
 * ranges the passes read, measured on model (the input model, or the
 * first step of the plan's pipeline). */
static int calibrate(struct plan *p, const char *model, const char *passes,
		     const char *calib)
{
	char log[4200];
	const char *args[] = { "calibrate", model, "--data", p->data,
			       "--passes", passes, "-o", calib, NULL };
	int rc;

	snprintf(log, sizeof(log), "%s/calibrate.log", p->tmp);
	rc = plan_qopt(p, args, log);
	if (rc) {
		char why[1024];

		plan_log_reason(log, why, sizeof(why));
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: the calibration "
		       "(qopt calibrate --passes %s) failed: %s\n", passes, why);
		return -1;
	}
	unlink(log);
	return 0;
}

/* ':exclude="A";"B"...' for every candidate layer but l (malloc'd; the
 * caller frees it), or NULL when out of memory. The other layers are
 * left out on purpose: without them named, a pass's coverage check
 * takes the weights of a repeated structure (torch's onnx::MatMul_*)
 * that the include misses for an expert forgotten by mistake, which
 * --strict turns into an error. */
static char *others_excluded(const struct plan *p, const struct plan_layer *l)
{
	size_t n = 1, k = 0, i;
	char *s;

	for (i = 0; i < p->nlayers; i++)
		n += strlen(p->layers[i].key) + 3;
	s = malloc(n + sizeof(":exclude="));
	if (!s)
		return NULL;
	for (i = 0; i < p->nlayers; i++) {
		if (&p->layers[i] == l)
			continue;
		k += (size_t)sprintf(s + k, "%s\"%s\"", k ? ";" : ":exclude=",
				     p->layers[i].key);
	}
	s[k] = 0;
	return s;
}

/* The pass spec of format k on layer l alone (malloc'd), or NULL. */
static char *candidate_spec(const struct plan *p, const struct plan_layer *l,
			    int k, const char *calib)
{
	const struct plan_format *pf = &plan_formats[k];
	const struct plan_format *nv = &plan_formats[PF_NVFP4];
	char *ex = others_excluded(p, l), *s;
	size_t n;

	if (!ex)
		return NULL;
	n = 2 * strlen(ex) + 2 * strlen(l->key) + strlen(calib) + 1024;
	s = malloc(n);
	if (s && (k == PF_FP8 || k == PF_INT8))
		snprintf(s, n, "%s:calibration=\"%s\":include=\"%s\"%s",
			 pf->pass, calib, l->key, ex);
	else if (s && k == PF_W4A4)
		snprintf(s, n, "%s:%s:calibration=\"%s\":include=\"%s\"%s",
			 pf->pass, pf->options, calib, l->key, ex);
	else if (s && k == PF_HNVFP4)
		snprintf(s, n, "%s:%s:include=\"%s\"%s,%s:%s:include=\"%s\"%s",
			 pf->pass, pf->options, l->key, ex, nv->pass,
			 nv->options, l->key, ex);
	else if (s)
		snprintf(s, n, "%s:%s:include=\"%s\"%s", pf->pass,
			 pf->options, l->key, ex);
	free(ex);
	return s;
}

/* W4A4 holds a layer when nvfp4 quantized its activation too: a node
 * outside TensorRT's DynamicQuantize (input rank, K the last axis, K %
 * 16) keeps its float input with an info line, not a warning, so
 * --strict passes and the counter tells. 1 when it does, 0 when not
 * (why says the pass's reason), -1 when the counter cannot be read. */
static int w4a4_held(struct plan *p, const char *log, const char *stats,
		     char *why, size_t n)
{
	long w = plan_stat(stats, "linear inputs W4A4");

	if (w < 0) {
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: cannot read "
		       "%s: %s\n", stats, strerror(errno));
		return -1;
	}
	if (w > 0)
		return 1;
	if (plan_log_line(log, "activation of node", why, n) < 0)
		snprintf(why, n, "nvfp4 left the activation in float (no "
			 "reason given)");
	return 0;
}

/* The pass of format k on layer l alone, into file. */
static int candidate(struct plan *p, struct plan_layer *l, int k,
		     const char *calib, const char *file)
{
	char *passes = candidate_spec(p, l, k, calib), log[4200], why[1024];
	char stats[4200];
	const char *args[] = { "--strict", "-q", "--no-summary", "--passes",
			       passes, p->input, "-o", file, NULL };
	/* w4a4: not quiet (the reason an activation stays float is an
	 * info line) and the counters, which say whether it did */
	const char *w4a4[] = { "--strict", "--no-summary", "--stats-json",
			       stats, "--passes", passes, p->input, "-o",
			       file, NULL };
	int rc;

	if (!passes)
		return -1;
	snprintf(log, sizeof(log), "%s/candidate.log", p->tmp);
	snprintf(stats, sizeof(stats), "%s/candidate.stats.json", p->tmp);
	rc = plan_qopt(p, k == PF_W4A4 ? w4a4 : args, log);
	free(passes);
	if (rc < 0)
		return -1;
	if (!rc && k == PF_W4A4) {
		rc = w4a4_held(p, log, stats, why, sizeof(why));
		unlink(stats);
		if (rc < 0)
			return -1;
		rc = !rc;
	} else if (rc) {
		plan_log_reason(log, why, sizeof(why));
	}
	if (rc) {
		l->why[k] = strdup(why);
		return l->why[k] ? 0 : -1;
	}
	l->holds[k] = 1;
	return 0;
}

/* What a format cannot take, known before running it. */
static const char *known_refusal(const struct plan_layer *l, int k)
{
	int conv = !strncmp(l->op, "Conv", 4);

	if (k == PF_NVFP4 && conv)
		return "TensorRT has no NVFP4 convolution (nvfp4-weights "
		       "target = tensorrt)";
	if (k == PF_W4A4 && conv)
		return "TensorRT has no NVFP4 convolution (nvfp4 target = "
		       "tensorrt; its activations take MatMul and Gemm only)";
	if (k == PF_MXFP8 && conv)
		return "mxfp8 takes MatMul and Gemm only";
	if (k == PF_HNVFP4 && conv)
		return "hadamard-rotate takes MatMul and Gemm only";
	return NULL;
}

static int make_candidates(struct plan *p, const char *calib,
			   char ***files, size_t *nfiles)
{
	size_t i, j, done = 0, total = 0;

	for (j = 0; j < p->nfmt; j++)
		total += p->fmt[j] != PF_NONE;
	total *= p->nlayers;
	*files = calloc(total ? total : 1, sizeof(**files));
	if (!*files)
		return -1;
	for (i = 0; i < p->nlayers; i++)
		for (j = 0; j < p->nfmt; j++) {
			struct plan_layer *l = &p->layers[i];
			int k = p->fmt[j];
			char file[4200];
			const char *no;

			if (k == PF_NONE)
				continue;
			progress(p, "quantizing", ++done, total);
			if ((no = known_refusal(l, k))) {
				l->why[k] = strdup(no);
				if (!l->why[k])
					return -1;
				continue;
			}
			snprintf(file, sizeof(file), "%s/c%zu.onnx", p->tmp,
				 *nfiles);
			if (candidate(p, l, k, calib, file) < 0)
				return -1;
			if (!l->holds[k])
				continue;
			l->cand[k] = (int)*nfiles;
			(*files)[(*nfiles)++] = strdup(file);
			if (!(*files)[*nfiles - 1])
				return -1;
		}
	return 0;
}

static int measure_candidates(struct plan *p, char **files, size_t n)
{
	double *v = calloc(3 * (n ? n : 1), sizeof(*v));
	size_t i;
	int k;

	if (!v)
		return -1;
	if (plan_measure(p, (const char *const *)files, n, v, v + n,
			 v + 2 * n) < 0) {
		free(v);
		return -1;
	}
	for (i = 0; i < p->nlayers; i++)
		for (k = 0; k < PF_COUNT; k++) {
			struct plan_layer *l = &p->layers[i];
			int c = l->cand[k];

			if (c < 0)
				continue;
			l->score[k] = v[c];
			l->cosine[k] = v[n + c];
			l->top1[k] = v[2 * n + c];
			/* a model that computes NaN is no choice, whatever
			 * the loss allowed: the format falls back */
			if (isfinite(v[c]))
				continue;
			l->holds[k] = 0;
			l->cand[k] = -1;
			l->why[k] = strdup("its model's outputs held NaN or Inf "
					   "in ONNX Runtime");
			if (!l->why[k]) {
				free(v);
				return -1;
			}
		}
	free(v);
	return 0;
}

/* ------------------------------------------------------------------ */
/* choosing */

/* Each layer's choices: the formats of --formats it holds, in order.
 * A format it cannot hold falls back to the next one it can; with none
 * of them, it stays float and is said. */
static int choices(struct plan *p, int *opt, size_t *nch)
{
	size_t i, j;

	for (i = 0; i < p->nlayers; i++) {
		struct plan_layer *l = &p->layers[i];
		int *o = opt + i * PF_COUNT;

		nch[i] = 0;
		for (j = 0; j < p->nfmt; j++)
			if (p->fmt[j] == PF_NONE || l->holds[p->fmt[j]])
				o[nch[i]++] = p->fmt[j];
		if (!nch[i]) {
			char shown[512];

			qir_escape_text(shown, sizeof(shown), l->node);
			qm_say(p->s, QOPT_LOG_WARN, "qopt plan: warning: layer "
			       "'%s': no format of --formats holds it (%s): it "
			       "stays float (16 bits)\n", shown,
			       l->why[p->fmt[0]] ? l->why[p->fmt[0]] : "");
			o[nch[i]++] = PF_NONE;
		}
	}
	return 0;
}

static int64_t gcd64(int64_t a, int64_t b)
{
	while (b) {
		int64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* "layer 'X' (N weights) holds: fp8, none" (n options at opt). */
static void say_holds(const struct plan *p, const struct plan_layer *l,
		      const int *opt, size_t n)
{
	char shown[512], list[256] = "";
	size_t j, len = 0;

	qir_escape_text(shown, sizeof(shown), l->node);
	for (j = 0; j < n && len < sizeof(list); j++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
					j ? ", " : "",
					plan_formats[opt[j]].name);
	qm_say(p->s, QOPT_LOG_INFO, "qopt plan: layer '%s' (%lld weights) "
	       "holds: %s\n", shown, (long long)l->params, list);
}

/* No plan fits: say what the bound would have to be (the cheapest plan
 * in bits, or the lowest loss, over each layer's formats), since no
 * report is written on this path. */
static void say_no_plan(const struct plan *p, const int *opt,
			const size_t *nch)
{
	const char *more = p->verbose ? "" : " (--verbose lists the "
			   "formats each layer holds)";
	int64_t qbits = 0;
	double loss = 0;
	char bound[64];
	size_t i, j;

	for (i = 0; i < p->nlayers; i++) {
		int64_t qb = INT64_MAX;
		double best = -1;

		for (j = 0; j < nch[i]; j++) {
			int k = opt[i * PF_COUNT + j];
			int64_t c = plan_formats[k].quarter_bits *
				    p->layers[i].params;
			double sc = k == PF_NONE ? 0 : p->layers[i].score[k];

			qb = c < qb ? c : qb;
			best = best < 0 || sc < best ? sc : best;
		}
		qbits += qb;
		loss += best;
		if (p->verbose)
			say_holds(p, &p->layers[i], opt + i * PF_COUNT, nch[i]);
	}
	qbits += 64 * p->float_params;	/* the layers out of the plan */
	qm_fmt_double(bound, sizeof(bound), p->budget >= 0 ? p->budget :
		      p->max_loss);
	if (p->budget >= 0)
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: no plan meets "
		       "--effective-bits %s with the formats these layers "
		       "hold: the cheapest takes %.4f bits%s\n", bound,
		       qbits / 4.0 / (double)p->total_params, more);
	else
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: no plan meets "
		       "--max-loss %s with the formats these layers hold: "
		       "the lowest predicted loss is %g%s\n", bound,
		       loss, more);
}

/* Costs in quarter bits x params, divided by their GCD; when the table
 * would still be too large, by a coarser unit, rounded up (a choice
 * never looks cheaper than it is). */
static int64_t cost_unit(const struct plan *p, const int *opt,
			 const size_t *nch, int64_t cap)
{
	int64_t g = 0, u;
	size_t i, j, room = PK_MAX_CELLS / (p->nlayers ? p->nlayers : 1) - 1;

	for (i = 0; i < p->nlayers; i++)
		for (j = 0; j < nch[i]; j++)
			g = gcd64(g, plan_formats[opt[i * PF_COUNT + j]].quarter_bits *
				  p->layers[i].params);
	if (!g)
		g = 1;
	u = g;
	while (cap / u > (int64_t)room)
		u += g;
	return u;
}

static int solve(struct plan *p)
{
	int *opt = calloc(p->nlayers * PF_COUNT, sizeof(*opt));
	size_t *nch = calloc(p->nlayers, sizeof(*nch));
	size_t *pick = calloc(p->nlayers, sizeof(*pick));
	int64_t *cost = calloc(p->nlayers * PF_COUNT, sizeof(*cost));
	double *score = calloc(p->nlayers * PF_COUNT, sizeof(*score));
	size_t i, j, o = 0;
	int64_t cap = 0, used = 0, raw;
	int rc = -1;

	if (!opt || !nch || !pick || !cost || !score)
		goto out;
	choices(p, opt, nch);
	/* the dearest plan: every layer float */
	raw = 0;
	for (i = 0; i < p->nlayers; i++)
		raw += 64 * p->layers[i].params;
	if (p->budget >= 0) {
		/* in quarter bits over every candidate weight, less what the
		 * layers out of the plan take in float; a budget of 16 bits
		 * or more is any plan (and 1e16 x 4 x params would not fit
		 * an int64) */
		double all = p->budget * 4 * (double)p->total_params;

		if (all < 64 * (double)p->total_params)
			raw = (int64_t)floor(all + 1e-6) - 64 * p->float_params;
	}
	p->unit = cost_unit(p, opt, nch, raw);
	cap = raw / p->unit;
	for (i = 0; i < p->nlayers; i++)
		for (j = 0; j < nch[i]; j++, o++) {
			int k = opt[i * PF_COUNT + j];
			int64_t c = plan_formats[k].quarter_bits * p->layers[i].params;

			cost[o] = (c + p->unit - 1) / p->unit;
			score[o] = k == PF_NONE ? 0 : p->layers[i].score[k];
		}
	{
		struct pk_problem pr = { p->nlayers, nch, cost, score };

		rc = pk_solve(&pr, cap, p->budget >= 0 ? -1 : p->max_loss,
			      pick);
	}
	if (rc < 0) {
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: out of memory "
		       "(the solver's table)\n");
		goto out;
	}
	if (rc > 0) {
		say_no_plan(p, opt, nch);
		goto out;
	}
	p->predicted = 0;
	for (i = 0; i < p->nlayers; i++) {
		struct plan_layer *l = &p->layers[i];

		l->pick = opt[i * PF_COUNT + pick[i]];
		p->predicted += l->pick == PF_NONE ? 0 : l->score[l->pick];
		used += plan_formats[l->pick].quarter_bits * l->params;
	}
	used += 64 * p->float_params;
	p->bits = used / 4.0 / (double)p->total_params;
	rc = 0;
out:
	free(opt);
	free(nch);
	free(pick);
	free(cost);
	free(score);
	return rc;
}

/* The cheapest listed format other than none that holds layer i (its
 * score), or PF_NONE. */
static int best_held(const struct plan *p, size_t i)
{
	const struct plan_layer *l = &p->layers[i];
	int best = PF_NONE;
	size_t j;

	for (j = 0; j < p->nfmt; j++) {
		int k = p->fmt[j];

		if (k != PF_NONE && l->holds[k] &&
		    (best == PF_NONE || l->score[k] < l->score[best]))
			best = k;
	}
	return best;
}

/* A float layer that could leave none, and what that adds. */
struct float_layer {
	size_t i;
	double delta;
};

static int by_delta(const void *a, const void *b)
{
	const struct float_layer *x = a, *y = b;

	return x->delta < y->delta ? -1 : x->delta > y->delta ? 1 :
	       x->i < y->i ? -1 : x->i > y->i;
}

/* --max-float-layers: the float layers past the bound take their
 * cheapest held format, those adding the least score first. A layer
 * leaving none only lowers the bits, so the budget stays met; under
 * --max-loss the summed score is checked again. 0, or 1 said (no
 * such plan), -1 out of memory. */
static int bound_float(struct plan *p)
{
	size_t i, n = 0, fixed = 0;
	struct float_layer *v;
	int64_t used = 0;

	if (p->max_float < 0)
		return 0;
	v = calloc(p->nlayers ? p->nlayers : 1, sizeof(*v));
	if (!v) {
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: out of memory\n");
		return -1;
	}
	for (i = 0; i < p->nlayers; i++) {
		int k = best_held(p, i);

		if (p->layers[i].pick != PF_NONE)
			continue;
		if (k == PF_NONE) {
			fixed++;
			continue;
		}
		v[n].i = i;
		v[n++].delta = p->layers[i].score[k];
	}
	if (fixed > (size_t)p->max_float) {
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: no plan keeps "
		       "at most %ld layer%s float: %zu layers no listed format "
		       "holds stay float\n", p->max_float,
		       p->max_float == 1 ? "" : "s", fixed);
		free(v);
		return 1;
	}
	qsort(v, n, sizeof(*v), by_delta);
	/* float layers left: n - i held ones and the fixed */
	for (i = 0; i < n && n - i + fixed > (size_t)p->max_float; i++) {
		struct plan_layer *l = &p->layers[v[i].i];

		l->pick = best_held(p, v[i].i);
		p->predicted += l->score[l->pick];
		p->forced++;
	}
	free(v);
	for (i = 0; i < p->nlayers; i++)
		used += plan_formats[p->layers[i].pick].quarter_bits *
			p->layers[i].params;
	used += 64 * p->float_params;
	p->bits = used / 4.0 / (double)p->total_params;
	if (p->max_loss >= 0 && p->predicted > p->max_loss) {
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: no plan keeps "
		       "at most %ld layer%s float within --max-loss %.17g: the "
		       "bound alone makes the summed score %.6g (raise "
		       "--max-loss or --max-float-layers)\n", p->max_float,
		       p->max_float == 1 ? "" : "s", p->max_loss,
		       p->predicted);
		return 1;
	}
	return 0;
}

/* A listed format other than none holds layer l. */
static int held_any(const struct plan *p, const struct plan_layer *l)
{
	size_t j;

	for (j = 0; j < p->nfmt; j++)
		if (p->fmt[j] != PF_NONE && l->holds[p->fmt[j]])
			return 1;
	return 0;
}

/* The fallback notes: a layer whose first listed format was refused
 * and that got a later one (or float) says so. */
static int note_fallbacks(struct plan *p)
{
	size_t i, j;
	int chosen;

	for (i = 0; i < p->nlayers; i++) {
		struct plan_layer *l = &p->layers[i];
		char buf[2048] = "";
		size_t n = 0;

		for (j = 0; j < p->nfmt && p->fmt[j] != l->pick; j++) {
			int k = p->fmt[j];

			if (k == PF_NONE || l->holds[k])
				continue;
			n += (size_t)snprintf(buf + n, n < sizeof(buf) ?
					      sizeof(buf) - n : 0, "%s%s "
					      "cannot hold it (%s)", n ? "; " : "",
					      plan_formats[k].name, l->why[k]);
		}
		if (!*buf)
			continue;
		/* float by the solver's choice, though a listed format
		 * held the layer: no fallback, nothing to warn about */
		chosen = l->pick == PF_NONE && held_any(p, l);
		if (asprintf(&l->fallback, chosen ? "%s; kept float: the "
			     "solver's choice" : "%s: fell back to %s", buf,
			     plan_formats[l->pick].name) < 0)
			return -1;
		if (p->verbose || (l->pick == PF_NONE && !chosen)) {
			char shown[512];

			qir_escape_text(shown, sizeof(shown), l->node);
			qm_say(p->s, l->pick == PF_NONE && !chosen ?
			       QOPT_LOG_WARN : QOPT_LOG_INFO,
			       "qopt plan: %slayer '%s': %s\n",
			       l->pick == PF_NONE && !chosen ? "warning: " : "",
			       shown,
			       l->fallback);
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* the plan's model */

static int picked(const struct plan *p, int k)
{
	size_t i, n = 0;

	for (i = 0; i < p->nlayers; i++)
		n += p->layers[i].pick == k;
	return (int)n;
}

/* Every w4a4 layer of the plan's model got its activation quantized:
 * alone each one did (w4a4_held), but in the pipeline an earlier step
 * may have quantized its input already (nvfp4 then leaves it, with an
 * info line). Said, never silent. */
static int check_w4a4(struct plan *p, const char *stats)
{
	long got = plan_stat(stats, "linear inputs W4A4");
	int want = picked(p, PF_W4A4);

	if (got < 0) {
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: cannot read "
		       "%s: %s\n", stats, strerror(errno));
		return -1;
	}
	if (got < want)
		qm_say(p->s, QOPT_LOG_WARN, "qopt plan: warning: %ld of the %d "
		       "w4a4 layers got a quantized activation in the plan's "
		       "pipeline (the others' input was quantized by an "
		       "earlier step; run the INI for nvfp4's reasons); the "
		       "plan's model is measured as built\n", got, want);
	return 0;
}

/* Runs the INI (in the temporary folder, the calibration beside it) as
 * `qopt -p` does, and measures the result. */
static int final_model(struct plan *p, const char *ini, const char *out)
{
	char log[4200], why[1024], stats[4200];
	const char *args[] = { "-q", "--no-summary", "--stats-json", stats,
			       "-p", ini, p->input, "-o", out, NULL };
	const char *files[1] = { out };
	size_t i;
	int rc;

	/* an INI with no section is no pipeline: say so, not what qopt -p
	 * makes of it */
	for (i = 0; i < p->nlayers && p->layers[i].pick == PF_NONE; i++)
		;
	if (i == p->nlayers) {
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: the plan keeps "
		       "every layer in float (none): no pass to write; %s\n",
		       p->budget >= 0 ? "lower --effective-bits" :
		       "raise --max-loss (the loss it allows)");
		return -1;
	}

	snprintf(log, sizeof(log), "%s/final.log", p->tmp);
	snprintf(stats, sizeof(stats), "%s/final.stats.json", p->tmp);
	rc = plan_qopt(p, args, log);
	if (rc) {
		plan_log_reason(log, why, sizeof(why));
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: the plan's "
		       "pipeline failed: %s\n", why);
		return -1;
	}
	unlink(log);
	if (picked(p, PF_W4A4) && check_w4a4(p, stats) < 0)
		return -1;
	unlink(stats);
	return plan_measure(p, files, 1, &p->measured, &p->measured_cos,
			    &p->measured_top1);
}

static void count_picks(const struct plan *p, char *buf, size_t n)
{
	size_t j, i, k = 0;

	buf[0] = 0;
	for (j = 0; j < p->nfmt; j++) {
		size_t c = 0;

		for (i = 0; i < p->nlayers; i++)
			c += p->layers[i].pick == p->fmt[j];
		k += (size_t)snprintf(buf + k, k < n ? n - k : 0, "%s%s %zu",
				      j ? ", " : "", plan_formats[p->fmt[j]].name,
				      c);
	}
}

/* A file of the temporary folder beside the INI (name: a file name). */
static int copy_beside(struct plan *p, const char *name)
{
	char *copy = strdup(p->output), src[4200], dst[4200];
	int rc;

	if (!copy)
		return -1;
	snprintf(src, sizeof(src), "%s/%s", p->tmp, name);
	snprintf(dst, sizeof(dst), "%s/%s", dirname(copy), name);
	free(copy);
	rc = plan_copy(p, src, dst);
	return rc;
}

static int write_all(struct plan *p, const char *tmp_model)
{
	char picks[256];

	if (*p->calib_name && copy_beside(p, p->calib_name) < 0)
		return -1;
	if (*p->w4a4_calib_name && copy_beside(p, p->w4a4_calib_name) < 0)
		return -1;
	if (*p->int8_calib_name && copy_beside(p, p->int8_calib_name) < 0)
		return -1;
	if (plan_write_ini(p, p->output) < 0)
		return -1;
	if (p->json && plan_write_json(p, p->json) < 0)
		return -1;
	if (p->save_model && plan_copy(p, tmp_model, p->save_model) < 0)
		return -1;
	count_picks(p, picks, sizeof(picks));
	qm_say(p->s, QOPT_LOG_INFO, "qopt plan: %zu layers (%s): %.4f "
	       "effective bits; summed score %.4g predicted, %.4g measured "
	       "(cosine %.6f); %zu ORT sessions over %ld samples -> %s\n",
	       p->nlayers, picks, p->bits, p->predicted, p->measured,
	       p->measured_cos, p->sessions, p->samples, p->output);
	return 0;
}

/* The candidates' calibration file: the input model's ranges for fp8
 * and w4a4 (in the temporary folder; its name ends otherwise than any
 * PLAN.calib.json). */
#define FLOAT_CALIB "float-calibration.json"
/* what qopt calibrate measures for w4a4: nvfp4's activations */
#define W4A4_CALIB "nvfp4:activations=yes"

/* The calibrated sections in the INI's order (plan-write.c), each with
 * its file beside the INI and what `qopt calibrate` measures for it. */
static const struct {
	int fmt;
	const char *suffix, *passes;
} calibrated[] = {
	{ PF_FP8, ".calib.json", "fp8" },
	{ PF_INT8, ".int8.calib.json", "int8" },
	{ PF_W4A4, ".w4a4.calib.json", W4A4_CALIB },
};

static char *calib_buf(struct plan *p, int fmt)
{
	return fmt == PF_FP8 ? p->calib_name : fmt == PF_INT8 ?
	       p->int8_calib_name : p->w4a4_calib_name;
}

/* The file of calibrated section c, measured on the model the INI's
 * sections before it make (run here alone, as qopt -p runs them). */
static int calibrate_after(struct plan *p, size_t c, const char *to)
{
	char ini[4200], step[4200], log[4200], why[1024];
	const char *args[] = { "-q", "--no-summary", "-p", ini, p->input,
			       "-o", step, NULL };
	int rc;

	snprintf(ini, sizeof(ini), "%s/step1.ini", p->tmp);
	snprintf(step, sizeof(step), "%s/step1.onnx", p->tmp);
	snprintf(log, sizeof(log), "%s/step1.log", p->tmp);
	p->before_fmt = calibrated[c].fmt;
	rc = plan_write_ini(p, ini);
	p->before_fmt = PF_NONE;
	if (rc < 0)
		return -1;
	rc = plan_qopt(p, args, log);
	if (rc) {
		plan_log_reason(log, why, sizeof(why));
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: the plan's "
		       "steps before [%s]'s calibration failed: %s\n",
		       plan_formats[calibrated[c].fmt].name, why);
		return -1;
	}
	rc = calibrate(p, step, calibrated[c].passes, to);
	unlink(step);
	unlink(ini);
	unlink(log);
	return rc;
}

/* The calibration files the plan's INI names, in the temporary folder
 * under their names beside the INI. The first calibrated section runs
 * on the input model: its file is the candidates'. Each later one
 * (int8 after fp8, w4a4's nvfp4 after them) receives the model the
 * sections before it make, so its file is measured on that. */
static int plan_calibration(struct plan *p)
{
	char from[4200], to[8400];
	size_t c, first = 1;

	snprintf(from, sizeof(from), "%s/" FLOAT_CALIB, p->tmp);
	for (c = 0; c < sizeof(calibrated) / sizeof(*calibrated); c++) {
		char *name = calib_buf(p, calibrated[c].fmt);

		if (!picked(p, calibrated[c].fmt))
			continue;
		calib_name(p, calibrated[c].suffix, name, sizeof(p->calib_name));
		if (!*name) {
			qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: out of "
			       "memory\n");
			return -1;
		}
		snprintf(to, sizeof(to), "%s/%s", p->tmp, name);
		if (first && rename(from, to) < 0) {
			qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: %s: %s\n",
			       to, strerror(errno));
			return -1;
		}
		if (!first && calibrate_after(p, c, to) < 0)
			return -1;
		first = 0;
	}
	return 0;
}

static int run_plan(struct plan *p)
{
	char calib[4200] = "", ini[4200], model[4200], passes[64] = "";
	char **files = NULL;
	size_t nfiles = 0, i;
	int rc = QOPT_EXIT_FAIL;

	/* one calibration of the input model for every candidate: fp8's
	 * and w4a4's targets measured in one ORT session */
	if (has_format(p, PF_FP8))
		strcat(passes, "fp8");
	if (has_format(p, PF_INT8))
		strcat(strcat(passes, *passes ? "," : ""), "int8");
	if (has_format(p, PF_W4A4))
		strcat(strcat(passes, *passes ? "," : ""),
		       W4A4_CALIB);
	if (*passes) {
		snprintf(calib, sizeof(calib), "%s/" FLOAT_CALIB, p->tmp);
		if (calibrate(p, p->input, passes, calib) < 0)
			return QOPT_EXIT_FAIL;
	}
	snprintf(ini, sizeof(ini), "%s/plan.ini", p->tmp);
	snprintf(model, sizeof(model), "%s/plan.onnx", p->tmp);
	if (make_candidates(p, calib, &files, &nfiles) < 0)
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: out of memory\n");
	else if (measure_candidates(p, files, nfiles) == 0 && solve(p) == 0 &&
		 bound_float(p) == 0 &&
		 note_fallbacks(p) == 0 && plan_calibration(p) == 0 &&
		 plan_write_ini(p, ini) == 0 &&
		 final_model(p, ini, model) == 0 &&
		 write_all(p, model) == 0)
		rc = QOPT_EXIT_OK;
	for (i = 0; i < nfiles; i++) {
		unlink(files[i]);
		free(files[i]);
	}
	free(files);
	/* the rest (logs, the INI, the model, calibration files) goes
	 * with the temporary folder */
	return rc;
}

/* The temporary folder and what is left in it (flat: qopt plan and
 * ONNX Runtime make no sub-folders there). */
static void remove_tmp(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[8400];

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
	rmdir(dir);
}

static void free_plan(struct plan *p)
{
	size_t i;
	int k;

	for (i = 0; i < p->nlayers; i++) {
		free(p->layers[i].node);
		free(p->layers[i].key);
		free(p->layers[i].weight);
		free(p->layers[i].op);
		free(p->layers[i].fallback);
		for (k = 0; k < PF_COUNT; k++)
			free(p->layers[i].why[k]);
	}
	free(p->layers);
}

int cmd_plan(qm_session *s, int argc, char **argv)
{
	struct calib_samples cs;
	struct plan p;
	char *owned = NULL;
	const char *tmp = getenv("TMPDIR");
	qir_model *m;
	int rc;

	memset(&p, 0, sizeof(p));
	p.s = s;
	p.budget = p.max_loss = -1;
	p.max_float = -1;
	p.measured = p.measured_cos = p.measured_top1 = NAN;
	rc = parse_args(&p, argc, argv);
	if (rc < 0)
		return QOPT_EXIT_OK;	/* --help */
	qm_set_verbosity(s, p.quiet ? QOPT_LOG_WARN : p.verbose ?
			 QOPT_LOG_DEBUG : QOPT_LOG_INFO, 0);
	if (!rc)
		rc = check_budget(&p);
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
	m = cli_load(s, p.input);
	rc = m ? find_layers(&p, m) : QOPT_EXIT_FAIL;
	if (m)
		qir_model_free(m);
	snprintf(p.tmp, sizeof(p.tmp), "%s/qopt-plan-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!rc && !mkdtemp(p.tmp)) {
		qm_say(s, QOPT_LOG_ERROR, "qopt plan: error: cannot make a "
		       "temporary folder: %s\n", strerror(errno));
		rc = QOPT_EXIT_FAIL;
	}
	if (!rc) {
		/* a stop (SIGINT, SIGTERM, SIGHUP) ends the child running
		 * and takes the folder with every candidate model */
		qm_guard_folder(p.tmp);
		rc = run_plan(&p);
		remove_tmp(p.tmp);
		qm_guard_folder(NULL);
	}
	free_plan(&p);
	free(owned);
	return rc;
}
