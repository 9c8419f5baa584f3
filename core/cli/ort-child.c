/*
 * core/cli/ort-child.c - the bound on an ONNX Runtime child and the
 * wait that keeps it (ort-child.h).
 *
 * ONNX Runtime can spin in `run` for ever (1.30 on a Conv over zero
 * input channels), so no wait on its child may be unbounded: a hung
 * calibration or plan would hold a CI job or a bisect until someone
 * notices. The wait polls (waitpid WNOHANG, a few ms growing to 50 ms)
 * rather than arming SIGALRM: qopt's stop signals and their guard
 * (qm_guard_*) stay as they are, and nothing global changes.
 */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "cli/ort-child.h"

/* The default bound: a base, plus per sample a base and a term per GiB
 * of model (a forward pass costs about the model's size); generous:
 * it is there to end a hang, not to time a run. */
#define BOUND_BASE_S 600
#define BOUND_SAMPLE_S 10
#define BOUND_GIB_S 60
/* a year: more is no bound worth saying */
#define BOUND_MAX_S 31536000L
/* SIGTERM's grace before SIGKILL */
#define GRACE_S 5

/* Digits only (no sign, space or exponent), as cli_parse_uint reads
 * them; not called from here so that cli.c, which parses the option,
 * and this file do not call each other. */
int cli_ort_timeout_parse(const char *s, long *out)
{
	long v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > BOUND_MAX_S)
			return -1;
		v = v * 10 + (*s - '0');
	}
	if (v > BOUND_MAX_S)
		return -1;
	*out = v;
	return 0;
}

long cli_ort_timeout(long given, uint64_t bytes, long samples, char *why,
		     size_t whyn)
{
	const char *env = getenv("QOPT_ORT_TIMEOUT");
	double gib = (double)bytes / (1024.0 * 1024 * 1024), t;
	long v;

	if (given >= 0)
		return given;
	if (env && *env) {
		if (cli_ort_timeout_parse(env, &v) == 0)
			return v;
		snprintf(why, whyn, "QOPT_ORT_TIMEOUT takes seconds from 0 "
			 "(no bound) to %ld, got '%.64s'", BOUND_MAX_S, env);
		return -1;
	}
	if (samples < 1)
		samples = 1;
	t = BOUND_BASE_S + (double)samples * (BOUND_SAMPLE_S +
					       BOUND_GIB_S * gib);
	return t < BOUND_MAX_S ? (long)t : BOUND_MAX_S;
}

uint64_t cli_model_bytes(const char *file)
{
	char data[4200];
	struct stat st;
	uint64_t n = 0;

	if (stat(file, &st) == 0)
		n += (uint64_t)st.st_size;
	snprintf(data, sizeof(data), "%s.data", file);
	if (stat(data, &st) == 0)
		n += (uint64_t)st.st_size;
	return n;
}

long cli_count_samples(const char *data, long random)
{
	struct dirent *e;
	struct stat st;
	char path[8400];
	long n = 0;
	DIR *d;

	if (!data)
		return random;
	d = opendir(data);
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", data, e->d_name);
			n += stat(path, &st) == 0 && S_ISDIR(st.st_mode);
		}
	if (d)
		closedir(d);
	return n ? n : 1;
}

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
