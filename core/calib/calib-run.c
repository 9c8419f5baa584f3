/*
 * core/calib/calib-run.c - activation ranges measured in ONNX Runtime for
 * the values passes ask for (calib-run.h): `qopt calibrate`, the
 * one-command form (qopt MODEL --calibration-data DIR), `qopt plan` and
 * libqopt's qopt_session_calibrate / _calibration call it.
 *
 * qopt owns the model side: the values to measure come from the passes
 * (each pass's calibration_targets with its options, through the
 * manager: core/manager/calib-query.c), and qopt writes a copy of the
 * model that exposes them as graph outputs, since ONNX Runtime returns
 * graph outputs only. The runtime side (reading samples, running ORT,
 * reducing to amax) is the runner's (the qopt program's runs the node
 * script qopt-calibrate-ort: core/cli/calib-runner.c); it hands
 * the amax values back in a result file in the temporary folder, and
 * qopt writes the calibration file (qopt_calib_write) through the same
 * checks and atomic rename as the main command's -o (qm_outfile).
 * Sample files are checked before node starts (calib-samples.c). The
 * file names the model by qir_model_hash() of the model the pass will
 * see (fp8-mha compares it, so a file made for another model or an
 * edited one is refused).
 */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <qopt/calib.h>
#include <qopt/file.h>
#include "calib/calib-hoist.h"
#include "calib/calib-job.h"
#include "calib/calib-ort.h"
#include "calib/calib-run.h"
#include "calib/calib-samples.h"

/* Keeps the first occurrence of each value in v[0..*n), in order, and
 * the stage[] (NULL: none) beside each. */
static int dedup(qir_value **v, size_t *stage, size_t *n)
{
	struct val_pos *vp = malloc((*n ? *n : 1) * sizeof(*vp));
	unsigned char *keep = calloc(*n ? *n : 1, 1);
	size_t i, k;

	if (!vp || !keep) {
		free(vp);
		free(keep);
		return -1;
	}
	for (i = 0; i < *n; i++)
		vp[i] = (struct val_pos){ v[i], i };
	if (*n)
		qsort(vp, *n, sizeof(*vp), calib_by_value);
	for (i = 0; i < *n; i++)
		if (!i || vp[i].v != vp[i - 1].v)
			keep[vp[i].i] = 1;
	for (i = k = 0; i < *n; i++)
		if (keep[i]) {
			if (stage)
				stage[k] = stage[i];
			v[k++] = v[i];
		}
	*n = k;
	free(vp);
	free(keep);
	return 0;
}

/* A query run of the pipeline set up in a->s with the calibration
 * hook: the values its passes ask for on m, deduplicated, in the order
 * asked (*sel malloc'd), and the stage that first asked for each
 * (*stage malloc'd). An exit status. */
static int select_tensors(struct calib_settings *a, const char *who,
			  qir_model *m, qir_value ***sel, size_t **stage,
			  size_t *n)
{
	qir_value *const *asked;
	const size_t *by = NULL;
	size_t nasked = 0, k = 0;
	qk_device dev;
	int rc;

	rc = a->begin(a->begin_arg, &dev);
	if (!rc && qm_hook_calibration(a->s) < 0) {
		qm_say_as(a->s, QOPT_LOG_ERROR, who, "error: out of memory\n");
		rc = QM_FAIL;
	}
	if (!rc)
		rc = qm_run_begin(a->s, dev, a->threads, 1);
	if (!rc && qm_run(a->s, m))
		rc = QM_FAIL;
	asked = qm_calibration_values(a->s, &k, &nasked, &by);
	if (!rc && !nasked) {
		qm_say_as(a->s, QOPT_LOG_ERROR, who, "error: no pass of the "
			"pipeline (%s) reads a calibration file: nothing "
			"to calibrate\n", qm_pipeline_name(a->s));
		rc = QM_USAGE;
	}
	qm_run_end(a->s);
	if (rc)
		return rc;
	*sel = malloc((k ? k : 1) * sizeof(**sel));
	*stage = malloc((k ? k : 1) * sizeof(**stage));
	/* asked is NULL when nothing was asked: memcpy may not see it. */
	if (*sel && *stage && k) {
		memcpy(*sel, asked, k * sizeof(**sel));
		memcpy(*stage, by, k * sizeof(**stage));
	}
	if (!*sel || !*stage || dedup(*sel, *stage, &k) < 0) {
		qm_say_as(a->s, QOPT_LOG_ERROR, who, "error: out of memory\n");
		free(*sel);
		free(*stage);
		return QM_FAIL;
	}
	*n = k;
	return 0;
}

/* ------------------------------------------------------------------ */
/* the probe model's files */

/* A stop signal (SIGINT, SIGTERM, SIGHUP) ends the runner's child and
 * removes the temporary folder and its files, and the calibration
 * file's temporary: the manager's guard does it (qm_guard_*). */
#define TMP_FILES 5
/* the one-command form's files besides (guard_inline) */
#define INLINE_FILES 3

/* A model for ONNX Runtime in the private temporary folder: the
 * input's external data referred to in place (qir_save_opts.
 * link_external, one hard link per data file), never copied; an inline
 * model's tensors of 1 KiB or more (keep_inline 0) go to its data file,
 * which a later copy of it links in turn. */
static int save_for_ort(qir_model *m, const char *path, int keep_inline,
			qir_error *err)
{
	qir_save_opts so = QIR_SAVE_OPTS_INIT;

	so.link_external = 1;
	if (!keep_inline)
		so.external_threshold = 1024;
	return qir_model_save(m, path, &so, err);
}

/* The links save_for_ort made beside path's data file data:
 * DATA.in, DATA.in2, ... (made in that order, so the first missing one
 * ends them). */
static void remove_links(const char *data)
{
	char link[4300];

	for (unsigned k = 1;; k++) {
		if (k == 1)
			snprintf(link, sizeof(link), "%s.in", data);
		else
			snprintf(link, sizeof(link), "%s.in%u", data, k);
		if (unlink(link) < 0 && errno == ENOENT)
			break;
	}
}

/* The pass's model as it is is measured through a copy (saved and
 * loaded back: the probe adds outputs and hoists values, which the
 * pipeline's model must not see); its files and the calibration file
 * live in one temporary folder until the run ends. */
struct calib_inline {
	struct calib_settings *a;
	char dir[4096];		/* "" until made */
	char model[4200], data[4200], calib[4200];
	unsigned count;		/* calibration files made */
};

/* The guard removes the folder's files and the folder on a stop. */
static void guard_inline(struct calib_inline *ci)
{
	const char *const files[3] = { ci->model, ci->data, ci->calib };

	qm_guard_install(0);
	qm_guard_files(files, 3, ci->dir);
}

/* The one-command form's files (the folder stays until
 * calib_inline_end). */
static void remove_inline_files(struct calib_inline *ci)
{
	if (!ci || !ci->dir[0])
		return;
	unlink(ci->model);
	unlink(ci->data);
	remove_links(ci->data);
	if (ci->calib[0])
		unlink(ci->calib);
}

/* The script was stopped by ^C: qopt ends as if ^C had reached it too
 * (the shell sees 130), its temporary files removed first (the guard
 * does not run for a default action). */
static void stop_by_sigint(struct calib_settings *a)
{
	struct calib_inline *ci = a->inline_state;

	remove_inline_files(ci);
	if (ci && ci->dir[0])
		qm_remove_folder(ci->dir);
	qm_guard_files(NULL, 0, NULL);
	signal(SIGINT, SIG_DFL);
	raise(SIGINT);
}

/* The bound on the runner's run (calib_ort_timeout): 0, or -1 after
 * saying why (a usage error). */
static int script_bound(struct calib_settings *a, const char *who,
			const char *probe, long *timeout)
{
	char why[256];

	*timeout = calib_ort_timeout(a->ort_timeout, calib_model_bytes(probe),
				   calib_count_samples(a->data, a->random), why, sizeof(why));
	if (*timeout >= 0)
		return 0;
	qm_say_as(a->s, QOPT_LOG_ERROR, who, "error: %s\n", why);
	return -1;
}

/* How the runner ended. */
enum run_end { RUN_OK, RUN_FAILED, RUN_INTERRUPTED, RUN_USAGE };

/* Hands the job to the runner, the guard's files and who in a for a
 * runner that spawns. A runner's message is said here; a runner that
 * said its own leaves err's empty. */
static enum run_end call_runner(struct calib_settings *a, const char *who,
				const char *job, const char *result,
				long timeout, const char *dir,
				const char *const *guard, size_t nguard)
{
	qir_error err = { 0 };
	char shown[1024];
	qopt_status st;

	a->who = who;
	a->tmpdir = dir;
	a->guard = guard;
	a->nguard = nguard;
	st = a->runner(a->runner_arg, job, result, (double)timeout, &err);
	a->guard = NULL;
	a->nguard = 0;
	if (st == QOPT_OK)
		return RUN_OK;
	a->failed = st;
	if (err.msg[0]) {
		qir_escape_text(shown, sizeof(shown), err.msg);
		qm_say_as(a->s, QOPT_LOG_ERROR, who, "error: %s\n", shown);
	}
	if (st == QOPT_EUSAGE)
		return RUN_USAGE;
	return st == QOPT_EINTERRUPTED && a->raise_sigint ? RUN_INTERRUPTED :
	       RUN_FAILED;
}

/* Writes the probe model and the job into a fresh temporary folder (in
 * the one-command form, its folder), runs the job, reads its result,
 * and removes what it wrote on every way out: 0 when amax[] is filled,
 * -2 when the runner was stopped by ^C. */
static int run_probe(struct calib_settings *a, const char *who,
		     const char *model_name, qir_model *m, qir_value **sel,
		     qir_value **at, size_t nsel, double *amax, long *samples)
{
	const char *tmp = getenv("TMPDIR");
	char dir[4096], probe[4200], job[4200], data[4200], result[4200];
	char link[4300];
	struct calib_inline *ci = a->inline_state;
	/* the one-command form: its folder, whose files a stop removes too */
	int own_dir = !ci || !ci->dir[0];
	const char *files[TMP_FILES + INLINE_FILES];
	size_t nfiles = own_dir ? TMP_FILES : TMP_FILES + INLINE_FILES;
	qir_error err = { 0 };
	enum run_end end = RUN_FAILED;
	long timeout = 0;
	int rc = -1;

	snprintf(dir, sizeof(dir), "%s", own_dir ? "" : ci->dir);
	if (own_dir)
		snprintf(dir, sizeof(dir), "%s/qopt-calib-XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
	if (own_dir && !mkdtemp(dir)) {
		qm_say_as(a->s, QOPT_LOG_ERROR, who, "error: cannot make a "
			"temporary folder: %s\n", strerror(errno));
		return -1;
	}
	snprintf(probe, sizeof(probe), "%s/probe.onnx", dir);
	snprintf(data, sizeof(data), "%s/probe.onnx.data", dir);
	snprintf(job, sizeof(job), "%s/job.json", dir);
	snprintf(result, sizeof(result), "%s/result.txt", dir);
	snprintf(link, sizeof(link), "%s.in", data);
	files[0] = probe;
	files[1] = data;
	files[2] = job;
	files[3] = result;
	files[4] = link;
	files[5] = ci ? ci->model : "";
	files[6] = ci ? ci->data : "";
	files[7] = ci ? ci->calib : "";
	qm_guard_install(0);
	qm_guard_files(files, nfiles, dir);
	if (save_for_ort(m, probe, 1, &err) < 0)
		qm_say_as(a->s, QOPT_LOG_ERROR, who, "error: cannot write the probe "
			"model: %s\n", err.msg);
	else if (calib_job_write(job, a, who, model_name, m, probe, sel, at,
				 nsel, result) < 0)
		qm_say_as(a->s, QOPT_LOG_ERROR, who, "error: cannot write %s: %s\n",
			job, strerror(errno));
	else if (script_bound(a, who, probe, &timeout) < 0)
		end = RUN_USAGE;
	else if ((end = call_runner(a, who, job, result, timeout, dir, files,
				    nfiles)) == RUN_OK)
		rc = calib_job_result(a, who, sel, nsel, result, amax,
				     samples);
	unlink(job);
	unlink(probe);
	unlink(data);
	remove_links(data);
	unlink(result);
	if (own_dir) {
		qm_remove_folder(dir);
		qm_guard_files(NULL, 0, NULL);
	} else {
		guard_inline(ci);
	}
	return end == RUN_INTERRUPTED ? -2 : end == RUN_USAGE ? -3 : rc;
}

/* Each selected value as the main graph shows it (calib-hoist.c: a
 * tensor of an If branch or a Loop body through new outputs), listed
 * as a graph output: 0, or -1 after saying why. */
static int expose(struct calib_settings *a, const char *who, qir_model *m,
		  qir_value **sel, qir_value **at, size_t nsel)
{
	qir_error err = { 0 };
	char shown[1024];
	size_t i;

	for (i = 0; i < nsel; i++) {
		at[i] = calib_hoist(m, sel[i], &err);
		if (!at[i]) {
			qir_escape_text(shown, sizeof(shown), err.msg);
			qm_say_as(a->s, QOPT_LOG_ERROR, who, "error: %s\n", shown);
			return -1;
		}
		if (!at[i]->is_input && !at[i]->is_output &&
		    qir_graph_add_output(m->graph, at[i]) < 0) {
			qir_escape_text(shown, sizeof(shown), sel[i]->name);
			qm_say_as(a->s, QOPT_LOG_ERROR, who, "error: cannot expose "
				"'%s' as an output\n", shown);
			return -1;
		}
	}
	return 0;
}

/* Each amax[k] that held no element (NAN) becomes 0, said naming the
 * pass that asked for sel[k] as the user wrote it. */
static void said_empty(struct calib_settings *a, const char *who,
		       qir_value **sel, const size_t *stage, size_t n,
		       double *amax)
{
	char shown[1024], pass[512];
	struct qm_stage st;
	size_t k;

	for (k = 0; k < n; k++) {
		if (!isnan(amax[k]))
			continue;
		amax[k] = 0;
		qm_stage_at(a->s, stage[k], &st);
		if (st.from)
			snprintf(pass, sizeof(pass), "%s's step %s", st.from,
				 st.name);
		else
			snprintf(pass, sizeof(pass), "%s", st.name);
		qir_escape_text(shown, sizeof(shown), sel[k]->name);
		qm_say_as(a->s, QOPT_LOG_WARN, who, "warning: tensor '%s' held no "
		    "element in any sample: amax 0 written (%s leaves it "
		    "unquantized)\n", shown, pass);
	}
}

int calib_measure(struct calib_settings *a, const char *who,
		  const char *model_name, qir_model *m, qir_value **sel,
		  const size_t *stage, size_t n, double *amax, long *samples)
{
	qir_value **at = calloc(n ? n : 1, sizeof(*at));
	int rc = -1;

	if (!at)
		qm_say_as(a->s, QOPT_LOG_ERROR, who, "error: out of memory\n");
	else if (calib_ort_refuse(a->s, who, m) == 0 &&
		 expose(a, who, m, sel, at, n) == 0)
		rc = run_probe(a, who, model_name, m, sel, at, n, amax,
			       samples);
	free(at);
	if (rc == -2)
		stop_by_sigint(a);
	if (rc == 0)
		said_empty(a, who, sel, stage, n, amax);
	return rc == -3 ? -2 : rc < 0 ? -1 : 0;
}

static int by_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* 0 when the keys are unique, else -1 after naming one given twice
 * (two sibling nodes of one name holding same-named tensors). */
static int keys_unique(struct calib_settings *a, const char *who,
		       char *const *keys, size_t n)
{
	const char **sorted = malloc((n ? n : 1) * sizeof(*sorted));
	char shown[1024];
	size_t k;
	int rc = 0;

	if (!sorted) {
		qm_say_as(a->s, QOPT_LOG_ERROR, who, "error: out of memory\n");
		return -1;
	}
	if (n)
		memcpy(sorted, keys, n * sizeof(*sorted));
	if (n)
		qsort(sorted, n, sizeof(*sorted), by_str);
	for (k = 1; k < n && !rc; k++)
		if (!strcmp(sorted[k], sorted[k - 1])) {
			qir_escape_text(shown, sizeof(shown), sorted[k]);
			qm_say_as(a->s, QOPT_LOG_ERROR, who, "error: two tensors have "
			    "the key '%s' (their enclosing nodes share a name: "
			    "name them apart)\n", shown);
			rc = -1;
		}
	free(sorted);
	return rc;
}

/* The ranges as the file holds them; NULL after saying why. */
static qopt_calib *ranges(struct calib_settings *a, const char *who,
			  const char *model_name, uint64_t hash,
			  qir_value **sel, char *const *keys, size_t n,
			  const double *amax, long samples)
{
	char source[128], *mcopy = strdup(model_name), shown[1024];
	qir_error err = { 0 };
	qopt_calib *c = NULL;
	size_t k;

	snprintf(source, sizeof(source), "random (seed %ld): smoke test "
		 "only, not a calibration", a->seed);
	if (!mcopy || qopt_calib_new(basename(mcopy), hash, a->method,
				     a->percentile, samples,
				     a->data ? a->data : source, &c)) {
		qm_say_as(a->s, QOPT_LOG_ERROR, who, "error: out of memory\n");
		free(mcopy);
		return NULL;
	}
	free(mcopy);
	for (k = 0; k < n; k++)
		if (qopt_calib_add(c, keys[k], sel[k]->dtype ?
				   qir_dtype_name(sel[k]->dtype) : "UNDEFINED",
				   amax[k], &err)) {
			qir_escape_text(shown, sizeof(shown), err.msg);
			qm_say_as(a->s, QOPT_LOG_ERROR, who, "error: %s\n", shown);
			qopt_calib_free(c);
			return NULL;
		}
	return c;
}

int calib_write(struct calib_settings *a, const char *who, const char *path,
		const char *model_name, uint64_t hash, qir_value **sel,
		char *const *keys, size_t n, const double *amax,
		long samples)
{
	qopt_calib *c = ranges(a, who, model_name, hash, sel, keys, n, amax,
			       samples);
	qir_error err = { 0 };
	int rc = -1;

	if (!c)
		return -1;
	if (!strcmp(path, "/dev/null"))
		rc = 0;
	else if (qopt_calib_write(c, path, &err))
		qm_say_as(a->s, QOPT_LOG_ERROR, who, "%s: error: %s\n", path,
		    err.msg);
	else
		rc = 0;
	qopt_calib_free(c);
	return rc;
}

/* "N tensors over M samples (max)" and where they went. */
static void said_done(struct calib_settings *a, const char *who, size_t n,
		      long samples, const char *where)
{
	if (qm_verbosity(a->s) < QOPT_LOG_INFO)
		return;	/* -q */
	qm_say_as(a->s, QOPT_LOG_INFO, who, "%zu tensors over %ld sample%s (%s) -> "
	    "%s\n", n, samples, samples == 1 ? "" : "s",
	    a->method ? a->method : "max", where);
}

/* The ranges of the pipeline's passes on m (CHANGED), *out; an exit
 * status, after saying why. */
static int pipeline_ranges(struct calib_settings *a, const char *who,
			   qir_model *m, qopt_calib **out, size_t *n,
			   long *nsamples)
{
	qir_value **sel = NULL;
	size_t *stage = NULL, nsel = 0;
	uint64_t hash = qir_model_hash(m);	/* before the outputs change */
	double *amax = NULL;
	char **keys = NULL;
	long samples = 0;
	int rc, got;

	*out = NULL;
	rc = select_tensors(a, who, m, &sel, &stage, &nsel);
	if (rc)
		return rc;
	rc = QM_FAIL;
	if (!nsel)
		qm_say_as(a->s, QOPT_LOG_ERROR, who, "%s: error: the pipeline's "
		    "passes ask for no tensor: nothing to calibrate\n",
		    a->input);
	else if (!(amax = calloc(nsel, sizeof(*amax))) ||
		 !(keys = calloc(nsel, sizeof(*keys))) ||
		 qopt_calib_keys(m, sel, nsel, keys))	/* before the probe */
		qm_say_as(a->s, QOPT_LOG_ERROR, who, "error: out of memory\n");
	else if (keys_unique(a, who, keys, nsel))
		;	/* said, before ONNX Runtime runs */
	else if ((got = calib_measure(a, who, a->input, m, sel, stage, nsel,
				      amax, &samples)) == -2)
		rc = QM_USAGE;
	else if (got == 0 &&
		 (*out = ranges(a, who, a->input, hash, sel, keys, nsel, amax,
				samples))) {
		*n = nsel;
		*nsamples = samples;
		rc = QM_OK;
	}
	if (keys)
		qopt_calib_keys_free(keys, nsel);
	free(keys);
	free(amax);
	free(sel);
	free(stage);
	return rc;
}

int calib_pipeline_ranges(struct calib_settings *a, const char *who,
			  qir_model *m, qopt_calib **out)
{
	size_t n = 0;
	long samples = 0;
	int rc = pipeline_ranges(a, who, m, out, &n, &samples);

	if (!rc)
		said_done(a, who, n, samples, "memory");
	return rc;
}

int calib_pipeline_file(struct calib_settings *a, const char *who,
			qir_model *m, const char *path)
{
	qopt_calib *c = NULL;
	qir_error err = { 0 };
	size_t n = 0;
	long samples = 0;
	int rc = pipeline_ranges(a, who, m, &c, &n, &samples);

	if (rc)
		return rc;
	if (strcmp(path, "/dev/null") && qopt_calib_write(c, path, &err)) {
		qm_say_as(a->s, QOPT_LOG_ERROR, who, "%s: error: %s\n", path,
		    err.msg);
		rc = QM_FAIL;
	} else {
		said_done(a, who, n, samples, strcmp(path, "/dev/null") ?
			  path : "discarded");
	}
	qopt_calib_free(c);
	return rc;
}

/* The same file (the sample files exist: their inodes say it). */
static int same_file(const char *x, const char *y)
{
	struct stat sx, sy;

	return stat(x, &sx) == 0 && stat(y, &sy) == 0 &&
	       sx.st_dev == sy.st_dev && sx.st_ino == sy.st_ino;
}

int calib_check_samples(struct calib_settings *a, const char *who,
			const char *out)
{
	struct calib_samples s;
	char why[1024];
	size_t i;
	int rc = 0;

	if (!a->data)
		return 0;
	if (calib_samples_check(a->data, &s, why, sizeof(why)) < 0) {
		char shown[sizeof(why)];

		/* file names as every message shows them: no raw escapes */
		qir_escape_text(shown, sizeof(shown), why);
		qm_say_as(a->s, QOPT_LOG_ERROR, who, "error: %s\n", shown);
		rc = QM_FAIL;
	}
	for (i = 0; !rc && out && i < s.n; i++)
		if (same_file(s.files[i], out)) {
			qm_say_as(a->s, QOPT_LOG_ERROR, who, "error: output '%s' is "
				"the sample file '%s'\n", out, s.files[i]);
			rc = QM_USAGE;
		}
	calib_samples_free(&s);
	return rc;
}

/* ------------------------------------------------------------------ */
/* the one-command form: a range measured before each pass that asks */

/* The graph of c that stands where g stands in m: the same node (by
 * position, op type checked) and attribute of the same parent. */
static qir_graph *same_graph(qir_model *c, qir_graph *g)
{
	qir_graph *pc;
	qir_node *n, *nc;
	size_t a, k;

	if (!g->parent)
		return c->graph;
	pc = same_graph(c, g->parent);
	if (!pc)
		return NULL;
	for (n = g->parent->first, nc = pc->first; n && nc && n != g->parent_node;
	     n = n->next, nc = nc->next)
		;
	if (!n || !nc || strcmp(n->op_type, nc->op_type) ||
	    n->nattrs != nc->nattrs)
		return NULL;
	for (a = 0; a < n->nattrs; a++) {
		if (n->attrs[a].g == g)
			return nc->attrs[a].g;
		for (k = 0; n->attrs[a].graphs && k < n->attrs[a].n; k++)
			if (n->attrs[a].graphs[k] == g)
				return k < nc->attrs[a].n && nc->attrs[a].graphs ?
				       nc->attrs[a].graphs[k] : NULL;
	}
	return NULL;
}

/* Each of vals (values of m) as the copy c holds it: 0, or -1 (said). */
static int map_values(struct calib_settings *a, const char *who, qir_model *c,
		      qir_value *const *vals, size_t n, qir_value **out)
{
	char shown[1024];
	size_t k;

	for (k = 0; k < n; k++) {
		qir_graph *g = same_graph(c, vals[k]->graph);

		out[k] = g ? qir_graph_find_value(g, vals[k]->name) : NULL;
		if (out[k] && out[k]->graph == g)
			continue;
		qir_escape_text(shown, sizeof(shown), vals[k]->name);
		qm_say_as(a->s, QOPT_LOG_ERROR, who, "error: tensor '%s' is not in "
		    "the model's copy as saved and loaded back\n", shown);
		return -1;
	}
	return 0;
}

/* The copy of m in ci's folder, measured at sel (values of m, asked
 * for by stage[]): amax[]. */
static int measure_copy(struct calib_inline *ci, const char *who,
			qir_model *m, qir_value **sel, const size_t *stage,
			size_t n, double *amax, long *samples)
{
	struct calib_settings *a = ci->a;
	qir_value **at = calloc(n ? n : 1, sizeof(*at));
	qir_load_opts lo = QIR_LOAD_OPTS_INIT;
	qir_error err = { 0 };
	qir_model *c = NULL;
	int rc = -1;

	lo.links_ok = 1;	/* save_for_ort's own links, in our folder */
	if (!at)
		qm_say_as(a->s, QOPT_LOG_ERROR, who, "error: out of memory\n");
	else if (save_for_ort(m, ci->model, 0, &err) < 0 ||
		 qir_model_load(ci->model, &lo, &c, &err) < 0)
		qm_say_as(a->s, QOPT_LOG_ERROR, who, "error: cannot copy the model "
		    "as it is before the pass: %s\n", err.msg);
	else if (map_values(a, who, c, sel, n, at) == 0)
		rc = calib_measure(a, who, a->input, c, at, stage, n, amax,
				   samples);
	qir_model_free(c);
	unlink(ci->model);
	unlink(ci->data);
	remove_links(ci->data);
	free(at);
	return rc;
}

/* qm_calibrate_fn: the values pass asks for on m, measured, written
 * for m's hash into a fresh calibration file whose path goes to path. */
static int measure_for_pass(void *arg, qm_session *s, size_t stage,
			    qir_model *m, qir_value *const *values, size_t n,
			    char *path, size_t pathn)
{
	struct calib_inline *ci = arg;
	struct calib_settings *a = ci->a;
	const char *tmp = getenv("TMPDIR");
	uint64_t hash = qir_model_hash(m);
	qir_value **sel = malloc((n ? n : 1) * sizeof(*sel));
	size_t *by = malloc((n ? n : 1) * sizeof(*by)), k;
	double *amax = calloc(n ? n : 1, sizeof(*amax));
	char **keys = calloc(n ? n : 1, sizeof(*keys));
	size_t nkeys = 0;
	struct qm_stage st;
	char who[512];
	long samples = 0;
	int rc = -1;

	qm_stage_at(s, stage, &st);
	snprintf(who, sizeof(who), "qopt: %s: calibration", st.name);
	if (!sel || !by || !amax || !keys) {
		qm_say_as(a->s, QOPT_LOG_ERROR, who, "error: out of memory\n");
		goto out;
	}
	memcpy(sel, values, n * sizeof(*sel));
	if (dedup(sel, NULL, &n) < 0) {
		qm_say_as(a->s, QOPT_LOG_ERROR, who, "error: out of memory\n");
		goto out;
	}
	for (k = 0; k < n; k++)
		by[k] = stage;
	if (!ci->dir[0]) {
		snprintf(ci->dir, sizeof(ci->dir), "%s/qopt-calib-XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(ci->dir)) {
			qm_say_as(a->s, QOPT_LOG_ERROR, who, "error: cannot make a "
			    "temporary folder: %s\n", strerror(errno));
			ci->dir[0] = 0;
			goto out;
		}
		snprintf(ci->model, sizeof(ci->model), "%s/model.onnx", ci->dir);
		snprintf(ci->data, sizeof(ci->data), "%s/model.onnx.data",
			 ci->dir);
	}
	/* The last pass's file is read by then: one at a time. */
	if (ci->calib[0])
		unlink(ci->calib);
	snprintf(ci->calib, sizeof(ci->calib), "%s/calib-%u.json", ci->dir,
		 ++ci->count);
	guard_inline(ci);
	if (qopt_calib_keys(m, sel, n, keys)) {	/* m as the pass gets it */
		qm_say_as(a->s, QOPT_LOG_ERROR, who, "error: out of memory\n");
		goto out;
	}
	nkeys = n;
	if (keys_unique(a, who, keys, n))
		goto out;
	if (measure_copy(ci, who, m, sel, by, n, amax, &samples) == 0 &&
	    calib_write(a, who, ci->calib, a->input, hash, sel, keys, n, amax,
			samples) == 0) {
		said_done(a, who, n, samples, "the pass");
		snprintf(path, pathn, "%s", ci->calib);
		rc = 0;
	}
out:
	if (keys)
		qopt_calib_keys_free(keys, nkeys);
	free(keys);
	free(sel);
	free(by);
	free(amax);
	return rc;
}

int calib_inline_begin(struct calib_settings *a)
{
	struct calib_inline *ci = calloc(1, sizeof(*ci));
	struct qm_settings g;
	const char *pass = NULL, *from = NULL;
	int n;

	if (!ci) {
		qm_say(a->s, QOPT_LOG_ERROR, "qopt: error: out of memory\n");
		return QM_FAIL;
	}
	ci->a = a;
	n = qm_hook_calibrate(a->s, measure_for_pass, ci, &pass, &from);
	if (n == -2) {
		qm_say(a->s, QOPT_LOG_ERROR, "qopt: error: pass '%s'%s%s%s is "
		       "given calibration= and --calibration-data measures "
		       "it too: give one\n", pass, from ? " (a step of '" : "",
		       from ? from : "", from ? "')" : "");
		free(ci);
		return QM_USAGE;
	}
	if (n < 0) {
		qm_say(a->s, QOPT_LOG_ERROR, "qopt: error: out of memory\n");
		free(ci);
		return QM_FAIL;
	}
	a->inline_state = ci;
	if (n)
		return QM_OK;
	qm_settings(a->s, &g);
	qm_msg(a->s, QOPT_LOG_WARN, NULL, "%s given, but no pass of the "
	       "pipeline (%s) reads a calibration file: nothing to calibrate",
	       a->data ? "--calibration-data" : "--calibration-random",
	       qm_pipeline_name(a->s));
	return a->strict || g.strict > 0 ? QM_USAGE : QM_OK;
}

void calib_inline_end(struct calib_settings *a)
{
	struct calib_inline *ci = a->inline_state;

	if (!ci)
		return;
	if (ci->dir[0]) {
		remove_inline_files(ci);
		qm_remove_folder(ci->dir);
		qm_guard_files(NULL, 0, NULL);
	}
	/* no pass runs after this: the hook's pointer is not used again */
	free(ci);
	a->inline_state = NULL;
}
