/*
 * core/manager/session-pub.c - <qopt/session.h>, libqopt's public face of
 * the pass manager, over the manager's own session (session-api.h):
 * settings kept until the pipeline is set, the caller's hooks behind one
 * manager hook (so they can be removed), and the manager's messages
 * turned into qopt_diag records.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <qopt/session.h>
#include "manager/session-api.h"

struct pub_hook {
	qopt_hook h;
	int live;
};

struct qopt_session {
	qm_session *qm;
	qopt_diag_fn *diag;	/* NULL: stderr, as the qopt command */
	void *diag_arg;
	char line[8192];	/* text of qm_say not yet ended by '\n' */
	size_t nline;
	/* Settings (qopt_session_set). */
	char **dirs, **loads;
	size_t ndirs, nloads;
	int verbosity, strict, verify_each, threads;
	const char *device;	/* static; NULL: [qopt] device, else auto */
	/* State. */
	int have_pipeline;	/* a pipeline_* or add_pass call was made */
	int stepwise;		/* by add_pass */
	int refused;		/* the pipeline did not parse or resolve */
	int in_pipeline;	/* reading it: its problems are errors */
	int resolved;		/* its plugins loaded, its passes resolved */
	int hooked;		/* the manager hooks are added */
	int in_run;		/* a run (and so a hook) is under way */
	int saw_strict;		/* a warning --strict made an error */
	int strict_run;		/* the run is --strict */
	qopt_status fail_code;	/* the failed pass's status */
	struct pub_hook *hooks;
	size_t nhooks;
	char input[PATH_MAX];	/* the last run's input, for the report */
	/* A module's state for the session's runs (qm_pub_attach). */
	void *ext;
	void (*ext_free)(void *ext);
};

/* ---- diagnostics ---- */

/* "KIND 'NAME'" in text: NAME into buf, else NULL. */
static const char *named(const char *text, const char *kind, char *buf,
			 size_t n)
{
	const char *p = strstr(text, kind), *end;

	if (!p)
		return NULL;
	p += strlen(kind);
	end = strchr(p, '\'');
	if (!end || (size_t)(end - p) >= n)
		return NULL;
	memcpy(buf, p, (size_t)(end - p));
	buf[end - p] = 0;
	return buf;
}

/* A tag is a pass when the session knows one of that name; else it is a
 * file (the model, the pipeline) and stays in the message. */
static int is_pass(const qopt_session *s, const char *tag)
{
	struct qm_entry e;

	return tag && qm_find(s->qm, tag, &e) != 0;
}

static void deliver(qopt_session *s, int level, qopt_status code,
		    const char *tag, const char *text)
{
	static const char *const kind[] = { "error: ", "warning: ", "", "" };
	char node[256], tensor[256], msg[8448];
	qopt_diag d = { .size = sizeof(d), .severity = level, .code = code };

	if (!s->diag) {	/* the qopt command's lines */
		fflush(stdout);
		fprintf(stderr, "qopt: %s%s%s%s%s\n", tag ? tag : "",
			tag ? ": " : "", kind[level & 3], text,
			code == QOPT_ESTRICT ? " [--strict]" : "");
		return;
	}
	if (tag && !is_pass(s, tag)) {
		snprintf(msg, sizeof(msg), "%s: %s", tag, text);
		text = msg;
		tag = NULL;
	}
	d.pass = tag;
	d.node = named(text, "node '", node, sizeof(node));
	d.tensor = named(text, "tensor '", tensor, sizeof(tensor));
	if (!d.tensor)
		d.tensor = named(text, "value '", tensor, sizeof(tensor));
	if (!d.tensor)
		d.tensor = named(text, "initializer '", tensor, sizeof(tensor));
	d.message = text;
	s->diag(s->diag_arg, &d);
}

/* The manager's and the passes' messages (qm_msg, qopt_log). */
static void on_msg(void *arg, int level, int strict, const char *tag,
		   const char *text)
{
	qopt_session *s = arg;
	qopt_status code = QOPT_OK;

	if (level == QOPT_LOG_WARN && strict) {
		level = QOPT_LOG_ERROR;
		code = QOPT_ESTRICT;
		s->saw_strict = 1;
	} else if (level == QOPT_LOG_ERROR) {
		code = is_pass(s, tag) ? QOPT_EPASS : QOPT_EUSAGE;
	}
	deliver(s, level, code, tag, text);
}

/* One line of qm_say text: "qopt: [TAG: ]KIND: message", or plain. */
static void say_line(qopt_session *s, int level, char *line)
{
	char *tag = NULL, *text = line, *k;

	if (!strncmp(text, "qopt: ", 6))
		text += 6;
	if ((k = strstr(text, ": error: ")) || (k = strstr(text, ": warning: "))) {
		*k = 0;
		tag = text;
		text = k + 2;
	}
	if (!strncmp(text, "error: ", 7)) {
		text += 7;
		level = QOPT_LOG_ERROR;
	} else if (!strncmp(text, "warning: ", 9)) {
		text += 9;
		level = QOPT_LOG_WARN;
	} else if (s->in_pipeline && strncmp(text, "note: ", 6)) {
		level = QOPT_LOG_ERROR;	/* "FILE:LINE: problem" */
	}
	if (*text)
		deliver(s, level, level == QOPT_LOG_ERROR ? QOPT_EUSAGE :
			QOPT_OK, tag, text);
}

/* qm_say's text and the BISECT lines: whole lines, possibly in pieces. */
static void on_text(void *arg, int level, const char *text)
{
	qopt_session *s = arg;

	if (level == QM_LOG_PROGRESS)
		return;
	if (!s->diag) {
		fflush(stdout);
		fputs(text, stderr);
		return;
	}
	for (; *text; text++) {
		if (*text != '\n' && s->nline + 1 < sizeof(s->line)) {
			s->line[s->nline++] = *text;
			continue;
		}
		if (*text != '\n')
			continue;	/* too long: the rest is cut */
		s->line[s->nline] = 0;
		say_line(s, level, s->line);
		s->nline = 0;
	}
}

__attribute__((format(printf, 3, 4)))
static qopt_status fail(qopt_session *s, qopt_status code, const char *fmt,
			...)
{
	char text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	deliver(s, QOPT_LOG_ERROR, code, NULL, text);
	return code;
}

/* ---- the session ---- */

qopt_session *qopt_session_new(void)
{
	qopt_session *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->qm = qm_session_new();
	if (!s->qm) {
		free(s);
		return NULL;
	}
	s->verbosity = QOPT_LOG_INFO;
	qm_set_diag(s->qm, on_msg, s);
	qm_set_sink(s->qm, on_text, s);
	return s;
}

static void free_strv(char **v, size_t n)
{
	while (n)
		free(v[--n]);
	free(v);
}

void qopt_session_free(qopt_session *s)
{
	if (!s)
		return;
	if (s->ext_free)
		s->ext_free(s->ext);
	qm_session_free(s->qm);
	free_strv(s->dirs, s->ndirs);
	free_strv(s->loads, s->nloads);
	free(s->hooks);
	free(s);
}

void qopt_session_set_diag(qopt_session *s, qopt_diag_fn *fn, void *arg)
{
	s->diag = fn;
	s->diag_arg = arg;
}

static qopt_status push(qopt_session *s, char ***v, size_t *n,
			const char *value)
{
	char **grown = realloc(*v, (*n + 1) * sizeof(**v));

	if (!grown)
		return fail(s, QOPT_ENOMEM, "out of memory");
	*v = grown;
	if (!(grown[*n] = strdup(value)))
		return fail(s, QOPT_ENOMEM, "out of memory");
	++*n;
	return QOPT_OK;
}

/* "0".."max" into *out; -1 when value is not one. */
static int small_uint(const char *value, int max, int *out)
{
	char *end;
	long v;

	if (*value < '0' || *value > '9')
		return -1;
	v = strtol(value, &end, 10);
	if (*end || v > max)
		return -1;
	*out = (int)v;
	return 0;
}

static qopt_status set_int(qopt_session *s, const char *key,
			   const char *value, int max, int *out)
{
	if (small_uint(value, max, out) < 0)
		return fail(s, QOPT_EUSAGE,
			    "setting '%s': expected an integer from 0 to %d, got '%s'",
			    key, max, value);
	return QOPT_OK;
}

static qopt_status set_device(qopt_session *s, const char *value)
{
	static const char *const names[] = { "cpu", "cuda", "auto" };
	size_t i;

	for (i = 0; i < 3; i++)
		if (!strcmp(value, names[i])) {
			s->device = names[i];
			return QOPT_OK;
		}
	return fail(s, QOPT_EUSAGE,
		    "setting 'device': expected cpu, cuda or auto, got '%s'",
		    value);
}

qopt_status qopt_session_set(qopt_session *s, const char *key,
			     const char *value)
{
	if (!key || !value)
		return fail(s, QOPT_EUSAGE, "qopt_session_set: NULL %s",
			    key ? "value" : "key");
	if (s->have_pipeline)
		return fail(s, QOPT_EUSAGE,
			    "setting '%s': settings come before the pipeline",
			    key);
	if (!strcmp(key, "verbosity"))
		return set_int(s, key, value, QOPT_LOG_DEBUG, &s->verbosity);
	if (!strcmp(key, "strict"))
		return set_int(s, key, value, 1, &s->strict);
	if (!strcmp(key, "verify_each"))
		return set_int(s, key, value, 1, &s->verify_each);
	if (!strcmp(key, "threads"))
		return set_int(s, key, value, 4096, &s->threads);
	if (!strcmp(key, "device"))
		return set_device(s, value);
	if (!strcmp(key, "plugin_dir"))
		return push(s, &s->dirs, &s->ndirs, value);
	if (!strcmp(key, "load"))
		return push(s, &s->loads, &s->nloads, value);
	if (!strcmp(key, "builtin_dir"))
		return qm_set_builtin_dir(s->qm, value) ?
		       fail(s, QOPT_ENOMEM, "out of memory") : QOPT_OK;
	return fail(s, QOPT_EUSAGE,
		    "unknown setting '%s' (verbosity, strict, verify_each, threads, device, plugin_dir, load, builtin_dir)",
		    key);
}

/* ---- the pipeline ---- */

static qopt_status status_of(int qm_rc, qopt_status fail_as)
{
	return qm_rc == QM_OK ? QOPT_OK : qm_rc == QM_USAGE ? QOPT_EUSAGE :
	       fail_as;
}

static qopt_status load(qopt_session *s, int all)
{
	struct qm_plugins p = {
		.dirs = (const char *const *)s->dirs, .ndirs = s->ndirs,
		.files = (const char *const *)s->loads, .nfiles = s->nloads,
		.all = all,
	};

	qm_set_verbosity(s->qm, s->verbosity, 0);
	return status_of(qm_load_plugins(s->qm, &p), QOPT_EPLUGIN);
}

static qopt_status resolve(qopt_session *s)
{
	qopt_status rc;

	s->in_pipeline = 1;
	rc = load(s, 0);
	if (!rc)
		rc = status_of(qm_resolve(s->qm), QOPT_EPLUGIN);
	s->in_pipeline = 0;
	s->resolved = !rc;
	s->refused = !!rc;
	return rc;
}

static qopt_status one_pipeline(qopt_session *s)
{
	if (s->in_run)
		return fail(s, QOPT_EUSAGE, "the pipeline cannot change during a run");
	if (s->have_pipeline)
		return fail(s, QOPT_EUSAGE, "the session has a pipeline already");
	s->have_pipeline = 1;
	return QOPT_OK;
}

/* parsed: qm_parse's or qm_parse_text's result. */
static qopt_status parsed(qopt_session *s, int qm_rc)
{
	qopt_status rc = status_of(qm_rc, QOPT_ENOMEM);

	s->refused = !!rc;
	return rc ? rc : resolve(s);
}

qopt_status qopt_session_pipeline_ini(qopt_session *s, const char *text,
				      const char *name)
{
	qopt_status rc = text ? one_pipeline(s) :
			 fail(s, QOPT_EUSAGE, "qopt_session_pipeline_ini: NULL text");

	if (rc)
		return rc;
	s->in_pipeline = 1;
	rc = qm_parse_text(s->qm, text, name);
	s->in_pipeline = 0;
	return parsed(s, rc);
}

qopt_status qopt_session_pipeline_file(qopt_session *s, const char *path)
{
	qopt_status rc = path ? one_pipeline(s) :
			 fail(s, QOPT_EUSAGE, "qopt_session_pipeline_file: NULL path");

	if (rc)
		return rc;
	s->in_pipeline = 1;
	rc = qm_parse(s->qm, path, NULL);
	s->in_pipeline = 0;
	return parsed(s, rc);
}

qopt_status qopt_session_pipeline_passes(qopt_session *s, const char *list)
{
	qopt_status rc = list ? one_pipeline(s) :
			 fail(s, QOPT_EUSAGE, "qopt_session_pipeline_passes: NULL list");

	if (rc)
		return rc;
	s->in_pipeline = 1;
	rc = qm_parse(s->qm, NULL, list);
	s->in_pipeline = 0;
	return parsed(s, rc);
}

qopt_status qopt_session_add_pass(qopt_session *s, const char *pass,
				  const char *const *kv)
{
	qopt_status rc;

	if (s->in_run || s->resolved || (s->have_pipeline && !s->stepwise))
		return fail(s, QOPT_EUSAGE,
			    "add_pass '%s': the session's pipeline is set already",
			    pass ? pass : "");
	s->have_pipeline = s->stepwise = 1;
	s->in_pipeline = 1;
	rc = status_of(qm_add_stage(s->qm, pass, kv), QOPT_ENOMEM);
	s->in_pipeline = 0;
	s->refused |= !!rc;
	return rc;
}

/* ---- hooks ---- */

static void event(qopt_pass_event *ev, const struct qm_pass_event *e)
{
	memset(ev, 0, sizeof(*ev));
	ev->size = sizeof(*ev);
	ev->index = e->index;
	ev->pass = e->name;
	ev->pipeline = e->from;
	ev->changed = e->changed;
	ev->status = e->status;
}

static int hooks_before(void *arg, qm_session *qm, const struct qm_pass_event *e,
			qir_model *m)
{
	qopt_session *s = arg;
	qopt_pass_event ev;
	size_t i;
	int r;

	(void)qm;
	event(&ev, e);
	for (i = 0; i < s->nhooks; i++) {
		if (!s->hooks[i].live || !s->hooks[i].h.before)
			continue;
		r = s->hooks[i].h.before(s->hooks[i].h.arg, &ev, m);
		if (r < 0) {
			s->fail_code = QOPT_EPASS;
			fail(s, QOPT_EPASS, "a hook failed the run before pass '%s'",
			     e->name);
			return -1;
		}
		if (r == 1)
			return QM_HOOK_SKIP;
	}
	return QM_HOOK_RUN;
}

static int hooks_after(void *arg, qm_session *qm, const struct qm_pass_event *e,
		       qir_model *m)
{
	qopt_session *s = arg;
	qopt_pass_event ev;
	size_t i;

	(void)qm;
	event(&ev, e);
	for (i = 0; i < s->nhooks; i++)
		if (s->hooks[i].live && s->hooks[i].h.after &&
		    s->hooks[i].h.after(s->hooks[i].h.arg, &ev, m) < 0) {
			s->fail_code = QOPT_EPASS;
			fail(s, QOPT_EPASS, "a hook failed the run after pass '%s'",
			     e->name);
			return -1;
		}
	return 0;
}

static void hooks_failed(void *arg, qm_session *qm,
			 const struct qm_pass_event *e, qir_model *m)
{
	qopt_session *s = arg;
	qopt_pass_event ev;
	size_t i;

	(void)qm;
	event(&ev, e);
	if (!s->fail_code)
		s->fail_code = e->status ? e->status : QOPT_EPASS;
	for (i = 0; i < s->nhooks; i++)
		if (s->hooks[i].live && s->hooks[i].h.after)
			(void)s->hooks[i].h.after(s->hooks[i].h.arg, &ev, m);
}

qopt_status qopt_session_add_hook(qopt_session *s, const qopt_hook *h,
				  int *id)
{
	struct pub_hook *grown;

	if (!h || h->size != sizeof(*h))
		return fail(s, QOPT_EUSAGE,
			    "add_hook: the hook's size is not sizeof(qopt_hook) (%zu)",
			    sizeof(*h));
	if (s->in_run)
		return fail(s, QOPT_EUSAGE, "add_hook: refused during a run");
	grown = realloc(s->hooks, (s->nhooks + 1) * sizeof(*grown));
	if (!grown)
		return fail(s, QOPT_ENOMEM, "out of memory");
	s->hooks = grown;
	grown[s->nhooks].h = *h;
	grown[s->nhooks].live = 1;
	s->nhooks++;
	if (id)
		*id = (int)s->nhooks;
	return QOPT_OK;
}

qopt_status qopt_session_remove_hook(qopt_session *s, int id)
{
	if (s->in_run)
		return fail(s, QOPT_EUSAGE, "remove_hook: refused during a run");
	if (id < 1 || (size_t)id > s->nhooks || !s->hooks[id - 1].live)
		return fail(s, QOPT_ENOTFOUND, "remove_hook: no hook %d", id);
	s->hooks[id - 1].live = 0;
	return QOPT_OK;
}

/* ---- a run ---- */

static qopt_status add_manager_hooks(qopt_session *s, int strict)
{
	struct qm_hook h = {
		.before = hooks_before, .after = hooks_after,
		.after_failed = hooks_failed, .arg = s,
	};
	struct qm_settings g;

	if (s->hooked)
		return QOPT_OK;
	qm_settings(s->qm, &g);
	if ((strict && qm_hook_strict(s->qm)) ||
	    ((s->verify_each || g.verify_each > 0) &&
	     qm_hook_verify_each(s->qm)) || qm_add_hook(s->qm, &h))
		return fail(s, QOPT_ENOMEM, "out of memory");
	s->hooked = 1;
	return QOPT_OK;
}

static qopt_status device(qopt_session *s, qk_device *dev)
{
	struct qm_settings g;
	const char *name = s->device;
	int d;

	qm_settings(s->qm, &g);
	if (!name)
		name = g.device ? g.device : "auto";
	d = qk_device_from_name(name);
	if (d < 0)
		return fail(s, QOPT_EUSAGE, "device '%s': expected cpu, cuda or auto",
			    name);
	if (d == QK_DEVICE_CUDA && !qk_cuda_available())
		return fail(s, QOPT_EDEVICE_UNAVAILABLE,
			    "device cuda requested, but CUDA is not available");
	*dev = (qk_device)d;
	return QOPT_OK;
}

static qopt_status begin(qopt_session *s)
{
	qk_device dev = QK_DEVICE_AUTO;
	qopt_status rc = qm_pub_prepare(s, &dev);
	int threads, strict;

	if (rc)
		return rc;
	qm_pub_params(s, &threads, &strict);
	s->strict_run = strict;
	if (qm_run_begin(s->qm, dev, s->threads, 0))
		return QOPT_ENOMEM;
	s->fail_code = QOPT_OK;
	s->saw_strict = 0;
	return QOPT_OK;
}

static qopt_status run(qopt_session *s, qir_model *m)
{
	int rc;

	s->in_run = 1;
	rc = qm_run(s->qm, m);
	s->in_run = 0;
	if (rc == QM_OK)
		return QOPT_OK;
	/* A hook's after (ours set fail_code; --strict's after its
	 * warnings were shown as errors) fails a pass without
	 * after_failed. */
	if (qm_failed_pass(s->qm))
		return s->fail_code ? s->fail_code :
		       s->strict_run && s->saw_strict ? QOPT_ESTRICT : QOPT_EPASS;
	return s->saw_strict ? QOPT_ESTRICT : QOPT_EVERIFY;
}

qopt_status qopt_session_run(qopt_session *s, qir_model *m)
{
	qopt_status rc = m ? begin(s) :
			 fail(s, QOPT_EUSAGE, "qopt_session_run: NULL model");

	if (rc)
		return rc;
	snprintf(s->input, sizeof(s->input), "%s",
		 m->path ? m->path : "<memory>");
	return run(s, m);
}

static qopt_status save(qopt_session *s, qir_model *m, const char *out,
			int link)
{
	qir_save_opts so = QIR_SAVE_OPTS_INIT;
	qir_error err = { 0 };
	struct qm_settings g;

	qm_settings(s->qm, &g);
	if (g.external_threshold >= 0)
		so.external_threshold = (uint64_t)g.external_threshold;
	so.external_name = g.external_name;
	so.all_inline = g.all_inline > 0;
	so.threads = s->threads;
	so.link_external = link;
	if (qir_model_save(m, out, &so, &err) < 0)
		return fail(s, err.code ? err.code : QOPT_EIO, "%s: %s", out,
			    err.msg);
	return QOPT_OK;
}

static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static qopt_status run_file(qopt_session *s, const char *in,
			    const char *out, int link)
{
	qir_load_opts lo = QIR_LOAD_OPTS_INIT;
	qir_error err = { 0 };
	qir_model *m = NULL;
	qopt_status rc;

	if (!in)
		return fail(s, QOPT_EUSAGE, "qopt_session_run_file: NULL input");
	if (out && same_file(in, out))
		return fail(s, QOPT_EUSAGE,
			    "output '%s' is the input model; the input is never written",
			    out);
	if ((rc = begin(s)))
		return rc;
	snprintf(s->input, sizeof(s->input), "%s", in);
	/* A linked run's input has the links of the earlier linked runs
	 * (its caller loaded and checked it first, when it had none). */
	lo.links_ok = link;
	if (qir_model_load(in, &lo, &m, &err) < 0)
		return fail(s, err.code ? err.code : QOPT_EIO, "%s: %s", in,
			    err.msg);
	rc = run(s, m);
	if (!rc && out)
		rc = save(s, m, out, link);
	qir_model_free(m);
	return rc;
}

qopt_status qopt_session_run_file(qopt_session *s, const char *in,
				  const char *out)
{
	return run_file(s, in, out, 0);
}

qopt_status qm_pub_run_file_linked(qopt_session *s, const char *in,
				   const char *out)
{
	return run_file(s, in, out, 1);
}

const char *qopt_session_failed_pass(const qopt_session *s)
{
	return qm_failed_pass(s->qm);
}

/* ---- what is registered, and the report ---- */

size_t qopt_session_npasses(qopt_session *s)
{
	if (!s->in_run)
		(void)load(s, 1);
	return qm_npasses(s->qm);
}

qopt_status qopt_session_pass_at(qopt_session *s, size_t i,
				 qopt_pass_desc *d)
{
	struct qm_entry e;

	if (!d || d->size < sizeof(*d))
		return fail(s, QOPT_EUSAGE,
			    "pass_at: the descriptor's size is not sizeof(qopt_pass_desc) (%zu)",
			    sizeof(*d));
	if (i >= qm_npasses(s->qm))
		return fail(s, QOPT_ENOTFOUND, "pass_at: no pass %zu (%zu known)",
			    i, qm_npasses(s->qm));
	qm_pass_at(s->qm, i, &e);
	d->size = sizeof(*d);
	d->name = e.name;
	d->summary = e.summary;
	d->plugin = e.plugin;
	d->options = e.options;
	d->noptions = e.nopts;
	return QOPT_OK;
}

qopt_status qopt_session_report_json(const qopt_session *s, char **out)
{
	if (!out)
		return QOPT_EUSAGE;
	*out = s->input[0] ? qm_stats_json(s->qm, s->input) : NULL;
	if (*out)
		return QOPT_OK;
	return s->input[0] ? QOPT_ENOMEM : QOPT_EUSAGE;
}

void qopt_free(void *p)
{
	free(p);
}

/* ---- for the library's modules (session-pub.h) ---- */

qm_session *qm_pub_manager(qopt_session *s)
{
	return s->qm;
}

void qm_pub_params(const qopt_session *s, int *threads, int *strict)
{
	struct qm_settings g;

	qm_settings(s->qm, &g);
	*threads = s->threads;
	*strict = s->strict || g.strict > 0;
}

qopt_status qm_pub_prepare(qopt_session *s, qk_device *dev)
{
	struct qm_settings g;
	qopt_status rc = QOPT_OK;
	int strict;

	if (s->in_run)
		return fail(s, QOPT_EUSAGE, "a run was started from inside a hook");
	if (!s->have_pipeline)
		return fail(s, QOPT_EUSAGE, "no pipeline: set one before the run");
	if (s->refused)
		return fail(s, QOPT_EUSAGE, "the session's pipeline was refused (see above)");
	if (!s->resolved)
		rc = resolve(s);
	if (rc)
		return rc;
	qm_settings(s->qm, &g);
	strict = s->strict || g.strict > 0;
	if ((rc = device(s, dev)) || (rc = add_manager_hooks(s, strict)))
		return rc;
	qm_set_verbosity(s->qm, s->verbosity, strict);
	return QOPT_OK;
}

qopt_status qm_pub_attach(qopt_session *s, void *ext,
			  void (*free_fn)(void *ext))
{
	if (s->ext_free)
		return fail(s, QOPT_EUSAGE, "calibration was set for this "
			    "session already");
	s->ext = ext;
	s->ext_free = free_fn;
	return QOPT_OK;
}

const char *qm_pub_input(qopt_session *s)
{
	return s->input;
}

qopt_status qm_pub_fail(qopt_session *s, qopt_status code, const char *msg)
{
	return fail(s, code, "%s", msg);
}

static int copy_strv(qopt_session *c, char ***v, size_t *n, char *const *from,
		     size_t nfrom)
{
	size_t i;

	for (i = 0; i < nfrom; i++)
		if (push(c, v, n, from[i]))
			return -1;
	return 0;
}

qopt_session *qm_pub_child(const qopt_session *parent, const qm_session *qm)
{
	qopt_session *c = qopt_session_new();

	if (!c)
		return NULL;
	if (parent) {
		c->threads = parent->threads;
		c->device = parent->device;
		qm = parent->qm;
		if (copy_strv(c, &c->dirs, &c->ndirs, parent->dirs,
			      parent->ndirs) ||
		    copy_strv(c, &c->loads, &c->nloads, parent->loads,
			      parent->nloads)) {
			qopt_session_free(c);
			return NULL;
		}
	}
	if (qm_set_builtin_dir(c->qm, qm_builtin_dir(qm))) {
		qopt_session_free(c);
		return NULL;
	}
	return c;
}
