/*
 * qopt/session.h - the pass manager as a library (ABI 4.4): what the qopt
 * command does, for a program that links libqopt (pkg-config: qopt).
 *
 * A session owns the passes it found (the built-in ones, plugin folders,
 * files), one pipeline and its last run, as MLIR's PassManager does:
 *
 *	qopt_session *s = qopt_session_new();
 *	qopt_session_pipeline_passes(s, "fp8");
 *	qopt_session_run_file(s, "model.onnx", "model-fp8.onnx");
 *	qopt_session_free(s);
 *
 * Every call returns a qopt_status; why a call failed goes to the
 * session's diagnostic callback (default: stderr, as the qopt command
 * prints it). Handles are opaque; structs the caller fills or reads
 * begin with their size, so a later minor can append fields (the rule
 * of docs/plugin-abi.md). Two sessions in one process keep their own
 * passes, pipeline and messages; runs are one at a time per process
 * (the crash guard names one running pass), not from two threads.
 * docs/library.md has the whole story.
 */
#ifndef QOPT_SESSION_H
#define QOPT_SESSION_H

#include <stddef.h>
#include <qopt/pass.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct qopt_session qopt_session;

/* One message of the manager, of a pass (qopt_log) or of the library.
 * Strings are borrowed for the call only. An error's code is QOPT_EPASS
 * when a pass said it (or the manager about a pass), QOPT_EUSAGE for a
 * problem of the pipeline or a call, or the status of the failed call
 * (a load's QOPT_EPARSE, ...); a warning --strict turns into an error
 * comes as QOPT_LOG_ERROR with QOPT_ESTRICT. node and tensor are the
 * names the message quotes as "node 'x'" and "tensor 'x'" (or "value",
 * "initializer"). */
typedef struct qopt_diag {
	unsigned size;		/* sizeof(qopt_diag) as libqopt filled it */
	int severity;		/* QOPT_LOG_ERROR / _WARN / _INFO / _DEBUG */
	qopt_status code;	/* QOPT_OK for info/debug; the status for errors */
	const char *pass;	/* the pass (or file) that said it, or NULL */
	const char *node;	/* a node it names ("node 'x'"), or NULL */
	const char *tensor;	/* a tensor/value it names, or NULL */
	const char *message;	/* no "qopt: PASS: error: " prefix, no newline */
} qopt_diag;
typedef void qopt_diag_fn(void *arg, const qopt_diag *d);

/* NULL when out of memory. Free: NULL is a no-op; never from a hook. */
qopt_session *qopt_session_new(void);
void qopt_session_free(qopt_session *s);
/* fn NULL: back to stderr. Messages above the verbosity never come. */
void qopt_session_set_diag(qopt_session *s, qopt_diag_fn *fn, void *arg);

/* Settings, before the pipeline is set:
 *   "verbosity"    0 error, 1 warn, 2 info (default), 3 debug
 *   "strict"       0/1: warnings fail the run (QOPT_ESTRICT)
 *   "verify_each"  0/1: the verifier after every pass
 *   "threads"      N >= 0 (0: one per core)
 *   "device"       cpu, cuda or auto (default; [qopt] device otherwise)
 *   "plugin_dir"   a folder of plugins, searched as qopt -L (repeatable)
 *   "load"         a plugin file, as qopt --load (repeatable)
 *   "builtin_dir"  where the built-in passes are (default: the installed
 *                  folder; "" for none)
 * Unknown key or bad value: QOPT_EUSAGE with a diagnostic naming it. */
qopt_status qopt_session_set(qopt_session *s, const char *key,
			     const char *value);

/* The pipeline, once per session (a second: QOPT_EUSAGE): INI text
 * (name is what messages call it, "<string>" when NULL; relative paths
 * in it start from the current folder), an INI file, or a pass list as
 * qopt --passes takes it ("fp8,autocast:to=float16"). Plugins are
 * loaded and the pipeline resolved here: a problem of the pipeline (its
 * syntax, an unknown pass, a bad option) is QOPT_EUSAGE, a plugin that
 * cannot be used QOPT_EPLUGIN, each after its diagnostics (errors,
 * naming the pipeline and its line). A refused pipeline stays refused:
 * a run then fails with QOPT_EUSAGE. */
qopt_status qopt_session_pipeline_ini(qopt_session *s, const char *text,
				      const char *name);
qopt_status qopt_session_pipeline_file(qopt_session *s, const char *path);
qopt_status qopt_session_pipeline_passes(qopt_session *s, const char *list);
/* Or step by step: a pass and its options as key/value pairs (kv:
 * key0, value0, key1, value1, ..., NULL; kv NULL: none), values as an
 * INI file writes them. Calls accumulate until the first run, which
 * resolves them; then QOPT_EUSAGE. */
qopt_status qopt_session_add_pass(qopt_session *s, const char *pass,
				  const char *const *kv);

/* Hooks around every pass, called in the order added. before returns
 * 0 (run the pass), 1 (skip it) or -1 (the run fails, QOPT_EPASS);
 * after returns 0, or -1 (the run fails). Either may be NULL. The model
 * is the one being rewritten: a hook may read it, and must leave it
 * valid. *id identifies the hook for qopt_session_remove_hook. */
typedef struct qopt_pass_event {
	unsigned size;		/* sizeof(qopt_pass_event) as libqopt filled it */
	size_t index;		/* the stage, 0-based */
	const char *pass;	/* the pass's name */
	const char *pipeline;	/* the named pipeline it came from, or NULL */
	int changed;		/* after: the pass changed the model */
	qopt_status status;	/* after: the pass's status (a failed pass too) */
} qopt_pass_event;
typedef struct qopt_hook {
	unsigned size;		/* sizeof(qopt_hook) */
	int (*before)(void *arg, const qopt_pass_event *e, qir_model *m);
	int (*after)(void *arg, const qopt_pass_event *e, qir_model *m);
	void *arg;
} qopt_hook;
/* h is copied. QOPT_EUSAGE for a size this libqopt does not know or
 * from inside a hook; QOPT_ENOMEM. */
qopt_status qopt_session_add_hook(qopt_session *s, const qopt_hook *h,
				  int *id);
/* QOPT_ENOTFOUND for an id not added (or removed already). */
qopt_status qopt_session_remove_hook(qopt_session *s, int id);

/* Runs the pipeline on a model in memory: m is rewritten in place and
 * stays the caller's. Or on a file: loaded, run and written to out
 * atomically (a temporary file renamed over out), with external data
 * as the qopt command writes it ([qopt] external_* settings); out NULL
 * runs without writing. The input is never written. A failed pass:
 * its status (QOPT_EPASS or the pass's own code), diagnostics with
 * .pass set, and qopt_session_failed_pass() names it. */
qopt_status qopt_session_run(qopt_session *s, qir_model *m);
qopt_status qopt_session_run_file(qopt_session *s, const char *in,
				  const char *out);
/* The pass that failed the last run; NULL if none. Borrowed. */
const char *qopt_session_failed_pass(const qopt_session *s);

/* The passes the session can run (loads every plugin it can find on
 * the first call, after the plugin settings). i in [0, n); d->size
 * set by the caller. Strings borrowed until qopt_session_free. */
typedef struct qopt_pass_desc {
	unsigned size;		/* sizeof(qopt_pass_desc), set by the caller */
	const char *name, *summary, *plugin;
	const qopt_option_spec *options;	/* NULL-name terminated */
	size_t noptions;
} qopt_pass_desc;
size_t qopt_session_npasses(qopt_session *s);
qopt_status qopt_session_pass_at(qopt_session *s, size_t i,
				 qopt_pass_desc *d);

/* The last run's report as JSON, what qopt --stats-json writes. *out
 * is malloc'ed: free it with qopt_free. QOPT_EUSAGE before a run. */
qopt_status qopt_session_report_json(const qopt_session *s, char **out);
void qopt_free(void *p);

/* Calibration measured for a run (qopt_session_calibration) and
 * `qopt calibrate` in process (qopt_session_calibrate) are declared with
 * their runner by the calibration module's header, <qopt/calib.h>. */

#ifdef __cplusplus
}
#endif

#endif /* QOPT_SESSION_H */
