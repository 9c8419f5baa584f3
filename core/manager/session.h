/*
 * core/manager/session.h - the state of one pass-manager session, private
 * to core/manager (the CLI sees pm_session as an opaque handle).
 */
#ifndef QOPT_PM_SESSION_H
#define QOPT_PM_SESSION_H

#include "manager/msg.h"

struct pm_session {
	int max_level;		/* messages above it are dropped */
	int strict;		/* warnings shown as errors */
	unsigned nwarnings;	/* warnings printed so far */
	int bar_shown;		/* a progress bar is on the terminal line */
	int tty;		/* stderr is a terminal; -1: not asked yet */
};

#endif
