/*
 * core/plan/plan-engine.c - the plan's flow: one calibration of the
 * input model for every candidate, the candidates and their
 * measurement, the choice, the calibration files the INI names (each
 * measured on the model the sections before it make), the plan's model
 * made as `qopt -p PLAN.ini` makes it and measured. Everything in a
 * private temporary folder that a stop removes (plan.h).
 */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <qopt/file.h>
#include "plan/plan.h"

/* The budget against the formats: below the cheapest, no plan. */
int plan_check_budget(struct plan *p)
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
		return QM_USAGE;
	}
	return 0;
}

int plan_has_format(const struct plan *p, int k)
{
	size_t i;

	for (i = 0; i < p->nfmt; i++)
		if (p->fmt[i] == k)
			return 1;
	return 0;
}

/* A calibration file's name beside the INI: PLAN.ini -> PLAN + suffix
 * (".calib.json", ".w4a4.calib.json"). */
void plan_calib_name(const struct plan *p, const char *suffix, char *buf,
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

/* The calibration file named cname can stand in the INI's line
 * "calibration = NAME": inih would end the value at an inline comment
 * (" ;"), strip blanks, and refuse a line over PLAN_INI_LINE_MAX. */
int plan_ini_value_ok(const char *cname)
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

/* `qopt calibrate MODEL --data DIR --passes PASSES -o CALIB`: the
 * ranges the passes read, measured on model (the input model, or the
 * first step of the plan's pipeline). */
static int calibrate(struct plan *p, const char *model, const char *passes,
		     const char *calib)
{
	struct plan_log log = { 0 };
	int rc = plan_step_calibrate(p, model, passes, calib, &log);

	if (rc > 0) {
		char why[1024];

		plan_log_reason(&log, why, sizeof(why));
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: the calibration "
		       "(qopt calibrate --passes %s) failed: %s\n", passes, why);
	}
	plan_log_free(&log);
	return rc ? -1 : 0;
}

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
static int check_w4a4(struct plan *p, const struct plan_log *log)
{
	long got = plan_stat(log, "linear inputs W4A4");
	int want = picked(p, PF_W4A4);

	if (got < 0) {
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: the plan's "
		       "run left no counters to read\n");
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
	const char *files[1] = { out };
	struct plan_log log = { 0 };
	char why[1024];
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

	rc = plan_step_ini(p, ini, p->input, out, PLAN_STEP_QUIET |
			   PLAN_STEP_STATS, &log);
	if (rc > 0) {
		plan_log_reason(&log, why, sizeof(why));
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: the plan's "
		       "pipeline failed: %s\n", why);
	}
	if (!rc && picked(p, PF_W4A4) && check_w4a4(p, &log) < 0)
		rc = -1;
	plan_log_free(&log);
	if (rc)
		return -1;
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
	char ini[4200], step[4200], why[1024];
	struct plan_log log = { 0 };
	int rc;

	snprintf(ini, sizeof(ini), "%s/step1.ini", p->tmp);
	snprintf(step, sizeof(step), "%s/step1.onnx", p->tmp);
	p->before_fmt = calibrated[c].fmt;
	rc = plan_write_ini(p, ini);
	p->before_fmt = PF_NONE;
	if (rc < 0)
		return -1;
	rc = plan_step_ini(p, ini, p->input, step, PLAN_STEP_QUIET, &log);
	if (rc > 0) {
		plan_log_reason(&log, why, sizeof(why));
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: the plan's "
		       "steps before [%s]'s calibration failed: %s\n",
		       plan_formats[calibrated[c].fmt].name, why);
	}
	plan_log_free(&log);
	if (rc)
		return -1;
	rc = calibrate(p, step, calibrated[c].passes, to);
	unlink(step);
	unlink(ini);
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
		plan_calib_name(p, calibrated[c].suffix, name, sizeof(p->calib_name));
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


/* The calibration files' texts, and the model at --save-model, before
 * the temporary folder goes. */
static int keep_results(struct plan *p, const char *model)
{
	const char *name[PLAN_NCALIB] = { p->calib_name, p->int8_calib_name,
					  p->w4a4_calib_name };
	char path[8400];
	qir_error err = { 0 };
	int k;

	for (k = 0; k < PLAN_NCALIB; k++) {
		size_t n;

		if (!*name[k])
			continue;
		snprintf(path, sizeof(path), "%s/%s", p->tmp, name[k]);
		p->calib_text[k] = qir_read_file(path, 0, (size_t)1 << 30, &n,
						 &err);
		if (!p->calib_text[k]) {
			qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: %s\n",
			       err.msg);
			return -1;
		}
	}
	return p->save_model ? plan_copy(p, model, p->save_model) : 0;
}

static int run_plan(struct plan *p)
{
	char calib[4200] = "", ini[4200], model[4200], passes[64] = "";
	char **files = NULL;
	size_t nfiles = 0;
	int rc = QM_FAIL, measured;

	/* one calibration of the input model for every candidate: fp8's
	 * and w4a4's targets measured in one ORT session */
	if (plan_has_format(p, PF_FP8))
		strcat(passes, "fp8");
	if (plan_has_format(p, PF_INT8))
		strcat(strcat(passes, *passes ? "," : ""), "int8");
	if (plan_has_format(p, PF_W4A4))
		strcat(strcat(passes, *passes ? "," : ""),
		       W4A4_CALIB);
	if (*passes) {
		snprintf(calib, sizeof(calib), "%s/" FLOAT_CALIB, p->tmp);
		if (calibrate(p, p->input, passes, calib) < 0)
			return QM_FAIL;
	}
	snprintf(ini, sizeof(ini), "%s/plan.ini", p->tmp);
	snprintf(model, sizeof(model), "%s/plan.onnx", p->tmp);
	if (plan_make_candidates(p, calib, &files, &nfiles) < 0) {
		plan_drop_candidates(files, nfiles);
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: out of memory\n");
		return QM_FAIL;
	}
	measured = plan_measure_candidates(p, files, nfiles);
	plan_drop_candidates(files, nfiles);
	if (measured == 0 && plan_solve(p) == 0 && plan_bound_float(p) == 0 &&
		 plan_note_fallbacks(p) == 0 && plan_calibration(p) == 0 &&
		 plan_write_ini(p, ini) == 0 &&
		 final_model(p, ini, model) == 0 &&
		 keep_results(p, model) == 0)
		rc = QM_OK;
	/* the rest (logs, the INI, the model, calibration files) goes
	 * with the temporary folder */
	return rc;
}

void plan_free(struct plan *p)
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
	for (k = 0; k < PLAN_NCALIB; k++)
		free(p->calib_text[k]);
	p->layers = NULL;
	p->nlayers = 0;
}

int plan_parse_formats(struct plan *p, const char *list, char *why, size_t n)
{
	char *copy = strdup(list), *save = NULL, *tok;
	int rc = 0, k;

	if (!copy) {
		snprintf(why, n, "out of memory");
		return QM_FAIL;
	}
	for (tok = strtok_r(copy, ",", &save); tok && !rc;
	     tok = strtok_r(NULL, ",", &save)) {
		/* as given: the front end escapes the message */
		const char *shown = tok;

		for (k = 0; k < PF_COUNT; k++)
			if (!strcmp(tok, plan_formats[k].name))
				break;
		if (k == PF_COUNT) {
			snprintf(why, n, "unknown format '%s' in --formats "
				 "(known: none, fp8, int8, nvfp4, mxfp8, "
				 "hadamard+nvfp4, w4a4)", shown);
			rc = QM_USAGE;
		}
		for (size_t i = 0; !rc && i < p->nfmt; i++)
			if (p->fmt[i] == k) {
				snprintf(why, n, "format '%s' given twice in "
					 "--formats", shown);
				rc = QM_USAGE;
			}
		if (!rc)
			p->fmt[p->nfmt++] = k;
	}
	free(copy);
	if (!rc && !p->nfmt) {
		snprintf(why, n, "--formats names no format");
		rc = QM_USAGE;
	}
	return rc;
}

void plan_summary(const struct plan *p, char *buf, size_t n)
{
	char picks[256], out[1024];

	count_picks(p, picks, sizeof(picks));
	qir_escape_text(out, sizeof(out), p->output ? p->output : "");
	snprintf(buf, n, "%zu layers (%s): %.4f effective bits; summed score "
		 "%.4g predicted, %.4g measured (cosine %.6f); %zu ORT "
		 "sessions over %ld samples -> %s", p->nlayers, picks, p->bits,
		 p->predicted, p->measured, p->measured_cos, p->sessions,
		 p->samples, out);
}

void plan_init(struct plan *p, qm_session *s)
{
	memset(p, 0, sizeof(*p));
	p->s = s;
	p->budget = p->max_loss = -1;
	p->max_float = -1;
	p->measured = p->measured_cos = p->measured_top1 = NAN;
}

int plan_run(struct plan *p, qir_model *m)
{
	const char *tmp = getenv("TMPDIR");
	int rc = plan_find_layers(p, m);

	qir_model_free(m);
	if (rc)
		return rc;
	snprintf(p->tmp, sizeof(p->tmp), "%s/qopt-plan-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(p->tmp)) {
		qm_say(p->s, QOPT_LOG_ERROR, "qopt plan: error: cannot make a "
		       "temporary folder: %s\n", strerror(errno));
		return QM_FAIL;
	}
	/* a stop (SIGINT, SIGTERM, SIGHUP) ends the job running and takes
	 * the folder with every candidate model */
	qm_guard_folder(p->tmp);
	rc = run_plan(p);
	qm_remove_folder(p->tmp);
	qm_guard_folder(NULL);
	return rc;
}
