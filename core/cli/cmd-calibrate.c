/*
 * core/cli/cmd-calibrate.c - `qopt calibrate`: activation ranges for the
 * passes of a pipeline that read a calibration file (fp8-mha's
 * calibrated Q/DQ placement by default).
 *
 * qopt owns the model side: it loads the model exactly as a pipeline
 * does (nodes sorted), takes qir_model_hash() of it (fp8-mha compares
 * the same hash, so a file made for another model or an edited one is
 * refused), asks the pipeline's passes which tensors to measure (each
 * pass's calibration_targets with its options, through the manager:
 * core/manager/calib-query.c), and writes a copy of the model that
 * exposes them as graph outputs, since ONNX Runtime returns graph
 * outputs only. The
 * runtime side (reading samples, running ORT, reducing to amax) is the
 * node script qopt-calibrate-ort; it hands the amax values back in a
 * result file in the temporary folder, and qopt writes the calibration
 * file (calib-json.c) through the same checks and atomic rename as the
 * main command's -o (outpath.c, qm_outfile): never the input model or
 * its data, never a device, FIFO, socket or folder, checked before any
 * work. Sample files are checked before node starts (calib-samples.c).
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <signal.h>
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
#include "cli/calib-samples.h"
#include "cli/outpath.h"

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

/* Keeps the first occurrence of each value in v[0..*n), in order. */
static int dedup(qir_value **v, size_t *n)
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
		if (keep[i])
			v[k++] = v[i];
	*n = k;
	free(vp);
	free(keep);
	return 0;
}

/* The pipeline as -p/--passes say (fp8-mha by default), its plugins
 * loaded and its passes resolved, as the main command does; then a
 * query run with the calibration hook: the values its passes ask for,
 * deduplicated, in the order asked (*sel malloc'd). */
static int select_tensors(struct cli_opts *a, qir_model *m,
			  qir_value ***sel, size_t *n)
{
	qir_value *const *asked;
	size_t nasked = 0, k = 0;
	qk_device dev;
	int rc;

	rc = cli_setup(a, "fp8-mha");
	if (!rc)
		rc = cli_run_begin(a, &dev);
	if (!rc)
		rc = qm_run_begin(a->s, dev, a->threads, 1);
	if (!rc && qm_run(a->s, m))
		rc = QOPT_EXIT_FAIL;
	asked = qm_calibration_values(a->s, &k, &nasked);
	if (!rc && !nasked) {
		qm_say(a->s, QOPT_LOG_ERROR, "qopt calibrate: error: no pass of the "
			"pipeline (%s) reads a calibration file: nothing "
			"to calibrate\n", qm_pipeline_name(a->s));
		rc = QOPT_EXIT_USAGE;
	}
	qm_run_end(a->s);
	if (rc)
		return rc;
	*sel = malloc((k ? k : 1) * sizeof(**sel));
	/* asked is NULL when nothing was asked: memcpy may not see it. */
	if (*sel && k)
		memcpy(*sel, asked, k * sizeof(**sel));
	if (!*sel || dedup(*sel, &k) < 0) {
		qm_say(a->s, QOPT_LOG_ERROR, "qopt calibrate: error: out of memory\n");
		free(*sel);
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

static int write_job(const char *path, struct cli_opts *a,
		     qir_model *m, uint64_t hash, const char *probe,
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
	fprintf(f, "{\"model\": ");
	qm_json_str(f, a->input);
	fprintf(f, ",\n \"probe\": ");
	qm_json_str(f, probe);
	fprintf(f, ",\n \"result\": ");
	qm_json_str(f, result);
	fprintf(f, ",\n \"model_hash\": \"%016llx\",\n \"percentile\": %.17g,\n"
		" \"verbose\": %d,\n", (unsigned long long)hash, a->percentile,
		a->verbose > 0);
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
		     qm_build_tree() ? qm_build_tree() : ".") < 0)
		return NULL;
	return path;
}

/* A stop signal (SIGINT, SIGTERM, SIGHUP) ends the script and removes
 * the temporary folder and its files, and the calibration file's
 * temporary: the manager's guard does it (qm_guard_*). */
#define TMP_FILES 4

/* The script's exit status after an error it printed itself (one
 * line, names escaped): qopt adds nothing (tools/qopt-calibrate.js,
 * EXIT_SAID). */
#define SCRIPT_SAID 3

/* How the script ended. */
enum script_end { SCRIPT_OK, SCRIPT_FAILED, SCRIPT_INTERRUPTED };

/* Runs the script and waits. qopt ignores SIGQUIT meanwhile (like
 * system()); a SIGINT, SIGTERM or SIGHUP to qopt ends the script, removes
 * the folder and ends qopt by that signal (130 for SIGINT). A script
 * ended by SIGINT alone (the terminal's ^C reached it first) is an
 * interruption too. Any other failure is said here, exit status and
 * all: a script that fails silently (QOPT_NODE=/bin/false) still gets
 * a message. */
static enum script_end run_script(qm_session *s, const char *script,
				   const char *job)
{
	const char *node = getenv("QOPT_NODE");
	struct sigaction ign, old_quit;
	enum script_end end = SCRIPT_FAILED;
	pid_t pid;
	int st;

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
		qm_say(s, QOPT_LOG_ERROR, "qopt calibrate: error: fork: %s\n",
			strerror(errno));
		goto out;
	}
	if (!pid) {
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		execlp(node, node, script, job, (char *)NULL);
		qm_say(s, QOPT_LOG_ERROR, "qopt calibrate: error: cannot run %s (%s): %s; "
			"install node with ./tools/install-deps.sh from qopt's "
			"source tree (Debian: apt-get install nodejs), or set "
			"QOPT_NODE to node's path\n", node, script,
			strerror(errno));
		_exit(127);
	}
	qm_guard_child(pid, 0);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			qm_say(s, QOPT_LOG_ERROR, "qopt calibrate: error: waiting for %s: "
				"%s\n", script, strerror(errno));
			qm_guard_child(0, 0);
			goto out;
		}
	qm_guard_child(0, 0);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		end = SCRIPT_OK;
	else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGINT)
		end = SCRIPT_INTERRUPTED;
	else if (WIFSIGNALED(st))
		qm_say(s, QOPT_LOG_ERROR, "qopt calibrate: error: %s %s ended by signal "
			"%d; no calibration file written\n", node, script,
			WTERMSIG(st));
	else if (WEXITSTATUS(st) != 127 && WEXITSTATUS(st) != SCRIPT_SAID)
		qm_say(s, QOPT_LOG_ERROR, "qopt calibrate: error: %s %s failed (exit "
			"status %d); no calibration file written\n", node,
			script, WEXITSTATUS(st));
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
static char *read_result(qm_session *s, const char *path,
			 const char *script)
{
	qir_error err = { 0 };
	char *buf = qir_read_file(path, O_NOFOLLOW, RESULT_MAX_BYTES, NULL,
				  &err);
	const char *node = getenv("QOPT_NODE");

	if (!buf)
		qm_say(s, QOPT_LOG_ERROR, "qopt calibrate: error: %s %s exited 0 but left "
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

/* Fills amax[] from the result text; -1 with the reason printed. A
 * value that is not a finite number >= 0 is refused here whatever the
 * script did: the file never holds what JSON cannot. */
static int parse_result(qm_session *s, char *text, qir_value **sel,
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
			qm_say(s, QOPT_LOG_WARN, "qopt calibrate: warning: tensor '%s' "
				"held no element in any sample: amax 0 written "
				"(fp8-mha leaves it unquantized)\n", shown);
			amax[k] = 0;
			continue;
		}
		errno = 0;
		amax[k] = strtod(line, &end);
		if (end == line || *end || !isfinite(amax[k]) || amax[k] < 0) {
			qm_say(s, QOPT_LOG_ERROR, "qopt calibrate: error: tensor '%s': "
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
	qm_say(s, QOPT_LOG_ERROR, "qopt calibrate: error: the script's result is "
		"malformed (a script of another version?)\n");
	return -1;
}

/* Writes the calibration file at a->output, atomically; 0 or -1 (said). */
static int write_output(struct cli_opts *a, uint64_t hash,
			qir_value **sel, size_t nsel, const double *amax,
			long samples)
{
	const char **names = calloc(nsel, sizeof(*names));
	const char **dtypes = calloc(nsel, sizeof(*dtypes));
	char source[128], *mcopy = strdup(a->input);
	struct calib_doc d = { 0 };
	qir_error err = { 0 };
	qm_outfile *o = NULL;
	FILE *f = NULL;
	size_t k, bad;
	int rc = -1;

	if (!names || !dtypes || !mcopy) {
		qm_say(a->s, QOPT_LOG_ERROR, "qopt calibrate: error: out of memory\n");
		goto out;
	}
	for (k = 0; k < nsel; k++) {
		names[k] = sel[k]->name;
		dtypes[k] = sel[k]->dtype ? qir_dtype_name(sel[k]->dtype) :
			    "UNDEFINED";
	}
	snprintf(source, sizeof(source), "random (seed %ld): smoke test "
		 "only, not a calibration", a->seed);
	d.model = basename(mcopy);
	d.hash = hash;
	d.percentile = a->percentile;
	d.samples = samples;
	d.source = a->data ? a->data : source;
	d.n = nsel;
	d.names = names;
	d.dtypes = dtypes;
	d.amax = amax;
	if (a->out_discard) {
		rc = 0;
		goto out;
	}
	o = qm_outfile_open(a->output, &f, &err);
	if (!o) {
		qm_say(a->s, QOPT_LOG_ERROR, "qopt calibrate: %s: error: %s\n", a->output,
			err.msg);
		goto out;
	}
	if (calib_json_write(f, &d, &bad) < 0) {
		if (bad == (size_t)-1)
			qm_say(a->s, QOPT_LOG_ERROR, "qopt calibrate: %s: error: cannot "
				"write it\n", a->output);
		else
		{
			char shown[1024];

			qir_escape_text(shown, sizeof(shown), names[bad]);
			qm_say(a->s, QOPT_LOG_ERROR, "qopt calibrate: error: tensor '%s': "
				"amax %g cannot be written\n", shown,
				amax[bad]);
		}
		qm_outfile_abort(o);
		goto out;
	}
	if (qm_outfile_commit(o, &err) < 0) {
		qm_say(a->s, QOPT_LOG_ERROR, "qopt calibrate: %s: error: %s\n", a->output,
			err.msg);
		goto out;
	}
	rc = 0;
out:
	if (!rc)
		qm_say(a->s, QOPT_LOG_INFO, "qopt calibrate: %zu tensors over %ld sample%s "
			"(%s) -> %s\n", nsel, samples, samples == 1 ? "" : "s",
			a->percentile < 100 ? "percentile" : "max",
			a->out_discard ? "discarded" : a->output);
	free(mcopy);
	free(names);
	free(dtypes);
	return rc;
}

/* The script's result into the calibration file; 0 or -1 (said). */
static int finish(struct cli_opts *a, const char *script, uint64_t hash,
		  qir_value **sel, size_t nsel, const char *result)
{
	double *amax = calloc(nsel, sizeof(*amax));
	char *text = read_result(a->s, result, script);
	long samples = 0;
	int rc = -1;

	if (!amax)
		qm_say(a->s, QOPT_LOG_ERROR, "qopt calibrate: error: out of memory\n");
	else if (text && !parse_result(a->s, text, sel, nsel, amax, &samples))
		rc = write_output(a, hash, sel, nsel, amax, samples);
	free(text);
	free(amax);
	return rc;
}

/* Writes the probe model and the job into a fresh temporary folder,
 * runs the script, writes the calibration file from its result, and
 * removes the folder on every way out: 0 when the file was written. */
static int run_probe(struct cli_opts *a, qir_model *m, uint64_t hash,
		     qir_value **sel, qir_value **at, size_t nsel)
{
	const char *tmp = getenv("TMPDIR");
	char dir[4096], probe[4200], job[4200], data[4200], result[4200];
	char *script = script_path();
	qir_error err = { 0 };
	enum script_end end = SCRIPT_FAILED;
	int rc = -1;

	snprintf(dir, sizeof(dir), "%s/qopt-calib-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		qm_say(a->s, QOPT_LOG_ERROR, "qopt calibrate: error: cannot make a "
			"temporary folder: %s\n", strerror(errno));
		free(script);
		return -1;
	}
	snprintf(probe, sizeof(probe), "%s/probe.onnx", dir);
	snprintf(data, sizeof(data), "%s/probe.onnx.data", dir);
	snprintf(job, sizeof(job), "%s/job.json", dir);
	snprintf(result, sizeof(result), "%s/result.txt", dir);
	{
		const char *const files[TMP_FILES] = { probe, data, job, result };

		qm_guard_install(0);
		qm_guard_files(files, TMP_FILES, dir);
	}
	if (!script)
		qm_say(a->s, QOPT_LOG_ERROR, "qopt calibrate: error: out of memory\n");
	else if (qir_model_save(m, probe, NULL, &err) < 0)
		qm_say(a->s, QOPT_LOG_ERROR, "qopt calibrate: error: cannot write the probe "
			"model: %s\n", err.msg);
	else if (write_job(job, a, m, hash, probe, sel, at, nsel, result) < 0)
		qm_say(a->s, QOPT_LOG_ERROR, "qopt calibrate: error: cannot write %s: %s\n",
			job, strerror(errno));
	else if ((end = run_script(a->s, script, job)) == SCRIPT_OK)
		rc = finish(a, script, hash, sel, nsel, result);
	unlink(job);
	unlink(probe);
	unlink(data);
	unlink(result);
	rmdir(dir);
	qm_guard_files(NULL, 0, NULL);
	free(script);
	if (end == SCRIPT_INTERRUPTED) {
		/* as if ^C had reached qopt too: the shell sees 130 */
		signal(SIGINT, SIG_DFL);
		raise(SIGINT);
	}
	return rc;
}

/* Each initializer's external data file (each distinct location
 * checked once): the output must not be one. */
static int clashes_with_data(struct cli_opts *a, qir_model *m)
{
	char loc[4200], last[4200] = "", *copy = strdup(a->input), *at;
	const char *dir;
	char *path;
	size_t i;
	int clash = 0;

	if (!copy)
		return 0;
	dir = dirname(copy);
	for (i = 0; i < m->graph->ninits && !clash; i++) {
		qir_tensor *t = m->graph->inits[i]->init;

		if (!t || t->storage != QIR_STORE_EXTERNAL)
			continue;
		qir_tensor_location(t, loc, sizeof(loc));
		if (strncmp(loc, "external:", 9) || !(at = strrchr(loc, '@')))
			continue;
		*at = 0;
		if (!strcmp(loc, last))
			continue;
		strcpy(last, loc);
		path = malloc(strlen(dir) + strlen(loc) + 2);
		if (!path)
			break;
		sprintf(path, "%s/%s", dir, loc + 9);
		if (cli_same_path(path, a->output)) {
			qm_say(a->s, QOPT_LOG_ERROR, "qopt calibrate: error: output '%s' is "
				"the external data file of the input model; qopt "
				"never modifies its input\n", a->output);
			clash = 1;
		}
		free(path);
	}
	free(copy);
	return clash;
}

/* Each selected value as the main graph shows it (calib-hoist.c: a
 * tensor of an If branch or a Loop body through new outputs), listed
 * as a graph output: 0, or -1 after saying why. */
static int expose(struct cli_opts *a, qir_model *m, qir_value **sel,
		  qir_value **at, size_t nsel)
{
	qir_error err = { 0 };
	char shown[1024];
	size_t i;

	for (i = 0; i < nsel; i++) {
		at[i] = calib_hoist(m, sel[i], &err);
		if (!at[i]) {
			qir_escape_text(shown, sizeof(shown), err.msg);
			qm_say(a->s, QOPT_LOG_ERROR, "qopt calibrate: error: %s\n", shown);
			return -1;
		}
		if (!at[i]->is_input && !at[i]->is_output &&
		    qir_graph_add_output(m->graph, at[i]) < 0) {
			qir_escape_text(shown, sizeof(shown), sel[i]->name);
			qm_say(a->s, QOPT_LOG_ERROR, "qopt calibrate: error: cannot expose "
				"'%s' as an output\n", shown);
			return -1;
		}
	}
	return 0;
}

static int calibrate(struct cli_opts *a, qir_model *m)
{
	qir_value **sel = NULL, **at;
	size_t nsel = 0;
	uint64_t hash = qir_model_hash(m);	/* before the outputs change */
	int rc = QOPT_EXIT_FAIL;

	if (!a->out_discard && clashes_with_data(a, m))
		return QOPT_EXIT_USAGE;
	rc = select_tensors(a, m, &sel, &nsel);
	if (rc)
		return rc;
	rc = QOPT_EXIT_FAIL;
	if (!nsel)
		qm_say(a->s, QOPT_LOG_ERROR, "qopt calibrate: %s: error: the pipeline's passes "
			"ask for no tensor: nothing to calibrate\n", a->input);
	at = nsel ? calloc(nsel, sizeof(*at)) : NULL;
	if (nsel && !at)
		qm_say(a->s, QOPT_LOG_ERROR, "qopt calibrate: error: out of memory\n");
	else if (nsel && expose(a, m, sel, at, nsel) == 0 &&
		 run_probe(a, m, hash, sel, at, nsel) == 0)
		rc = QOPT_EXIT_OK;
	free(at);
	free(sel);
	return rc;
}

/* -o as the main command checks it (outpath.c), before any work. */
static int check_output(struct cli_opts *a)
{
	int rc = cli_outpath_check(a->s, "-o", a->output, &a->out_discard);

	if (rc)
		return rc;
	if (!a->out_discard && cli_same_path(a->input, a->output)) {
		qm_say(a->s, QOPT_LOG_ERROR, "qopt calibrate: error: output '%s' is the input "
			"model; qopt never modifies its input\n", a->output);
		return QOPT_EXIT_USAGE;
	}
	return 0;
}

/* The sample files, checked before node starts; -o must not be one. */
static int check_samples(struct cli_opts *a)
{
	struct calib_samples s;
	char why[1024];
	size_t i;
	int rc = 0;

	if (calib_samples_check(a->data, &s, why, sizeof(why)) < 0) {
		char shown[sizeof(why)];

		/* file names as every message shows them: no raw escapes */
		qir_escape_text(shown, sizeof(shown), why);
		qm_say(a->s, QOPT_LOG_ERROR, "qopt calibrate: error: %s\n", shown);
		rc = QOPT_EXIT_FAIL;
	}
	for (i = 0; !rc && !a->out_discard && i < s.n; i++)
		if (cli_same_path(s.files[i], a->output)) {
			qm_say(a->s, QOPT_LOG_ERROR, "qopt calibrate: error: output '%s' is "
				"the sample file '%s'\n", a->output, s.files[i]);
			rc = QOPT_EXIT_USAGE;
		}
	calib_samples_free(&s);
	return rc;
}

int cmd_calibrate(struct cli_opts *a)
{
	qir_model *m;
	int rc;

	rc = check_output(a);
	if (!rc && a->data)
		rc = check_samples(a);
	if (rc)
		return rc;
	m = cli_load(a->s, a->input);
	if (!m)
		return QOPT_EXIT_FAIL;
	rc = calibrate(a, m);
	qir_model_free(m);
	return rc;
}
