/*
 * core/cli/setup.c - from the command line and the pipeline's [qopt]
 * settings to a session with its plugins loaded, its pipeline resolved,
 * its hooks registered and a device picked (the search order of the
 * plugins is the manager's: core/manager/api.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qopt/upgrade.h>
#include "cli/cli.h"

int cli_setup(struct cli_opts *c, const char *passes)
{
	struct qm_plugins p = {
		.dirs = c->plugin_dirs, .ndirs = c->nplugin_dirs,
		.files = c->loads, .nfiles = c->nloads,
		.need = c->help_pass, .all = c->list_passes,
	};
	int rc;

	rc = qm_parse(c->s, c->pipeline_file,
		      c->pipeline_file ? NULL :
		      c->passes_inline ? c->passes_inline : passes);
	if (!rc)
		rc = qm_load_plugins(c->s, &p);
	if (!rc)
		rc = qm_resolve(c->s);
	return rc;
}

static qk_device pick_device(const struct cli_opts *c,
			     const struct qm_settings *g)
{
	const char *env = getenv("QOPT_DEVICE");
	const char *name = c->device;

	if (!name && env && *env)
		name = env;
	if (!name)
		name = g->device;
	if (!name)
		return QK_DEVICE_AUTO;
	return (qk_device)qk_device_from_name(name);
}

/* Why CUDA cannot be used, as the kernels tell it (the module's own
 * sentence: no driver, a refused table, no device), for the error. */
static void cuda_reason(char *buf, size_t len)
{
	qk_ctx *k = qk_ctx_new(QK_DEVICE_CUDA, 1);
	float one = 1.0f, a;

	snprintf(buf, len, "not built in, or no device answers");
	if (!k)
		return;
	if (qk_amax(k, QIR_FLOAT, &one, 1, &a) &&
	    qk_ctx_stats(k)->fallback_reason[0])
		snprintf(buf, len, "%s", qk_ctx_stats(k)->fallback_reason);
	qk_ctx_free(k);
}

/* The hooks the flags and [qopt] ask for, in the order they act: the
 * bisect gate before a pass; --strict, --verify-each, the prints and
 * the progress bar after it; --stats and --time-passes at the end. */
static int add_hooks(struct cli_opts *c, const struct qm_settings *g)
{
	qm_session *s = c->s;
	int strict = c->strict || g->strict > 0;
	int print = c->print_after_all || c->print_changed ||
		    c->nprint_after;

	if (!strcmp(c->cmd, "calibrate"))
		return (strict && qm_hook_strict(s)) ||
		       qm_hook_progress(s) || qm_hook_calibration(s) ? -1 : 0;
	if (qm_hook_bisect(s, c->bisect_given ? c->bisect_limit : -1,
			   c->bisect_given, 0) ||
	    (strict && qm_hook_strict(s)) ||
	    ((c->verify_each || g->verify_each > 0) &&
	     qm_hook_verify_each(s)) ||
	    (print && qm_hook_print(s, c->print_after_all, c->print_changed,
				    (const char *const *)c->print_after,
				    c->nprint_after)) ||
	    qm_hook_progress(s) || (c->stats && qm_hook_stats(s)) ||
	    (c->time_passes && qm_hook_time_passes(s)))
		return -1;
	return 0;
}

int cli_run_begin(struct cli_opts *c, qk_device *device)
{
	struct qm_settings g;
	char why[160];
	int dev;

	qm_settings(c->s, &g);
	dev = pick_device(c, &g);
	if (dev < 0) {
		qm_say(c->s, QOPT_LOG_ERROR,
		       "qopt: error: QOPT_DEVICE expects cpu, cuda or auto, got '%s'\n",
		       getenv("QOPT_DEVICE"));
		return QOPT_EXIT_USAGE;
	}
	if (dev == QK_DEVICE_CUDA && !qk_cuda_available()) {
		cuda_reason(why, sizeof(why));
		qm_say(c->s, QOPT_LOG_ERROR,
		       "qopt: error: device cuda requested, but CUDA is not available: %s\n",
		       why);
		return QOPT_EXIT_FAIL;
	}
	if (add_hooks(c, &g) < 0) {
		qm_say(c->s, QOPT_LOG_ERROR, "qopt: error: out of memory\n");
		return QOPT_EXIT_FAIL;
	}
	if (strcmp(c->cmd, "calibrate"))
		qm_set_verbosity(c->s, qm_verbosity(c->s),
				 c->strict || g.strict > 0);
	*device = (qk_device)dev;
	return QOPT_EXIT_OK;
}

void cli_save_opts(const struct cli_opts *c, qir_save_opts *so)
{
	struct qm_settings g;

	qm_settings(c->s, &g);
	memset(so, 0, sizeof(*so));
	if (c->external_threshold >= 0)
		so->external_threshold = (uint64_t)c->external_threshold;
	else if (g.external_threshold >= 0)
		so->external_threshold = (uint64_t)g.external_threshold;
	so->external_name = c->external_name ? c->external_name :
			    g.external_name;
	so->all_inline = c->all_inline || g.all_inline > 0;
	so->threads = c->threads;
}

/* A later opset may have changed operators this qopt's passes read:
 * they would misread them without a word. */
static void warn_new_opset(qm_session *s, const char *path,
			   const qir_model *m)
{
	int64_t opset = qir_model_opset(m, ""), known = qir_upgrade_max_opset();

	if (opset > known)
		qm_msg(s, QOPT_LOG_WARN, path,
		       "the model's opset %lld is newer than the newest this qopt knows (%lld): operators changed since may be misread",
		       (long long)opset, (long long)known);
}

/* The writer writes a later IR version as the newest it knows (a
 * runtime refuses one it does not know): said, not silently changed. */
static void warn_new_ir(qm_session *s, const char *path, const qir_model *m)
{
	int64_t known = qir_opset_min_ir_version(qir_upgrade_max_opset());

	if (m->ir_version > known)
		qm_msg(s, QOPT_LOG_WARN, path,
		       "the model's IR version %lld is newer than the newest this qopt knows (%lld): its content is read as IR %lld's, and an output is written as IR %lld",
		       (long long)m->ir_version, (long long)known,
		       (long long)known, (long long)known);
}

qir_model *cli_load(qm_session *s, const char *path)
{
	qir_error err = { 0 };
	qir_model *m = NULL;

	if (qir_model_load(path, NULL, &m, &err) < 0) {
		qm_say(s, QOPT_LOG_ERROR, "qopt: %s: error: %s\n", path,
		       err.msg);
		return NULL;
	}
	warn_new_opset(s, path, m);
	warn_new_ir(s, path, m);
	if (qir_model_load_reordered(m))
		qm_msg(s, QOPT_LOG_INFO, path,
			 "note: nodes were not in topological order; sorted them (%zu node%s moved)",
			 qir_model_load_reordered(m),
			qir_model_load_reordered(m) == 1 ? "" : "s");
	for (size_t i = 0; i < qir_model_load_notes(m); i++) {
		const char *note = qir_model_load_note(m, i);

		if (!note) {
			qm_msg(s, QOPT_LOG_INFO, path,
			       "note: %zu more declared type%s disagree with inference",
			       qir_model_load_notes(m) - i,
			       qir_model_load_notes(m) - i == 1 ? "" : "s");
			break;
		}
		qm_msg(s, QOPT_LOG_INFO, path, "note: %s", note);
	}
	return m;
}
