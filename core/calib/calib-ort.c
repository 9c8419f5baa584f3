/*
 * core/calib/calib-ort.c - the bound on an ONNX Runtime run of a
 * calibration or plan job (calib-ort.h): what the library hands a
 * runner as timeout_s, and what the qopt program's own children get.
 */
#include "config.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "calib/calib-ort.h"

/* The default bound: a base, plus per sample a base and a term per GiB
 * of model (a forward pass costs about the model's size); generous:
 * it is there to end a hang, not to time a run. */
#define BOUND_BASE_S 600
#define BOUND_SAMPLE_S 10
#define BOUND_GIB_S 60
/* a year: more is no bound worth saying */
#define BOUND_MAX_S 31536000L

/* Digits only (no sign, space or exponent), as the command line reads
 * its numbers, so that what is checked is what is used. */
int calib_ort_timeout_parse(const char *s, long *out)
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

long calib_ort_timeout(long given, uint64_t bytes, long samples, char *why,
		     size_t whyn)
{
	const char *env = getenv("QOPT_ORT_TIMEOUT");
	double gib = (double)bytes / (1024.0 * 1024 * 1024), t;
	long v;

	if (given >= 0)
		return given;
	if (env && *env) {
		if (calib_ort_timeout_parse(env, &v) == 0)
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

uint64_t calib_model_bytes(const char *file)
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

long calib_count_samples(const char *data, long random)
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
