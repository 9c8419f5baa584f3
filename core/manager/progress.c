/*
 * core/manager/progress.c - a progress bar on stderr, only for a terminal
 * and only with the progress hook added (hooks.c); drawn through the
 * session's sink (level QM_LOG_PROGRESS).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <qopt/pass.h>
#include "manager/session.h"

#define BAR_WIDTH 30
#define BAR_INTERVAL 0.1	/* seconds between redraws */

double pm_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int want_bar(pm_session *s)
{
	return s && s->progress && pm_msg_tty(s) &&
	       pm_msg_level(s) >= QOPT_LOG_INFO;
}

void pm_ctx_progress(qopt_ctx *ctx, uint64_t done, uint64_t total,
		       const char *what)
{
	pm_session *s = ctx && ctx->run ? ctx->run->s : NULL;
	char bar[1024];
	double now;
	int pct, fill, i;
	size_t n;

	if (!ctx || !ctx->st || !total || !want_bar(s))
		return;
	if (done > total)
		done = total;
	pct = (int)(done * 100 / total);
	now = pm_now();
	/* Redraw at most every BAR_INTERVAL, but always show the end. */
	if (done < total && (pct == ctx->bar_pct ||
			     now - ctx->bar_last < BAR_INTERVAL))
		return;
	ctx->bar_last = now;
	ctx->bar_pct = pct;
	fill = pct * BAR_WIDTH / 100;
	snprintf(bar, sizeof(bar), "\r\033[K%s: [", ctx->st->name);
	n = strlen(bar);
	for (i = 0; i < BAR_WIDTH && n + 1 < sizeof(bar); i++)
		bar[n++] = i < fill ? '#' : ' ';
	snprintf(bar + n, sizeof(bar) - n, "] %3d%% %s%s", pct,
		 what ? what : "", done == total ? "\n" : "");
	pm_emit(s, QM_LOG_PROGRESS, bar);
	pm_msg_set_bar(s, done < total);
	if (done == total)
		ctx->bar_pct = -1;
	fflush(stderr);
}

void pm_ctx_finish_progress(qopt_ctx *ctx)
{
	pm_msg_clear_bar(ctx && ctx->run ? ctx->run->s : NULL);
}
