/*
 * core/cli/ort-child.c - the wait that keeps an ONNX Runtime child
 * within its bound (ort-child.h; the bound: core/calib/calib-ort.c).
 *
 * ONNX Runtime can spin in `run` for ever (1.30 on a Conv over zero
 * input channels), so no wait on its child may be unbounded: a hung
 * calibration or plan would hold a CI job or a bisect until someone
 * notices. The wait polls (waitpid WNOHANG, a few ms growing to 50 ms)
 * rather than arming SIGALRM: qopt's stop signals and their guard
 * (qm_guard_*) stay as they are, and nothing global changes.
 */
#include "config.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "cli/ort-child.h"

/* SIGTERM's grace before SIGKILL */
#define GRACE_S 5

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* waitpid without blocking: pid when it ended, 0 when not yet, -1. */
static pid_t reap(pid_t pid, int *st)
{
	pid_t r;

	while ((r = waitpid(pid, st, WNOHANG)) < 0 && errno == EINTR)
		;
	return r;
}

/* Polls until pid ends or `until` (monotonic seconds; 0: never) passes:
 * as reap(). */
static pid_t reap_until(pid_t pid, double until, int *st)
{
	struct timespec nap = { 0, 2000000 };
	pid_t r;

	while ((r = reap(pid, st)) == 0) {
		if (until > 0 && now_s() >= until)
			return 0;
		nanosleep(&nap, NULL);
		if (nap.tv_nsec < 50000000)
			nap.tv_nsec *= 2;
	}
	return r;
}

int cli_child_wait(pid_t pid, int group, long seconds, int *st)
{
	pid_t target = group ? -pid : pid, r;

	r = reap_until(pid, seconds > 0 ? now_s() + seconds : 0, st);
	if (r == pid)
		return 0;
	if (r < 0)
		return -1;
	kill(target, SIGTERM);
	r = reap_until(pid, now_s() + GRACE_S, st);
	if (r == 0) {
		kill(target, SIGKILL);
		while ((r = waitpid(pid, st, 0)) < 0 && errno == EINTR)
			;
	}
	/* what the leader left in its group goes with it */
	if (group)
		kill(target, SIGKILL);
	return r == pid ? 1 : -1;
}
