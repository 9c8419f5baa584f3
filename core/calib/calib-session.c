/*
 * core/calib/calib-session.c - <qopt/calib.h>'s measuring for a public
 * session: qopt_session_calibrate (what `qopt calibrate` does, the
 * ranges in memory) and qopt_session_calibration (the one-command
 * form for the session's runs), over calib-run.c with the caller's
 * runner. The options are checked as the qopt command line checks its
 * own, since the job carries them to the script unchecked.
 */
#include <stdlib.h>
#include <string.h>
#include <qopt/calib.h>
#include "calib/calib-run.h"
#include "calib/calib-samples.h"
#include "manager/session-api.h"

/* A session's measuring settings and what they own. */
struct pub_calib {
	struct calib_settings a;
	qopt_session *s;
	char *data, *input, *dims_text;
	const char **dims;
	int inline_on;		/* calib_inline_begin succeeded */
};

static void pub_free(void *arg)
{
	struct pub_calib *pc = arg;

	if (!pc)
		return;
	if (pc->inline_on)
		calib_inline_end(&pc->a);
	free(pc->data);
	free(pc->input);
	free(pc->dims_text);
	free(pc->dims);
	free(pc);
}

static int begin(void *arg, qk_device *dev)
{
	return qm_pub_prepare(arg, dev) ? QM_FAIL : QM_OK;
}

static int digits(const char *t, unsigned long long hi)
{
	unsigned long long v = 0;

	if (!*t)
		return 0;
	for (; *t; t++) {
		if (*t < '0' || *t > '9' || v > hi / 10)
			return 0;
		v = v * 10 + (unsigned)(*t - '0');
	}
	return v >= 1 && v <= hi;
}

/* "NAME=VALUE,..." split in place into pc->dims; 0, or -1 after
 * saying which is malformed. */
static int split_dims(struct pub_calib *pc, const char *text)
{
	char *p, *tok, *save = NULL, msg[600];
	size_t n = 1;

	if (!text || !*text)
		return 0;
	pc->dims_text = strdup(text);
	for (p = pc->dims_text; p && *p; p++)
		n += *p == ',';
	pc->dims = calloc(n, sizeof(*pc->dims));
	if (!pc->dims_text || !pc->dims) {
		qm_pub_fail(pc->s, QOPT_ENOMEM, "out of memory");
		return -1;
	}
	for (tok = strtok_r(pc->dims_text, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq || eq == tok || !digits(eq + 1, 1000000000)) {
			snprintf(msg, sizeof(msg), "qopt_calib_opts.dims: "
				 "expected NAME=VALUE with a positive integer "
				 "VALUE, got '%.500s'", tok);
			qm_pub_fail(pc->s, QOPT_EUSAGE, msg);
			return -1;
		}
		pc->dims[pc->a.ndims++] = tok;
	}
	pc->a.dims = pc->dims;
	return 0;
}

static int known_method(const char *m)
{
	return !strcmp(m, "max") || !strcmp(m, "percentile") ||
	       !strcmp(m, "entropy") || !strcmp(m, "mse");
}

/* o's method and percentile as qopt calibrate picks them (cli.c,
 * pick_method): 0, or -1 after saying why. */
static int pick_method(struct pub_calib *pc, const qopt_calib_opts *o)
{
	double p = o->percentile;
	int given = p != 0;

	if (given && !(p >= 50 && p <= 100))
		return qm_pub_fail(pc->s, QOPT_EUSAGE, "qopt_calib_opts."
				   "percentile: expected 50 to 100"), -1;
	pc->a.percentile = given ? p : 100;
	if (!o->method) {
		pc->a.method = pc->a.percentile < 100 ? "percentile" : "max";
		return 0;
	}
	if (!known_method(o->method))
		return qm_pub_fail(pc->s, QOPT_EUSAGE, "qopt_calib_opts.method:"
				   " expected max, percentile, entropy or "
				   "mse"), -1;
	if (given && strcmp(o->method, "percentile"))
		return qm_pub_fail(pc->s, QOPT_EUSAGE, "qopt_calib_opts."
				   "percentile belongs to method percentile"),
		       -1;
	if (!given && !strcmp(o->method, "percentile"))
		pc->a.percentile = 99.99;
	pc->a.method = o->method;
	return 0;
}

static struct pub_calib *pub_new(qopt_session *s, qopt_calib_runner *runner,
				 void *arg)
{
	struct pub_calib *pc = calloc(1, sizeof(*pc));
	int threads, strict;

	if (!pc) {
		qm_pub_fail(s, QOPT_ENOMEM, "out of memory");
		return NULL;
	}
	qm_pub_params(s, &threads, &strict);
	pc->s = s;
	pc->a.s = qm_pub_manager(s);
	pc->a.method = "max";
	pc->a.percentile = 100;
	pc->a.ort_timeout = -1;
	pc->a.strict = strict;
	pc->a.threads = threads;
	pc->a.begin = begin;
	pc->a.begin_arg = s;
	pc->a.runner = runner;
	pc->a.runner_arg = arg;
	return pc;
}

/* o checked into pc: 0, or -1 after saying why. */
static int take_opts(struct pub_calib *pc, const qopt_calib_opts *o)
{
	if (!o || o->size < sizeof(*o))
		return qm_pub_fail(pc->s, QOPT_EUSAGE, "qopt_session_calibrate:"
				   " qopt_calib_opts of an unknown size"), -1;
	if (!o->samples == !(o->random > 0))
		return qm_pub_fail(pc->s, QOPT_EUSAGE, "qopt_calib_opts: give "
				   "samples or random, one of them"), -1;
	if (o->random > 1000000 || o->seed > 4294967295ULL)
		return qm_pub_fail(pc->s, QOPT_EUSAGE, "qopt_calib_opts: random "
				   "takes 1 to 1000000 samples, seed 0 to "
				   "2^32-1"), -1;
	if (o->dims && *o->dims && !(o->random > 0))
		return qm_pub_fail(pc->s, QOPT_EUSAGE, "qopt_calib_opts.dims "
				   "is for random samples"), -1;
	if (o->samples && !(pc->data = strdup(o->samples)))
		return qm_pub_fail(pc->s, QOPT_ENOMEM, "out of memory"), -1;
	pc->a.data = pc->data;
	pc->a.random = o->random > 0 ? o->random : 0;
	pc->a.seed = (long)o->seed;
	return split_dims(pc, o->dims) < 0 || pick_method(pc, o) < 0 ? -1 : 0;
}

/* An exit status of calib-run.c as the status the caller gets. */
static qopt_status status_of(const struct pub_calib *pc, int rc)
{
	if (rc == QM_OK)
		return QOPT_OK;
	if (rc == QM_USAGE)
		return QOPT_EUSAGE;
	return pc->a.failed ? pc->a.failed : QOPT_EINVALID;
}

static qopt_status load(struct pub_calib *pc, const char *path,
			qir_model **m)
{
	qir_error err = { 0 };
	char msg[1400];

	if (qir_model_load(path, NULL, m, &err) == 0)
		return QOPT_OK;
	snprintf(msg, sizeof(msg), "%.300s: %s", path, err.msg);
	return qm_pub_fail(pc->s, err.code ? err.code : QOPT_EIO, msg);
}

qopt_status qopt_session_calibrate(qopt_session *s, const char *model_path,
				   const qopt_calib_opts *o,
				   qopt_calib_runner *runner, void *arg,
				   qopt_calib **out)
{
	struct pub_calib *pc;
	qir_model *m = NULL;
	qopt_status rc;

	if (!s)
		return QOPT_EUSAGE;
	if (out)
		*out = NULL;
	if (!model_path || !runner || !out)
		return qm_pub_fail(s, QOPT_EUSAGE, "qopt_session_calibrate: "
				   "NULL model, runner or out");
	if (!(pc = pub_new(s, runner, arg)))
		return QOPT_ENOMEM;
	if (take_opts(pc, o) < 0) {
		rc = QOPT_EUSAGE;
	} else if (!(pc->input = strdup(model_path))) {
		rc = qm_pub_fail(s, QOPT_ENOMEM, "out of memory");
	} else {
		pc->a.input = pc->input;
		rc = status_of(pc, calib_check_samples(&pc->a, "qopt calibrate",
						       NULL));
		if (!rc)
			rc = load(pc, model_path, &m);
		if (!rc)
			rc = status_of(pc, calib_pipeline_ranges(&pc->a,
					"qopt calibrate", m, out));
	}
	qir_model_free(m);
	pub_free(pc);
	return rc;
}

qopt_status qopt_session_calibration(qopt_session *s, const char *samples,
				     qopt_calib_runner *runner, void *arg)
{
	struct pub_calib *pc;
	qk_device dev;
	qopt_status rc;

	if (!s)
		return QOPT_EUSAGE;
	if (!samples || !runner)
		return qm_pub_fail(s, QOPT_EUSAGE, "qopt_session_calibration: "
				   "NULL samples or runner");
	if ((rc = qm_pub_prepare(s, &dev)))
		return rc;
	if (!(pc = pub_new(s, runner, arg)))
		return QOPT_ENOMEM;
	if (!(pc->data = strdup(samples))) {
		pub_free(pc);
		return qm_pub_fail(s, QOPT_ENOMEM, "out of memory");
	}
	pc->a.data = pc->data;
	pc->a.input = qm_pub_input(s);	/* each run's, when it runs */
	/* Attached before the hook that points into pc is registered: the
	 * session frees pc once no run can call the hook any more. */
	if ((rc = qm_pub_attach(s, pc, pub_free))) {
		pub_free(pc);
		return rc;
	}
	rc = status_of(pc, calib_check_samples(&pc->a, "qopt", NULL));
	if (!rc)
		rc = status_of(pc, calib_inline_begin(&pc->a));
	/* the hook's state, even when begin refused (--strict with nothing
	 * to measure): the hook is set and may still be run, so the state
	 * lives until the session ends */
	pc->inline_on = pc->a.inline_state != NULL;
	return rc;
}
