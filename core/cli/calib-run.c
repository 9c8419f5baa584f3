/*
 * core/cli/calib-run.c - activation ranges measured in ONNX Runtime for
 * the values passes ask for (calib-run.h): `qopt calibrate`, the
 * one-command form (qopt MODEL --calibration-data DIR) and `qopt plan`
 * call it.
 *
 * qopt owns the model side: the values to measure come from the passes
 * (each pass's calibration_targets with its options, through the
 * manager: core/manager/calib-query.c), and qopt writes a copy of the
 * model that exposes them as graph outputs, since ONNX Runtime returns
 * graph outputs only. The runtime side (reading samples, running ORT,
 * reducing to amax) is the node script qopt-calibrate-ort; it hands
 * the amax values back in a result file in the temporary folder, and
 * qopt writes the calibration file (calib-json.c) through the same
 * checks and atomic rename as the main command's -o (qm_outfile).
 * Sample files are checked before node starts (calib-samples.c). The
 * file names the model by qir_model_hash() of the model the pass will
 * see (fp8-mha compares it, so a file made for another model or an
 * edited one is refused).
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <qopt/file.h>
#include "cli/cli.h"
#include "cli/calib-json.h"
#include "cli/calib-hoist.h"
#include "cli/calib-key.h"
#include "cli/calib-run.h"
#include "cli/calib-samples.h"
#include "cli/outpath.h"
#include "cli/ort-child.h"

/* "WHO: " and the message, through the session's sink. */
static void say(qm_session *s, int level, const char *who,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void say(qm_session *s, int level, const char *who,
		const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	qm_say(s, level, "%s: %s", who, n < 0 ? "out of memory\n" : text);
	free(text);
}

/* ------------------------------------------------------------------ */
/* the job file: what the script needs, as JSON */

static void json_value_type(FILE *f, const qir_value *v)
{
	int i;

	fprintf(f, "{\"name\": ");
	qm_json_str(f, v->name);
	fprintf(f, ", \"elem\": %d, \"dtype\": ", v->dtype);
	qm_json_str(f, v->dtype ? qir_dtype_name(v->dtype) : "UNDEFINED");
	fprintf(f, ", \"dims\": ");
	if (v->rank < 0) {
		fprintf(f, "null}");
		return;
	}
	fputc('[', f);
	for (i = 0; i < v->rank; i++) {
		if (i)
			fputs(", ", f);
		if (v->dims[i].value >= 0)
			fprintf(f, "%lld", (long long)v->dims[i].value);
		else if (v->dims[i].param)
			qm_json_str(f, v->dims[i].param);
		else
			fputs("null", f);
	}
	fputs("]}", f);
}

/* A value and a position: sorted by value, then position, so that
 * deduplicating and looking up stay O(n log n) on models with tens of
 * thousands of MatMuls. */
struct val_pos {
	const qir_value *v;
	size_t i;
};

static int by_value(const void *a, const void *b)
{
	const struct val_pos *x = a, *y = b;
	uintptr_t p = (uintptr_t)x->v, q = (uintptr_t)y->v;

	if (p != q)
		return p < q ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

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
		qsort(vp, *n, sizeof(*vp), by_value);
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
static int select_tensors(struct cli_opts *a, const char *who,
			  qir_model *m, qir_value ***sel, size_t **stage,
			  size_t *n)
{
	qir_value *const *asked;
	const size_t *by = NULL;
	size_t nasked = 0, k = 0;
	qk_device dev;
	int rc;

	rc = cli_run_begin(a, &dev);
	if (!rc && qm_hook_calibration(a->s) < 0) {
		say(a->s, QOPT_LOG_ERROR, who, "error: out of memory\n");
		rc = QOPT_EXIT_FAIL;
	}
	if (!rc)
		rc = qm_run_begin(a->s, dev, a->threads, 1);
	if (!rc && qm_run(a->s, m))
		rc = QOPT_EXIT_FAIL;
	asked = qm_calibration_values(a->s, &k, &nasked, &by);
	if (!rc && !nasked) {
		say(a->s, QOPT_LOG_ERROR, who, "error: no pass of the "
			"pipeline (%s) reads a calibration file: nothing "
			"to calibrate\n", qm_pipeline_name(a->s));
		rc = QOPT_EXIT_USAGE;
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
		say(a->s, QOPT_LOG_ERROR, who, "error: out of memory\n");
		free(*sel);
		free(*stage);
		return QOPT_EXIT_FAIL;
	}
	*n = k;
	return 0;
}

/* Where ORT returns each sel's value: its index among the probe's graph
 * outputs (names that are not UTF-8 do not survive into JavaScript, an
 * index does), or -1 for a graph input (the script has it as a feed). */
static int output_indices(const qir_model *m, qir_value **sel, size_t nsel,
			  long *idx)
{
	size_t no = m->graph->noutputs, k;
	struct val_pos *vp = malloc((no ? no : 1) * sizeof(*vp));

	if (!vp)
		return -1;
	for (k = 0; k < no; k++)
		vp[k] = (struct val_pos){ m->graph->outputs[k], k };
	if (no)
		qsort(vp, no, sizeof(*vp), by_value);
	for (k = 0; k < nsel; k++) {
		struct val_pos key = { sel[k], 0 };
		size_t lo = 0, hi = no;

		while (lo < hi) {	/* the value's first listing */
			size_t mid = lo + (hi - lo) / 2;

			if (by_value(&vp[mid], &key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		idx[k] = !sel[k]->is_input && lo < no && vp[lo].v == sel[k] ?
			 (long)vp[lo].i : -1;
	}
	free(vp);
	return 0;
}

static int write_job(const char *path, struct cli_opts *a, const char *who,
		     const char *model_name, qir_model *m, const char *probe,
		     qir_value **sel, qir_value **at, size_t nsel,
		     const char *result)
{
	long *idx = malloc((nsel ? nsel : 1) * sizeof(*idx));
	FILE *f;
	size_t i, k;
	int first = 1;

	if (!idx || output_indices(m, at, nsel, idx) < 0) {
		free(idx);
		errno = ENOMEM;
		return -1;
	}
	f = fopen(path, "w");
	if (!f) {
		free(idx);
		return -1;
	}
	fprintf(f, "{\"who\": ");
	qm_json_str(f, who);
	fprintf(f, ",\n \"model\": ");
	qm_json_str(f, model_name);
	fprintf(f, ",\n \"probe\": ");
	qm_json_str(f, probe);
	fprintf(f, ",\n \"result\": ");
	qm_json_str(f, result);
	fprintf(f, ",\n \"percentile\": %.17g,\n \"verbose\": %d,\n",
		a->percentile, a->verbose > 0);
	fprintf(f, " \"method\": \"%s\", \"bins\": %d,\n",
		a->method ? a->method : "max",
		CALIB_BINS);
	if (a->data) {
		fprintf(f, " \"data\": ");
		qm_json_str(f, a->data);
	} else {
		fprintf(f, " \"random\": %ld, \"seed\": %ld, \"dims\": {",
			a->random, a->seed);
		for (i = 0; i < a->ndims; i++) {
			const char *eq = strchr(a->dims[i], '=');
			char name[512];

			snprintf(name, sizeof(name), "%.*s",
				 (int)(eq - a->dims[i]), a->dims[i]);
			fprintf(f, "%s", i ? ", " : "");
			qm_json_str(f, name);
			fprintf(f, ": %ld", strtol(eq + 1, NULL, 10));
		}
		fputc('}', f);
	}
	fprintf(f, ",\n \"inputs\": [");
	for (i = 0; i < m->graph->ninputs; i++) {
		qir_value *v = m->graph->inputs[i];

		if (v->init)
			continue;
		fputs(first ? "\n  " : ",\n  ", f);
		first = 0;
		json_value_type(f, v);
	}
	fprintf(f, "],\n \"tensors\": [");
	for (k = 0; k < nsel; k++) {
		fputs(k ? ",\n  " : "\n  ", f);
		json_value_type(f, sel[k]);
	}
	fprintf(f, "],\n \"output_index\": [");
	for (k = 0; k < nsel; k++)
		fprintf(f, "%s%ld", k ? ", " : "", idx[k]);
	fprintf(f, "]}\n");
	free(idx);
	if (ferror(f)) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

/* ------------------------------------------------------------------ */
/* the script */

/* The node script (caller frees): $QOPT_CALIBRATE_ORT, beside the
 * qopt binary when installed, else the build tree's copy. */
static char *script_path(void)
{
	const char *env = getenv("QOPT_CALIBRATE_ORT");
	char exe[4096], *slash, *path = NULL;
	ssize_t n;

	if (env && *env)
		return strdup(env);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 32);
	if (n > 0) {
		exe[n] = 0;
		slash = strrchr(exe, '/');
		if (slash) {
			strcpy(slash + 1, "qopt-calibrate-ort");
			if (access(exe, R_OK) == 0)
				return strdup(exe);
		}
	}
	/* an uninstalled qopt: the build tree's copy */
	if (asprintf(&path, "%s/tools/qopt-calibrate-ort",
		     cli_build_tree() ? cli_build_tree() : ".") < 0)
		return NULL;
	return path;
}

/* A stop signal (SIGINT, SIGTERM, SIGHUP) ends the script and removes
 * the temporary folder and its files, and the calibration file's
 * temporary: the manager's guard does it (qm_guard_*). */
#define TMP_FILES 5
/* the one-command form's files besides (guard_inline) */
#define INLINE_FILES 3
/* ONNX Runtime's own files in its TMPDIR (ort_files) */
#define ORT_FILES 2

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

/* The script's exit status after an error it printed itself (one
 * line, names escaped): qopt adds nothing (tools/qopt-calibrate.js,
 * EXIT_SAID); EXIT_USAGE_SAID when the error is the command line's
 * (--dim naming no dimension of the model). */
#define SCRIPT_SAID 3
#define SCRIPT_USAGE_SAID 4

/* How the script ended. */
enum script_end { SCRIPT_OK, SCRIPT_FAILED, SCRIPT_INTERRUPTED, SCRIPT_USAGE };

/* The files ONNX Runtime's node binding leaves in its TMPDIR (telemetry:
 * an empty mat-debug-PID.log named after the script's process, and
 * .ses): the script's TMPDIR is qopt's temporary folder, so they are
 * ours to remove, on a stop too (the guard is given their names). */
static void ort_files(const char *dir, pid_t pid,
		      char out[ORT_FILES][4200])
{
	snprintf(out[0], 4200, "%s/mat-debug-%ld.log", dir, (long)pid);
	snprintf(out[1], 4200, "%s/.ses", dir);
}

/* What the script needs besides its arguments: its TMPDIR (qopt's
 * temporary folder), the bound on its run, and the files a stop
 * removes (the guard's list, ORT's files added once its pid is
 * known). */
struct script_run {
	const char *tmpdir;
	long timeout;		/* seconds, 0: none */
	const char *guard[TMP_FILES + INLINE_FILES + ORT_FILES];
	size_t nguard;
};

/* The child's side: its own process group (a bound that is reached
 * ends whatever node started), TMPDIR, node. */
static void exec_script(qm_session *s, const char *who, const char *node,
			const char *script, const char *job,
			const struct script_run *r)
{
	setpgid(0, 0);
	signal(SIGINT, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (setenv("TMPDIR", r->tmpdir, 1) < 0)
		_exit(127);
	execlp(node, node, script, job, (char *)NULL);
	say(s, QOPT_LOG_ERROR, who, "error: cannot run %s (%s): %s; "
		"install node with ./tools/install-deps.sh from qopt's "
		"source tree (Debian: apt-get install nodejs), or set "
		"QOPT_NODE to node's path\n", node, script, strerror(errno));
	_exit(127);
}

/* How a script that ran to its end ended, said unless it said it. */
static enum script_end script_status(qm_session *s, const char *who,
				     const char *node, const char *script,
				     int st)
{
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return SCRIPT_OK;
	if (WIFEXITED(st) && WEXITSTATUS(st) == SCRIPT_USAGE_SAID)
		return SCRIPT_USAGE;
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGINT)
		return SCRIPT_INTERRUPTED;
	if (WIFSIGNALED(st))
		say(s, QOPT_LOG_ERROR, who, "error: %s %s ended by signal "
			"%d; no calibration file written\n", node, script,
			WTERMSIG(st));
	else if (WEXITSTATUS(st) != 127 && WEXITSTATUS(st) != SCRIPT_SAID)
		say(s, QOPT_LOG_ERROR, who, "error: %s %s failed (exit "
			"status %d); no calibration file written\n", node,
			script, WEXITSTATUS(st));
	return SCRIPT_FAILED;
}

/* Runs the script and waits, at most r->timeout seconds: past it the
 * script's group is ended (SIGTERM, then SIGKILL) and reaped, and the
 * run fails saying so. qopt ignores SIGQUIT meanwhile (like system());
 * a SIGINT, SIGTERM or SIGHUP to qopt ends the script, removes the
 * folder and ends qopt by that signal (130 for SIGINT). A script
 * ended by SIGINT alone is an interruption too. Any other failure is
 * said here, exit status and all: a script that fails silently
 * (QOPT_NODE=/bin/false) still gets a message. */
static enum script_end run_script(qm_session *s, const char *who,
				   const char *script, const char *job,
				   struct script_run *r)
{
	const char *node = getenv("QOPT_NODE");
	struct sigaction ign, old_quit;
	enum script_end end = SCRIPT_FAILED;
	char ort[ORT_FILES][4200];
	pid_t pid;
	int st = 0, k;

	/* QOPT_NODE overrides the node configure found */
	if (!node || !*node)
		node = strcmp(QOPT_CONFIGURED_NODE, "no") ? QOPT_CONFIGURED_NODE :
			"node";
	fflush(NULL);
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGQUIT, &ign, &old_quit);
	pid = fork();
	if (pid < 0) {
		say(s, QOPT_LOG_ERROR, who, "error: fork: %s\n",
			strerror(errno));
		goto out;
	}
	if (!pid)
		exec_script(s, who, node, script, job, r);
	setpgid(pid, pid);
	ort_files(r->tmpdir, pid, ort);
	for (k = 0; k < ORT_FILES; k++)
		r->guard[r->nguard + k] = ort[k];
	qm_guard_files(r->guard, r->nguard + ORT_FILES, r->tmpdir);
	qm_guard_child(pid, 1);
	k = cli_child_wait(pid, 1, r->timeout, &st);
	qm_guard_child(0, 1);
	qm_guard_files(r->guard, r->nguard, r->tmpdir);
	unlink(ort[0]);
	unlink(ort[1]);
	if (k < 0)
		say(s, QOPT_LOG_ERROR, who, "error: waiting for %s: %s\n",
			script, strerror(errno));
	else if (k > 0)
		say(s, QOPT_LOG_ERROR, who, "error: ONNX Runtime did not "
			"finish within %ld s (--ort-timeout, QOPT_ORT_TIMEOUT): "
			"%s %s ended (SIGTERM, then SIGKILL); no calibration "
			"file written\n", r->timeout, node, script);
	else
		end = script_status(s, who, node, script, st);
out:
	sigaction(SIGQUIT, &old_quit, NULL);
	return end;
}

/* ------------------------------------------------------------------ */
/* the result: what the script measured, written by qopt */

#define RESULT_MAX_BYTES (64u << 20)

/* The script's result file: "qopt-calibrate-result 1", "samples N",
 * then one line per selected tensor, in job order: the amax as
 * JavaScript prints a number, or "none" when the tensor held no element
 * in any sample. Returned NUL-terminated (caller frees), or NULL with
 * the reason printed. */
static char *read_result(qm_session *s, const char *who, const char *path,
			 const char *script)
{
	qir_error err = { 0 };
	char *buf = qir_read_file(path, O_NOFOLLOW, RESULT_MAX_BYTES, NULL,
				  &err);
	const char *node = getenv("QOPT_NODE");

	if (!buf)
		say(s, QOPT_LOG_ERROR, who, "error: %s %s exited 0 but left "
			"no result that can be read (%s); no calibration file "
			"written\n", node && *node ? node : "node", script,
			err.msg);
	return buf;
}

/* The next line of *p (cut at '\n'), or NULL at the end. */
static char *next_line(char **p)
{
	char *s = *p, *nl;

	if (!s || !*s)
		return NULL;
	nl = strchr(s, '\n');
	if (nl) {
		*nl = 0;
		*p = nl + 1;
	} else {
		*p = NULL;
	}
	return s;
}

/* Fills amax[] from the result text, NAN for a tensor that held no
 * element (calib_measure says so); -1 with the reason printed. A value
 * that is not a finite number >= 0 is refused here whatever the script
 * did: the file never holds what JSON cannot. */
static int parse_result(qm_session *s, const char *who, char *text,
			qir_value **sel,
			size_t nsel,
			double *amax, long *samples)
{
	char *p = text, *line, *end, shown[1024];
	size_t k;

	line = next_line(&p);
	if (!line || strcmp(line, "qopt-calibrate-result 1"))
		goto bad;
	line = next_line(&p);
	if (!line || strncmp(line, "samples ", 8) ||
	    cli_parse_uint(line + 8, 0, 1000000000, samples))
		goto bad;
	for (k = 0; k < nsel; k++) {
		line = next_line(&p);
		if (!line)
			goto bad;
		qir_escape_text(shown, sizeof(shown), sel[k]->name);
		if (!strcmp(line, "none")) {
			amax[k] = NAN;
			continue;
		}
		errno = 0;
		amax[k] = strtod(line, &end);
		if (end == line || *end || !isfinite(amax[k]) || amax[k] < 0) {
			say(s, QOPT_LOG_ERROR, who, "error: tensor '%s': "
				"amax '%s' is not a finite number >= 0; a "
				"calibration file cannot hold it\n",
				shown, line);
			return -1;
		}
	}
	if (next_line(&p))
		goto bad;
	return 0;
bad:
	say(s, QOPT_LOG_ERROR, who, "error: the script's result is "
		"malformed (a script of another version?)\n");
	return -1;
}

/* The pass's model as it is is measured through a copy (saved and
 * loaded back: the probe adds outputs and hoists values, which the
 * pipeline's model must not see); its files and the calibration file
 * live in one temporary folder until the run ends. */
struct calib_inline {
	struct cli_opts *a;
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
static void stop_by_sigint(struct cli_opts *a)
{
	struct calib_inline *ci = a->calib_inline;

	remove_inline_files(ci);
	if (ci && ci->dir[0])
		rmdir(ci->dir);
	qm_guard_files(NULL, 0, NULL);
	signal(SIGINT, SIG_DFL);
	raise(SIGINT);
}

/* The script's result into amax[]; 0 or -1 (said). */
static int finish(struct cli_opts *a, const char *who, const char *script,
		  qir_value **sel, size_t nsel, const char *result,
		  double *amax, long *samples)
{
	char *text = read_result(a->s, who, result, script);
	int rc = -1;

	if (text && !parse_result(a->s, who, text, sel, nsel, amax, samples))
		rc = 0;
	free(text);
	return rc;
}

/* The bound on the script's run (cli_ort_timeout): 0, or -1 after
 * saying why (a usage error). */
static int script_bound(struct cli_opts *a, const char *who,
			const char *probe, long *timeout)
{
	char why[256];

	*timeout = cli_ort_timeout(a->ort_timeout, cli_model_bytes(probe),
				   cli_count_samples(a->data, a->random), why, sizeof(why));
	if (*timeout >= 0)
		return 0;
	say(a->s, QOPT_LOG_ERROR, who, "error: %s\n", why);
	return -1;
}

/* Writes the probe model and the job into a fresh temporary folder (in
 * the one-command form, its folder), runs the script, reads its result,
 * and removes what it wrote on every way out: 0 when amax[] is filled,
 * -2 when the script was stopped by ^C. */
static int run_probe(struct cli_opts *a, const char *who,
		     const char *model_name, qir_model *m, qir_value **sel,
		     qir_value **at, size_t nsel, double *amax, long *samples)
{
	const char *tmp = getenv("TMPDIR");
	char dir[4096], probe[4200], job[4200], data[4200], result[4200];
	char link[4300];
	char *script = script_path();
	struct calib_inline *ci = a->calib_inline;
	/* the one-command form: its folder, whose files a stop removes too */
	int own_dir = !ci || !ci->dir[0];
	qir_error err = { 0 };
	enum script_end end = SCRIPT_FAILED;
	struct script_run run = { 0 };
	int rc = -1;

	snprintf(dir, sizeof(dir), "%s", own_dir ? "" : ci->dir);
	if (own_dir)
		snprintf(dir, sizeof(dir), "%s/qopt-calib-XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
	if (own_dir && !mkdtemp(dir)) {
		say(a->s, QOPT_LOG_ERROR, who, "error: cannot make a "
			"temporary folder: %s\n", strerror(errno));
		free(script);
		return -1;
	}
	snprintf(probe, sizeof(probe), "%s/probe.onnx", dir);
	snprintf(data, sizeof(data), "%s/probe.onnx.data", dir);
	snprintf(job, sizeof(job), "%s/job.json", dir);
	snprintf(result, sizeof(result), "%s/result.txt", dir);
	snprintf(link, sizeof(link), "%s.in", data);
	{
		const char *const files[TMP_FILES + INLINE_FILES] = {
			probe, data, job, result, link, ci ? ci->model : "",
			ci ? ci->data : "", ci ? ci->calib : "" };

		run.tmpdir = dir;
		run.nguard = own_dir ? TMP_FILES : TMP_FILES + INLINE_FILES;
		memcpy(run.guard, files, sizeof(files));
		qm_guard_install(0);
		qm_guard_files(files, run.nguard, dir);
	}
	if (!script)
		say(a->s, QOPT_LOG_ERROR, who, "error: out of memory\n");
	else if (save_for_ort(m, probe, 1, &err) < 0)
		say(a->s, QOPT_LOG_ERROR, who, "error: cannot write the probe "
			"model: %s\n", err.msg);
	else if (write_job(job, a, who, model_name, m, probe, sel, at, nsel,
			   result) < 0)
		say(a->s, QOPT_LOG_ERROR, who, "error: cannot write %s: %s\n",
			job, strerror(errno));
	else if (script_bound(a, who, probe, &run.timeout) < 0)
		end = SCRIPT_USAGE;
	else if ((end = run_script(a->s, who, script, job, &run)) == SCRIPT_OK)
		rc = finish(a, who, script, sel, nsel, result, amax, samples);
	unlink(job);
	unlink(probe);
	unlink(data);
	remove_links(data);
	unlink(result);
	if (own_dir) {
		rmdir(dir);
		qm_guard_files(NULL, 0, NULL);
	} else {
		guard_inline(ci);
	}
	free(script);
	return end == SCRIPT_INTERRUPTED ? -2 : end == SCRIPT_USAGE ? -3 : rc;
}

/* Each selected value as the main graph shows it (calib-hoist.c: a
 * tensor of an If branch or a Loop body through new outputs), listed
 * as a graph output: 0, or -1 after saying why. */
static int expose(struct cli_opts *a, const char *who, qir_model *m,
		  qir_value **sel, qir_value **at, size_t nsel)
{
	qir_error err = { 0 };
	char shown[1024];
	size_t i;

	for (i = 0; i < nsel; i++) {
		at[i] = calib_hoist(m, sel[i], &err);
		if (!at[i]) {
			qir_escape_text(shown, sizeof(shown), err.msg);
			say(a->s, QOPT_LOG_ERROR, who, "error: %s\n", shown);
			return -1;
		}
		if (!at[i]->is_input && !at[i]->is_output &&
		    qir_graph_add_output(m->graph, at[i]) < 0) {
			qir_escape_text(shown, sizeof(shown), sel[i]->name);
			say(a->s, QOPT_LOG_ERROR, who, "error: cannot expose "
				"'%s' as an output\n", shown);
			return -1;
		}
	}
	return 0;
}

/* Each amax[k] that held no element (NAN) becomes 0, said naming the
 * pass that asked for sel[k] as the user wrote it. */
static void said_empty(struct cli_opts *a, const char *who,
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
		say(a->s, QOPT_LOG_WARN, who, "warning: tensor '%s' held no "
		    "element in any sample: amax 0 written (%s leaves it "
		    "unquantized)\n", shown, pass);
	}
}

int calib_measure(struct cli_opts *a, const char *who,
		  const char *model_name, qir_model *m, qir_value **sel,
		  const size_t *stage, size_t n, double *amax, long *samples)
{
	qir_value **at = calloc(n ? n : 1, sizeof(*at));
	int rc = -1;

	if (!at)
		say(a->s, QOPT_LOG_ERROR, who, "error: out of memory\n");
	else if (cli_ort_refuse(a->s, who, m) == 0 &&
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
static int keys_unique(struct cli_opts *a, const char *who,
		       char *const *keys, size_t n)
{
	const char **sorted = malloc((n ? n : 1) * sizeof(*sorted));
	char shown[1024];
	size_t k;
	int rc = 0;

	if (!sorted) {
		say(a->s, QOPT_LOG_ERROR, who, "error: out of memory\n");
		return -1;
	}
	if (n)
		memcpy(sorted, keys, n * sizeof(*sorted));
	if (n)
		qsort(sorted, n, sizeof(*sorted), by_str);
	for (k = 1; k < n && !rc; k++)
		if (!strcmp(sorted[k], sorted[k - 1])) {
			qir_escape_text(shown, sizeof(shown), sorted[k]);
			say(a->s, QOPT_LOG_ERROR, who, "error: two tensors have "
			    "the key '%s' (their enclosing nodes share a name: "
			    "name them apart)\n", shown);
			rc = -1;
		}
	free(sorted);
	return rc;
}

int calib_write(struct cli_opts *a, const char *who, const char *path,
		const char *model_name, uint64_t hash, qir_value **sel,
		char *const *keys, size_t n, const double *amax,
		long samples)
{
	const char **names = calloc(n ? n : 1, sizeof(*names));
	const char **dtypes = calloc(n ? n : 1, sizeof(*dtypes));
	char source[128], *mcopy = strdup(model_name);
	struct calib_doc d = { 0 };
	qir_error err = { 0 };
	qm_outfile *o = NULL;
	FILE *f = NULL;
	size_t k, bad;
	int rc = -1;

	if (!names || !dtypes || !mcopy) {
		say(a->s, QOPT_LOG_ERROR, who, "error: out of memory\n");
		goto out;
	}
	for (k = 0; k < n; k++) {
		names[k] = keys[k];
		dtypes[k] = sel[k]->dtype ? qir_dtype_name(sel[k]->dtype) :
			    "UNDEFINED";
	}
	snprintf(source, sizeof(source), "random (seed %ld): smoke test "
		 "only, not a calibration", a->seed);
	d.model = basename(mcopy);
	d.hash = hash;
	d.percentile = a->percentile;
	d.method = a->method;
	d.samples = samples;
	d.source = a->data ? a->data : source;
	d.n = n;
	d.names = names;
	d.dtypes = dtypes;
	d.amax = amax;
	if (!strcmp(path, "/dev/null")) {
		rc = 0;
		goto out;
	}
	o = qm_outfile_open(path, &f, &err);
	if (!o) {
		say(a->s, QOPT_LOG_ERROR, who, "%s: error: %s\n", path,
			err.msg);
		goto out;
	}
	if (calib_json_write(f, &d, &bad) < 0) {
		if (bad == (size_t)-1) {
			say(a->s, QOPT_LOG_ERROR, who, "%s: error: cannot "
				"write it\n", path);
		} else {
			char shown[1024];

			qir_escape_text(shown, sizeof(shown), names[bad]);
			say(a->s, QOPT_LOG_ERROR, who, "error: tensor '%s': "
				"amax %g cannot be written\n", shown,
				amax[bad]);
		}
		qm_outfile_abort(o);
		goto out;
	}
	if (qm_outfile_commit(o, &err) < 0) {
		say(a->s, QOPT_LOG_ERROR, who, "%s: error: %s\n", path,
			err.msg);
		goto out;
	}
	rc = 0;
out:
	free(mcopy);
	free(names);
	free(dtypes);
	return rc;
}

/* "N tensors over M samples (max)" and where they went. */
static void said_done(struct cli_opts *a, const char *who, size_t n,
		      long samples, const char *where)
{
	if (qm_verbosity(a->s) < QOPT_LOG_INFO)
		return;	/* -q */
	say(a->s, QOPT_LOG_INFO, who, "%zu tensors over %ld sample%s (%s) -> "
	    "%s\n", n, samples, samples == 1 ? "" : "s",
	    a->method ? a->method : "max", where);
}

int calib_pipeline_file(struct cli_opts *a, const char *who, qir_model *m,
			const char *path)
{
	qir_value **sel = NULL;
	size_t *stage = NULL, nsel = 0;
	uint64_t hash = qir_model_hash(m);	/* before the outputs change */
	double *amax = NULL;
	char **keys = NULL;
	long samples = 0;
	int rc, got;

	rc = select_tensors(a, who, m, &sel, &stage, &nsel);
	if (rc)
		return rc;
	rc = QOPT_EXIT_FAIL;
	if (!nsel)
		say(a->s, QOPT_LOG_ERROR, who, "%s: error: the pipeline's "
		    "passes ask for no tensor: nothing to calibrate\n",
		    a->input);
	else if (!(amax = calloc(nsel, sizeof(*amax))) ||
		 !(keys = calloc(nsel, sizeof(*keys))) ||
		 calib_keys(m, sel, nsel, keys) < 0)	/* before the probe */
		say(a->s, QOPT_LOG_ERROR, who, "error: out of memory\n");
	else if (keys_unique(a, who, keys, nsel))
		;	/* said, before ONNX Runtime runs */
	else if ((got = calib_measure(a, who, a->input, m, sel, stage, nsel,
				      amax, &samples)) == -2)
		rc = QOPT_EXIT_USAGE;
	else if (got == 0 &&
		 calib_write(a, who, path, a->input, hash, sel, keys, nsel,
			     amax, samples) == 0) {
		said_done(a, who, nsel, samples, strcmp(path, "/dev/null") ?
			  path : "discarded");
		rc = QOPT_EXIT_OK;
	}
	if (keys)
		calib_keys_free(keys, nsel);
	free(keys);
	free(amax);
	free(sel);
	free(stage);
	return rc;
}

int calib_check_samples(struct cli_opts *a, const char *who,
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
		say(a->s, QOPT_LOG_ERROR, who, "error: %s\n", shown);
		rc = QOPT_EXIT_FAIL;
	}
	for (i = 0; !rc && out && i < s.n; i++)
		if (cli_same_path(s.files[i], out)) {
			say(a->s, QOPT_LOG_ERROR, who, "error: output '%s' is "
				"the sample file '%s'\n", out, s.files[i]);
			rc = QOPT_EXIT_USAGE;
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
static int map_values(struct cli_opts *a, const char *who, qir_model *c,
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
		say(a->s, QOPT_LOG_ERROR, who, "error: tensor '%s' is not in "
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
	struct cli_opts *a = ci->a;
	qir_value **at = calloc(n ? n : 1, sizeof(*at));
	qir_load_opts lo = QIR_LOAD_OPTS_INIT;
	qir_error err = { 0 };
	qir_model *c = NULL;
	int rc = -1;

	lo.links_ok = 1;	/* save_for_ort's own links, in our folder */
	if (!at)
		say(a->s, QOPT_LOG_ERROR, who, "error: out of memory\n");
	else if (save_for_ort(m, ci->model, 0, &err) < 0 ||
		 qir_model_load(ci->model, &lo, &c, &err) < 0)
		say(a->s, QOPT_LOG_ERROR, who, "error: cannot copy the model "
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
	struct cli_opts *a = ci->a;
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
		say(a->s, QOPT_LOG_ERROR, who, "error: out of memory\n");
		goto out;
	}
	memcpy(sel, values, n * sizeof(*sel));
	if (dedup(sel, NULL, &n) < 0) {
		say(a->s, QOPT_LOG_ERROR, who, "error: out of memory\n");
		goto out;
	}
	for (k = 0; k < n; k++)
		by[k] = stage;
	if (!ci->dir[0]) {
		snprintf(ci->dir, sizeof(ci->dir), "%s/qopt-calib-XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(ci->dir)) {
			say(a->s, QOPT_LOG_ERROR, who, "error: cannot make a "
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
	if (calib_keys(m, sel, n, keys) < 0) {	/* m as the pass gets it */
		say(a->s, QOPT_LOG_ERROR, who, "error: out of memory\n");
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
		calib_keys_free(keys, nkeys);
	free(keys);
	free(sel);
	free(by);
	free(amax);
	return rc;
}

int calib_inline_begin(struct cli_opts *a)
{
	struct calib_inline *ci = calloc(1, sizeof(*ci));
	struct qm_settings g;
	const char *pass = NULL, *from = NULL;
	int n;

	if (!ci) {
		qm_say(a->s, QOPT_LOG_ERROR, "qopt: error: out of memory\n");
		return QOPT_EXIT_FAIL;
	}
	ci->a = a;
	n = qm_hook_calibrate(a->s, measure_for_pass, ci, &pass, &from);
	if (n == -2) {
		qm_say(a->s, QOPT_LOG_ERROR, "qopt: error: pass '%s'%s%s%s is "
		       "given calibration= and --calibration-data measures "
		       "it too: give one\n", pass, from ? " (a step of '" : "",
		       from ? from : "", from ? "')" : "");
		free(ci);
		return QOPT_EXIT_USAGE;
	}
	if (n < 0) {
		qm_say(a->s, QOPT_LOG_ERROR, "qopt: error: out of memory\n");
		free(ci);
		return QOPT_EXIT_FAIL;
	}
	a->calib_inline = ci;
	if (n)
		return QOPT_EXIT_OK;
	qm_settings(a->s, &g);
	qm_msg(a->s, QOPT_LOG_WARN, NULL, "%s given, but no pass of the "
	       "pipeline (%s) reads a calibration file: nothing to calibrate",
	       a->data ? "--calibration-data" : "--calibration-random",
	       qm_pipeline_name(a->s));
	return a->strict || g.strict > 0 ? QOPT_EXIT_USAGE : QOPT_EXIT_OK;
}

void calib_inline_end(struct cli_opts *a)
{
	struct calib_inline *ci = a->calib_inline;

	if (!ci)
		return;
	if (ci->dir[0]) {
		remove_inline_files(ci);
		rmdir(ci->dir);
		qm_guard_files(NULL, 0, NULL);
	}
	/* no pass runs after this: the hook's pointer is not used again */
	free(ci);
	a->calib_inline = NULL;
}
