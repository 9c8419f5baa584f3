/*
 * core/cli/bisect.c - `qopt bisect`: finds the first numbered point (pass
 * run or rewrite, see core/manager/gate.c) after which a test command calls
 * the output bad. Each candidate comes from re-running the pipeline in
 * process on a freshly loaded model with a bisect limit.
 *
 * Test runs: the two endpoints (limit 0 must be good, all points bad),
 * then a binary search over (good, bad]: ceil(log2(points)) more at
 * most, unless the test skips (exit 125), when a neighbour is tried as
 * git bisect does. A test that cannot run (the shell's 126 "cannot
 * execute" or 127 "not found", ended by a signal, or any exit above 127,
 * the shell's 128 + signal, as git bisect run reads it) says nothing
 * about the model: bisect stops with an error naming the command
 * (exit 2), never counting it as bad. A candidate that cannot be
 * written (disk full, folder gone) or an input that can no longer be
 * loaded (removed or changed during the bisect) stops it too, naming
 * the file (exit 1): neither says anything about the passes.
 *
 * The test runs in a process group of its own: a SIGINT, SIGTERM or
 * SIGHUP to qopt ends that group and waits for it, removes the
 * candidate and ends qopt by the signal (qm_guard_*). The limit is the
 * session's bisect hook's (qm_hook_bisect), set again for each run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/outpath.h"

/* T_ERROR: the test cannot run (a usage error); T_FAIL: no candidate
 * (it cannot be written, the input cannot be loaded). */
enum { T_GOOD, T_BAD, T_SKIP, T_ERROR, T_FAIL };
static const char *const tname[] = { "good", "bad", "skip", "error",
				     "failure" };

struct point_info {
	int64_t num;
	int is_rewrite;
	int64_t pass_point;
	char *pass;
	char *desc;
};

struct bisect {
	struct cli_opts *c;
	qk_device dev;
	int print;		/* BISECT: lines (-v) */
	qir_save_opts so;
	const char *dir;
	char *cand, *cand_data;
	qm_outfile *logfile;	/* bisect.log, renamed in place at the end */
	FILE *log;
	int tests;
	qir_model *good, *bad;
	int64_t lo, hi;
	struct point_info hi_point;
	char *skipped;
	int input_gone;		/* a run could not load the input */
};

/* DIR/NAME, one slash between them however many -o ended with
 * ("bisect/" gives bisect/last-good.onnx, "/" gives /last-good.onnx). */
static char *path_in(const char *dir, const char *name)
{
	size_t n = strlen(dir);
	char *p;

	while (n > 0 && dir[n - 1] == '/')
		n--;
	p = malloc(n + strlen(name) + 2);
	if (p)
		sprintf(p, "%.*s/%s", (int)n, dir, name);
	return p;
}

static void point_clear(struct point_info *pi)
{
	free(pi->pass);
	free(pi->desc);
	memset(pi, 0, sizeof(*pi));
}

static void keep_point(struct bisect *b, int64_t num,
		       struct point_info *out)
{
	struct qm_point p;

	if (qm_point_at(b->c->s, num, &p) < 0)
		return;
	point_clear(out);
	out->num = num;
	out->is_rewrite = p.is_rewrite;
	out->pass_point = p.pass_point;
	out->pass = strdup(p.pass);
	out->desc = p.desc ? strdup(p.desc) : NULL;
}

/* The model after the first `limit` points; NULL when loading or the
 * pipeline fails. *count: how many points that run numbered. */
static qir_model *run_at(struct bisect *b, int64_t limit, int64_t *count,
			 struct point_info *pi)
{
	qm_session *s = b->c->s;
	qir_model *m;

	if (qm_hook_bisect(s, limit, b->print, pi != NULL) < 0 ||
	    qm_run_begin(s, b->dev, b->c->threads, 0))
		return NULL;
	m = cli_load(s, b->c->input);
	if (!m)
		b->input_gone = 1;
	if (m && qm_run(s, m)) {
		qir_model_free(m);
		m = NULL;
	}
	if (count)
		*count = qm_points(s);
	if (m && pi)
		keep_point(b, limit < 0 ? qm_points(s) : limit, pi);
	qm_run_end(s);
	return m;
}

static char *shell_quote(const char *s)
{
	char *out = malloc(4 * strlen(s) + 3), *o = out;

	if (!out)
		return NULL;
	*o++ = '\'';
	for (; *s; s++) {
		if (*s == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = *s;
		}
	}
	*o++ = '\'';
	*o = 0;
	return out;
}

/* CMD with every {} replaced by the quoted path (appended if none). */
static char *test_command(const char *cmd, const char *path)
{
	char *q = shell_quote(path), *out, *o;
	const char *s;
	size_t n = strlen(cmd) + strlen(q) + 2;

	for (s = cmd; (s = strstr(s, "{}")); s += 2)
		n += strlen(q);
	out = malloc(n);
	if (!out || !q) {
		free(q);
		free(out);
		return NULL;
	}
	for (o = out, s = cmd; *s;) {
		if (s[0] == '{' && s[1] == '}') {
			o = stpcpy(o, q);
			s += 2;
		} else {
			*o++ = *s++;
		}
	}
	*o = 0;
	if (!strstr(cmd, "{}"))
		sprintf(o, " %s", q);
	free(q);
	return out;
}

/* Says why a finished test could not run, or returns 0 when it ran. */
static int test_did_not_run(qm_session *s, const char *cmd, int status)
{
	if (WIFSIGNALED(status)) {
		qm_say(s, QOPT_LOG_ERROR, "qopt: error: bisect: the test '%s' was killed by signal %d: it says nothing about the model\n",
			cmd, WTERMSIG(status));
		return 1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) < 126)
		return 0;
	qm_say(s, QOPT_LOG_ERROR, "qopt: error: bisect: the test '%s' cannot run (exit %d: %s)\n",
		cmd, WEXITSTATUS(status),
		WEXITSTATUS(status) == 127 ? "a command it runs was not found" :
		WEXITSTATUS(status) == 126 ?
		"a command it runs cannot be executed" :
		"above 127: a command it runs was killed by a signal");
	return 1;
}

static int run_test(qm_session *s, const char *cmd)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		qm_say(s, QOPT_LOG_ERROR, "qopt: error: bisect: cannot run the test '%s': fork: %s\n",
			cmd, strerror(errno));
		return T_ERROR;
	}
	if (pid == 0) {
		/* Its own group, so a stop ends every process it started
		 * (set in both, whichever runs first). */
		setpgid(0, 0);
		/* The test's chatter goes to stderr with ours: stdout
		 * carries only the result. */
		dup2(2, 1);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);
	qm_guard_child(pid, 1);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			qm_guard_child(0, 1);
			qm_say(s, QOPT_LOG_ERROR, "qopt: error: bisect: the test '%s': waitpid: %s\n",
				cmd, strerror(errno));
			return T_ERROR;
		}
	qm_guard_child(0, 1);
	if (test_did_not_run(s, cmd, status))
		return T_ERROR;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return T_GOOD;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 125)
		return T_SKIP;
	return T_BAD;
}

static void remove_candidate(struct bisect *b)
{
	unlink(b->cand);
	unlink(b->cand_data);
}

static int test_model(struct bisect *b, qir_model *m, int64_t limit)
{
	qir_error err = { 0 };
	char *cmd;
	int r;

	if (!m && b->input_gone) {
		qm_say(b->c->s, QOPT_LOG_ERROR, "qopt: error: bisect: cannot load the input '%s' again (removed or changed during the bisect); stopping\n",
			b->c->input);
		return T_FAIL;
	}
	if (!m) {
		r = T_SKIP;
		fprintf(b->log, "limit %lld: skip (the pipeline failed)\n",
			(long long)limit);
		qm_say(b->c->s, QOPT_LOG_INFO, "qopt: bisect: limit %lld: the pipeline failed; skipping it\n",
			(long long)limit);
		return r;
	}
	if (qir_model_save(m, b->cand, &b->so, &err) < 0) {
		qm_say(b->c->s, QOPT_LOG_ERROR, "qopt: %s: error: cannot write the candidate: %s\n",
			b->cand, err.msg);
		return T_FAIL;
	}
	cmd = test_command(b->c->test_cmd, b->cand);
	if (!cmd)
		qm_say(b->c->s, QOPT_LOG_ERROR, "qopt: error: bisect: out of memory\n");
	r = cmd ? run_test(b->c->s, cmd) : T_ERROR;
	free(cmd);
	remove_candidate(b);
	if (r == T_ERROR)
		return r;
	b->tests++;
	fprintf(b->log, "limit %lld: %s\n", (long long)limit, tname[r]);
	fflush(b->log);
	qm_say(b->c->s, QOPT_LOG_INFO, "qopt: bisect: limit %lld: %s\n", (long long)limit,
		tname[r]);
	return r;
}

static int save_as(struct bisect *b, qir_model *m, const char *name)
{
	qir_error err = { 0 };
	char *path = path_in(b->dir, name);
	int rc = path ? qir_model_save(m, path, &b->so, &err) : -1;

	if (rc < 0)
		qm_say(b->c->s, QOPT_LOG_ERROR, "qopt: %s: error: %s\n", path ? path : name,
			err.msg);
	free(path);
	return rc;
}

static int64_t pick(const struct bisect *b)
{
	int64_t mid = b->lo + (b->hi - b->lo) / 2, d;

	for (d = 0; d < b->hi - b->lo; d++) {
		if (mid + d < b->hi && !b->skipped[mid + d])
			return mid + d;
		if (d && mid - d > b->lo && !b->skipped[mid - d])
			return mid - d;
	}
	return -1;
}

static int search(struct bisect *b)
{
	struct point_info pi = { 0 };

	while (b->hi - b->lo > 1) {
		int64_t l = pick(b);
		qir_model *m;
		int r;

		if (l < 0)
			return -1;
		m = run_at(b, l, NULL, &pi);
		r = test_model(b, m, l);
		if (r == T_ERROR || r == T_FAIL) {
			qir_model_free(m);
			point_clear(&pi);
			return r == T_ERROR ? -2 : -3;
		}
		if (r == T_SKIP) {
			b->skipped[l] = 1;
			qir_model_free(m);
		} else if (r == T_GOOD) {
			qir_model_free(b->good);
			b->good = m;
			b->lo = l;
		} else {
			qir_model_free(b->bad);
			b->bad = m;
			b->hi = l;
			point_clear(&b->hi_point);
			b->hi_point = pi;
			memset(&pi, 0, sizeof(pi));
		}
	}
	point_clear(&pi);
	return 0;
}

static int endpoints(struct bisect *b, int64_t *npoints)
{
	int r;

	b->bad = run_at(b, -1, npoints, &b->hi_point);
	if (!b->bad && b->input_gone)
		return -1;	/* cli_load said why */
	if (!b->bad) {
		qm_say(b->c->s, QOPT_LOG_ERROR, "qopt: error: bisect: the full pipeline fails on %s\n",
			b->c->input);
		return -1;
	}
	if (*npoints == 0) {
		qm_say(b->c->s, QOPT_LOG_ERROR, "qopt: error: bisect: the pipeline has no passes to bisect\n");
		return -1;
	}
	r = test_model(b, b->bad, *npoints);
	if (r == T_ERROR || r == T_FAIL)
		return r == T_ERROR ? -2 : -1;
	if (r != T_BAD) {
		qm_say(b->c->s, QOPT_LOG_ERROR, "qopt: error: bisect: the fully optimized model is %s, not bad: nothing to bisect\n",
			tname[r]);
		return -1;
	}
	b->good = run_at(b, 0, NULL, NULL);
	r = test_model(b, b->good, 0);
	if (r == T_ERROR || r == T_FAIL)
		return r == T_ERROR ? -2 : -1;
	if (r != T_GOOD) {
		qm_say(b->c->s, QOPT_LOG_ERROR, "qopt: error: bisect: the unmodified model is %s, not good: the test fails without qopt's passes\n",
			tname[r]);
		return -1;
	}
	b->lo = 0;
	b->hi = *npoints;
	return 0;
}

static int ceil_log2(int64_t n)
{
	int k = 0;

	while (((int64_t)1 << k) < n)
		k++;
	return k;
}

static void report(const struct bisect *b, int64_t npoints)
{
	const struct point_info *p = &b->hi_point;
	FILE *out = qm_data(b->c->s);
	char *good = path_in(b->dir, "last-good.onnx");
	char *bad = path_in(b->dir, "first-bad.onnx");
	char *log = path_in(b->dir, "bisect.log");

	if (p->is_rewrite)
		fprintf(out, "first bad point: (%lld) rewrite in pass run (%lld) %s: %s\n",
		       (long long)p->num, (long long)p->pass_point, p->pass,
		       p->desc ? p->desc : "");
	else
		fprintf(out, "first bad point: (%lld) pass run %s\n",
		       (long long)p->num, p->pass);
	fprintf(out, "points: %lld; test runs: %d (at most %d without skips)\n",
	       (long long)npoints, b->tests, ceil_log2(npoints) + 2);
	fprintf(out, "last good: %s (limit %lld)\n", good ? good : "?",
	       (long long)b->lo);
	fprintf(out, "first bad: %s (limit %lld)\n", bad ? bad : "?",
	       (long long)b->hi);
	fprintf(out, "log: %s\n", log ? log : "?");
	free(good);
	free(bad);
	free(log);
}

/* Bisect's folder holds only files it names; each must be absent or a
 * regular file, and none may be the input model. Checked before any
 * work (exit 2). */
static const char *const dir_files[] = {
	"candidate.onnx", "candidate.onnx.data", "last-good.onnx",
	"last-good.onnx.data", "first-bad.onnx", "first-bad.onnx.data",
	"bisect.log",
};

static int check_dir(const struct bisect *b)
{
	struct stat st;
	size_t i;
	int rc = 0;

	if (!*b->dir) {
		qm_say(b->c->s, QOPT_LOG_ERROR, "qopt: error: -o needs a folder name, got ''\n");
		return QOPT_EXIT_USAGE;
	}
	if (stat(b->dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
		qm_say(b->c->s, QOPT_LOG_ERROR, "qopt: error: bisect's -o '%s' is not a folder\n",
			b->dir);
		return QOPT_EXIT_USAGE;
	}
	for (i = 0; !rc && i < sizeof(dir_files) / sizeof(*dir_files); i++) {
		char *p = path_in(b->dir, dir_files[i]);
		int discard = 0;

		if (!p)
			return QOPT_EXIT_FAIL;
		if (stat(b->dir, &st) == 0)
			rc = cli_outpath_check(b->c->s, "bisect -o", p, &discard);
		if (!rc && (discard || cli_same_path(p, b->c->input))) {
			qm_say(b->c->s, QOPT_LOG_ERROR, "qopt: error: bisect would write '%s', which is %s\n",
				p, discard ? "a device" : "the input model");
			rc = QOPT_EXIT_USAGE;
		}
		free(p);
	}
	return rc;
}

static int open_dir(struct bisect *b)
{
	qir_error err = { 0 };
	char *log;

	if (mkdir(b->dir, 0777) < 0 && errno != EEXIST) {
		qm_say(b->c->s, QOPT_LOG_ERROR, "qopt: %s: error: cannot create folder: %s\n",
			b->dir, strerror(errno));
		return -1;
	}
	b->cand = path_in(b->dir, "candidate.onnx");
	b->cand_data = path_in(b->dir, "candidate.onnx.data");
	log = path_in(b->dir, "bisect.log");
	b->logfile = log ? qm_outfile_open(log, &b->log, &err) : NULL;
	if (!b->logfile || !b->cand || !b->cand_data) {
		qm_say(b->c->s, QOPT_LOG_ERROR, "qopt: %s: error: cannot write bisect.log: %s\n",
			b->dir, err.msg[0] ? err.msg : "out of memory");
		free(log);
		return -1;
	}
	free(log);
	/* A stop during a test removes the candidate it was given. */
	qm_guard_files((const char *const[]){ b->cand, b->cand_data }, 2,
		       NULL);
	return 0;
}

static int bisect(struct bisect *b)
{
	int64_t npoints = 0;
	int rc;

	if (open_dir(b) < 0)
		return QOPT_EXIT_FAIL;
	rc = endpoints(b, &npoints);
	if (rc == -2)	/* the test cannot run: a usage problem */
		return QOPT_EXIT_USAGE;
	if (rc < 0)
		return QOPT_EXIT_FAIL;
	b->skipped = calloc(npoints + 1, 1);
	if (!b->skipped)
		return QOPT_EXIT_FAIL;
	rc = search(b);
	if (rc == -2)
		return QOPT_EXIT_USAGE;
	if (rc == -3)
		return QOPT_EXIT_FAIL;
	if (save_as(b, b->good, "last-good.onnx") < 0 ||
	    save_as(b, b->bad, "first-bad.onnx") < 0)
		return QOPT_EXIT_FAIL;
	if (rc < 0) {
		qm_say(b->c->s, QOPT_LOG_ERROR, "qopt: error: bisect: every point between limit %lld (good) and %lld (bad) was skipped; the first bad point is one of %lld..%lld\n",
			(long long)b->lo, (long long)b->hi,
			(long long)b->lo + 1, (long long)b->hi);
		return QOPT_EXIT_FAIL;
	}
	report(b, npoints);
	return QOPT_EXIT_OK;
}

int cmd_bisect(struct cli_opts *c)
{
	struct bisect b = { .c = c };
	struct qm_settings g;
	int rc;

	rc = cli_setup(c, NULL);
	if (!rc && !qm_nstages(c->s)) {
		qm_say(c->s, QOPT_LOG_ERROR, "qopt: error: bisect needs a pipeline (-p or --passes)\n");
		rc = QOPT_EXIT_USAGE;
	}
	if (!rc)
		rc = cli_run_begin(c, &b.dev);
	if (!rc) {
		b.dir = c->output ? c->output : "qopt-bisect";
		/* Pass chatter from every candidate run would drown the
		 * search; -v brings it (and the BISECT: lines) back. */
		b.print = c->verbose > 0;
		qm_settings(c->s, &g);
		if (!c->verbose)
			qm_set_verbosity(c->s, QOPT_LOG_ERROR,
					 c->strict || g.strict > 0);
		cli_save_opts(c, &b.so);
		rc = check_dir(&b);
		if (!rc)
			rc = bisect(&b);
	}
	if (b.logfile) {
		qir_error err = { 0 };

		if (qm_outfile_commit(b.logfile, &err) < 0 && !rc) {
			qm_say(c->s, QOPT_LOG_ERROR, "qopt: error: %s\n", err.msg);
			rc = QOPT_EXIT_FAIL;
		}
	}
	qir_model_free(b.good);
	qir_model_free(b.bad);
	point_clear(&b.hi_point);
	free(b.skipped);
	qm_guard_files(NULL, 0, NULL);
	free(b.cand);
	free(b.cand_data);
	return rc;
}
