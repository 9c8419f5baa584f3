/*
 * core/plan/plan-session.c - <qopt/plan.h>: the plan for a public
 * session, its options checked as `qopt plan` checks its command line,
 * the results kept in memory (the INI, the report, the calibration
 * files) for the caller to write where it wants.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qopt/plan.h>
#include "plan/plan.h"
#include "calib/calib-samples.h"

struct qopt_plan {
	char *ini, *json, *summary;
	char *name[PLAN_NCALIB];	/* owned copies */
	char *text[PLAN_NCALIB];	/* taken from struct plan */
	size_t ncalib;
};

static qopt_status usage(qopt_session *s, const char *why)
{
	char msg[1200], shown[1024];

	qir_escape_text(shown, sizeof(shown), why);
	snprintf(msg, sizeof(msg), "qopt_session_plan: %s", shown);
	return qm_pub_fail(s, QOPT_EUSAGE, msg);
}

/* The options into p; QOPT_OK or a status, said. owned: what the
 * derived INI name took (freed by the caller). */
static qopt_status take_opts(qopt_session *s, struct plan *p,
			     const qopt_plan_opts *o, char **owned)
{
	char why[512];
	size_t n;

	if (!o || o->size < sizeof(*o))
		return usage(s, "NULL options, or a size older than "
			     "qopt_plan_opts");
	if (!o->samples || !*o->samples)
		return usage(s, "no samples folder: the layers are measured on "
			     "samples");
	if (!o->formats)
		return usage(s, "no formats");
	if ((o->effective_bits >= 0) == (o->max_loss >= 0))
		return usage(s, "give either effective_bits or max_loss (the "
			     "other < 0)");
	if (o->autocast && strcmp(o->autocast, "float16") &&
	    strcmp(o->autocast, "bfloat16"))
		return usage(s, "autocast takes float16 or bfloat16");
	if (plan_parse_formats(p, o->formats, why, sizeof(why)))
		return usage(s, why);
	p->data = o->samples;
	p->budget = o->effective_bits;
	p->max_loss = o->max_loss;
	p->autocast = o->autocast;
	p->max_float = o->max_float_layers < 0 ? -1 : o->max_float_layers;
	p->save_model = o->save_model;
	p->output = o->output;
	if (!p->output) {
		n = strlen(p->input);
		if (n > 5 && !strcmp(p->input + n - 5, ".onnx"))
			n -= 5;
		if (asprintf(owned, "%.*s.plan.ini", (int)n, p->input) < 0)
			return qm_pub_fail(s, QOPT_ENOMEM, "out of memory");
		p->output = *owned;
	}
	return plan_check_budget(p) ? QOPT_EUSAGE : QOPT_OK;
}

/* The samples and the calibration files' names, checked before work. */
static qopt_status check_inputs(qopt_session *s, struct plan *p)
{
	static const char *const suffix[] = { ".calib.json",
					      ".int8.calib.json",
					      ".w4a4.calib.json" };
	static const int fmt[] = { PF_FP8, PF_INT8, PF_W4A4 };
	struct calib_samples cs;
	char why[1400], name[1024];
	size_t k;

	memset(&cs, 0, sizeof(cs));
	if (calib_samples_check(p->data, &cs, why, sizeof(why)) < 0) {
		calib_samples_free(&cs);
		return qm_pub_fail(s, QOPT_EINVALID, why);
	}
	calib_samples_free(&cs);
	for (k = 0; k < sizeof(fmt) / sizeof(*fmt); k++) {
		if (!plan_has_format(p, fmt[k]))
			continue;
		plan_calib_name(p, suffix[k], name, sizeof(name));
		if (!plan_ini_value_ok(name)) {
			snprintf(why, sizeof(why), "the INI would name its "
				 "calibration file '%s', which a line "
				 "\"calibration = NAME\" cannot hold; give "
				 "another output", name);
			return usage(s, why);
		}
	}
	return QOPT_OK;
}

static qopt_status results(struct plan *p, qopt_plan **out)
{
	const char *name[PLAN_NCALIB] = { p->calib_name, p->int8_calib_name,
					  p->w4a4_calib_name };
	qopt_plan *r = calloc(1, sizeof(*r));
	char line[2048];
	int k;

	if (!r)
		return QOPT_ENOMEM;
	plan_summary(p, line, sizeof(line));
	r->ini = plan_ini_text(p);
	r->json = plan_json_text(p);
	r->summary = strdup(line);
	for (k = 0; k < PLAN_NCALIB; k++) {
		if (!p->calib_text[k])
			continue;
		r->name[r->ncalib] = strdup(name[k]);
		r->text[r->ncalib++] = p->calib_text[k];
		p->calib_text[k] = NULL;
	}
	for (k = 0; k < (int)r->ncalib; k++)
		if (!r->name[k])
			break;
	if (k < (int)r->ncalib || !r->ini || !r->json || !r->summary) {
		qopt_plan_free(r);
		return QOPT_ENOMEM;
	}
	*out = r;
	return QOPT_OK;
}

qopt_status qopt_session_plan(qopt_session *s, const char *model_path,
			      const qopt_plan_opts *o,
			      qopt_calib_runner *runner, void *arg,
			      qopt_plan **out)
{
	qm_session *qm = s ? qm_pub_manager(s) : NULL;
	qir_error err = { 0 };
	char *owned = NULL, msg[1200];
	qir_model *m = NULL;
	struct plan p;
	qopt_status rc;
	int lv;

	if (!s || !out)
		return QOPT_EUSAGE;
	*out = NULL;
	if (!model_path || !runner)
		return usage(s, model_path ? "NULL runner" : "NULL model path");
	plan_init(&p, qm);
	p.parent = s;
	p.input = model_path;
	p.runner = runner;
	p.runner_arg = arg;
	lv = qm_verbosity(qm);
	p.quiet = lv < QOPT_LOG_INFO;
	p.verbose = lv >= QOPT_LOG_DEBUG;
	rc = take_opts(s, &p, o, &owned);
	if (!rc)
		rc = check_inputs(s, &p);
	if (!rc && qir_model_load(model_path, NULL, &m, &err) < 0) {
		snprintf(msg, sizeof(msg), "%s: %s", model_path, err.msg);
		rc = qm_pub_fail(s, err.code ? (qopt_status)err.code : QOPT_EIO,
				 msg);
	}
	if (!rc) {
		int r = plan_run(&p, m);

		rc = r == QM_OK ? QOPT_OK : r == QM_USAGE ? QOPT_EUSAGE :
		     QOPT_EINVALID;
	}
	if (!rc)
		rc = results(&p, out);
	plan_free(&p);
	free(owned);
	return rc;
}

const char *qopt_plan_ini(const qopt_plan *p)
{
	return p ? p->ini : NULL;
}

const char *qopt_plan_report_json(const qopt_plan *p)
{
	return p ? p->json : NULL;
}

const char *qopt_plan_summary(const qopt_plan *p)
{
	return p ? p->summary : NULL;
}

size_t qopt_plan_ncalib(const qopt_plan *p)
{
	return p ? p->ncalib : 0;
}

qopt_status qopt_plan_calib_at(const qopt_plan *p, size_t i,
			       const char **name, const char **text)
{
	if (!p || i >= p->ncalib)
		return QOPT_EUSAGE;
	if (name)
		*name = p->name[i];
	if (text)
		*text = p->text[i];
	return QOPT_OK;
}

void qopt_plan_free(qopt_plan *p)
{
	size_t k;

	if (!p)
		return;
	for (k = 0; k < p->ncalib; k++) {
		free(p->name[k]);
		free(p->text[k]);
	}
	free(p->ini);
	free(p->json);
	free(p->summary);
	free(p);
}
