/*
 * core/manager/session.h - the state of one pass-manager session, private
 * to core/manager (users see qm_session as an opaque handle through
 * core/manager/session-api.h).
 */
#ifndef QOPT_PM_SESSION_H
#define QOPT_PM_SESSION_H

#include "manager/session-api.h"
#include "manager/run.h"

struct qm_session {
	int max_level;		/* messages above it are dropped */
	int strict;		/* warnings shown as errors */
	unsigned nwarnings;	/* warnings printed so far */
	int bar_shown;		/* a progress bar is on the terminal line */
	int tty;		/* stderr is a terminal; -1: not asked yet */
	qm_sink_fn *sink;	/* NULL: stderr */
	void *sink_arg;
	qm_diag_fn *diag;	/* set: qm_msg's messages go here, not to sink */
	void *diag_arg;
	char *builtin_dir;	/* NULL: the installed folder; "": none */
	FILE *data;		/* NULL: stdout */
	/* What qm_parse, qm_load_plugins, qm_run_begin made. */
	struct pm_registry *reg;
	struct pm_pipeline pl;
	int have_pl;
	struct pm_run run;
	int have_run;
	struct qm_hook *hooks;	/* in the order added */
	size_t nhooks;
	/* Asked of the manager by the built-in hooks (hooks.c). */
	int hash_changes;	/* print-changed: check *changed by hash */
	int progress;		/* the progress bar is drawn */
	int strict_run;		/* qopt_is_strict() says yes */
	struct pm_run_opts gate; /* bisect's limit, printing, recording */
	int bisect_hooked;	/* the bisect hook is added */
	int in_hooks;		/* qm_run or qm_report is calling hooks */
};

/* Calls that free or rebuild what a running qm_run or qm_report holds
 * (the run, the pipeline, the registry) are refused from inside a hook:
 * 1 after saying so (call names the refused call), else 0. */
int pm_session_busy(pm_session *s, const char *call);

/* The hooks' side of a stage (manager.c calls them in order). */
int pm_hooks_before(struct pm_run *r, const struct qm_pass_event *e,
		    qir_model *m);
int pm_hooks_after(struct pm_run *r, const struct qm_pass_event *e,
		   qir_model *m);
void pm_hooks_failed(struct pm_run *r, const struct qm_pass_event *e,
		     qir_model *m);
int pm_hooks_run_end(struct pm_run *r, qir_model *m);
void pm_hooks_free(pm_session *s);
/* Text as it is into the session's sink. */
void pm_emit(pm_session *s, int level, const char *text);

#endif
