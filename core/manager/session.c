/*
 * core/manager/session.c - a pass-manager session: what a run of the
 * manager remembers between calls (message level, --strict, the warnings
 * counted, the progress bar, the sink, the hooks) and what it owns (the
 * registry, the pipeline, the last run), held by its caller rather than
 * in globals, so two sessions in one process do not see each other.
 */
#include <stdlib.h>
#include "manager/session.h"

pm_session *pm_session_new(void)
{
	pm_session *s = calloc(1, sizeof(*s));

	if (s) {
		s->max_level = QOPT_LOG_INFO;
		s->tty = -1;
		s->gate.bisect_limit = -1;
	}
	return s;
}

void pm_session_free(pm_session *s)
{
	if (!s)
		return;
	qm_run_end(s);
	if (s->have_pl)
		pm_pipeline_free(&s->pl);
	pm_registry_free(s->reg);
	pm_hooks_free(s);
	free(s->builtin_dir);
	free(s);
}

qm_session *qm_session_new(void)
{
	return pm_session_new();
}

void qm_session_free(qm_session *s)
{
	pm_session_free(s);
}
