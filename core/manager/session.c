/*
 * core/manager/session.c - a pass-manager session: what a run of the
 * manager remembers between calls (message level, --strict, the warnings
 * counted, the progress bar), held by its caller rather than in
 * globals, so two sessions in one process do not see each other.
 */
#include <stdlib.h>
#include "manager/session.h"

pm_session *pm_session_new(void)
{
	pm_session *s = calloc(1, sizeof(*s));

	if (s) {
		s->max_level = QOPT_LOG_INFO;
		s->tty = -1;
	}
	return s;
}

void pm_session_free(pm_session *s)
{
	free(s);
}
