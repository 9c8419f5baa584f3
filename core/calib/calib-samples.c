/*
 * core/calib/calib-samples.c - the sample files of `qopt calibrate --data`
 * are checked in C before node starts: a FIFO or a device named x.npy
 * would block the script or feed it forever, and a malformed .npy
 * header is best named here, with the file, rather than as a stack
 * trace. The script (tools/qopt-calibrate.js) reads the same files with
 * the same bound, so a file swapped in between is still caught there.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <qopt/file.h>
#include "calib/calib-samples.h"

/* ---- the folder walk -------------------------------------------- */

static int is_pb_name(const char *f)
{
	size_t k = 6;

	if (strncmp(f, "input_", 6) || !isdigit((unsigned char)f[6]))
		return 0;
	while (isdigit((unsigned char)f[k]))
		k++;
	return !strcmp(f + k, ".pb");
}

static int is_npy_name(const char *f)
{
	size_t n = strlen(f);

	return n > 4 && !strcmp(f + n - 4, ".npy");
}

static char *join(const char *dir, const char *f)
{
	char *p = malloc(strlen(dir) + strlen(f) + 2);

	if (p)
		sprintf(p, "%s/%s", dir, f);
	return p;
}

static int check_file(const char *path, int npy, char *why, size_t whyn)
{
	struct stat st;
	const char *kind = NULL;
	char inner[512];
	int fd = qir_open_regular(path, O_RDONLY | O_NONBLOCK, &st, &kind);
	int rc = 0;

	if (fd < 0) {
		if (kind)
			snprintf(why, whyn, "%s: %s, not a regular file; a "
				 "sample must be one", path, kind);
		else
			snprintf(why, whyn, "%s: %s", path, strerror(errno));
		return -1;
	}
	if ((long long)st.st_size > CALIB_SAMPLE_MAX_BYTES) {
		snprintf(why, whyn, "%s: %lld bytes; a sample file may hold "
			 "at most %lld", path, (long long)st.st_size,
			 (long long)CALIB_SAMPLE_MAX_BYTES);
		rc = -1;
	} else if (npy && calib_npy_check(fd, (long long)st.st_size, inner,
					  sizeof(inner))) {
		snprintf(why, whyn, "%s: %s", path, inner);
		rc = -1;
	}
	close(fd);
	return rc;
}

static int push(struct calib_samples *s, char *path)
{
	char **grown = realloc(s->files, (s->n + 1) * sizeof(*grown));

	if (!grown) {
		free(path);
		return -1;
	}
	s->files = grown;
	s->files[s->n++] = path;
	return 0;
}

static int check_sample(const char *dir, struct calib_samples *s,
			char *why, size_t whyn)
{
	struct dirent **e = NULL;
	int n = scandir(dir, &e, NULL, alphasort), k, rc = 0;

	if (n < 0) {
		snprintf(why, whyn, "%s: %s", dir, strerror(errno));
		return -1;
	}
	for (k = 0; k < n; k++) {
		const char *f = e[k]->d_name;
		int npy = is_npy_name(f);
		char *path;

		if (!rc && (npy || is_pb_name(f))) {
			path = join(dir, f);
			if (!path || push(s, path)) {
				snprintf(why, whyn, "out of memory");
				rc = -1;
			} else {
				rc = check_file(path, npy, why, whyn);
			}
		}
		free(e[k]);
	}
	free(e);
	return rc;
}

/* --data FILE: one .npy (the model's one input) or .npz (one array per
 * input), N samples on the first axis. */
static int check_batch(const char *data, struct calib_samples *s,
		       char *why, size_t whyn)
{
	struct stat st;
	struct calib_npy in;
	const char *kind = NULL;
	char inner[512];
	size_t l = strlen(data);
	int npz = l > 4 && !strcmp(data + l - 4, ".npz"), fd, rc = -1;
	uint64_t n = 1;
	char *copy;

	if (!npz && !is_npy_name(data)) {
		snprintf(why, whyn, "%s: not a folder, an .npz or a .npy file",
			 data);
		return -1;
	}
	copy = strdup(data);
	if (!copy || push(s, copy)) {
		snprintf(why, whyn, "out of memory");
		return -1;
	}
	fd = qir_open_regular(data, O_RDONLY | O_NONBLOCK, &st, &kind);
	if (fd < 0) {
		snprintf(why, whyn, "%s: %s", data, kind ? kind :
			 strerror(errno));
		return -1;
	}
	if ((long long)st.st_size > CALIB_SAMPLE_MAX_BYTES) {
		snprintf(inner, sizeof(inner), "%lld bytes; a sample file may "
			 "hold at most %lld", (long long)st.st_size,
			 (long long)CALIB_SAMPLE_MAX_BYTES);
		rc = -1;
	} else if (npz) {
		rc = calib_npz_check(fd, (long long)st.st_size, &n, inner,
				     sizeof(inner));
	} else {
		rc = calib_npy_check_at(fd, 0, (long long)st.st_size, &in,
					inner, sizeof(inner));
		if (!rc && in.rank < 1) {
			snprintf(inner, sizeof(inner), "shape (): no sample "
				 "axis (a batch is [N, *input shape])");
			rc = -1;
		}
		n = rc ? 1 : in.dim0;
	}
	if (!rc && !n) {
		snprintf(inner, sizeof(inner), "0 samples (the first axis is "
			 "0)");
		rc = -1;
	}
	close(fd);
	if (rc)
		snprintf(why, whyn, "%s: %s", data, inner);
	return rc;
}

int calib_samples_check(const char *data, struct calib_samples *s,
			char *why, size_t whyn)
{
	struct dirent **e = NULL;
	struct stat st;
	int n, k, nsub = 0, rc = 0;

	s->files = NULL;
	s->n = 0;
	if (stat(data, &st) < 0) {
		snprintf(why, whyn, "%s: %s", data, strerror(errno));
		return -1;
	}
	if (S_ISREG(st.st_mode))
		return check_batch(data, s, why, whyn);
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, whyn, "%s: not a folder, an .npz or a .npy file",
			 data);
		return -1;
	}
	n = scandir(data, &e, NULL, alphasort);
	if (n < 0) {
		snprintf(why, whyn, "%s: %s", data, strerror(errno));
		return -1;
	}
	/* Sub-folders are the samples; without any, the folder is one. */
	for (k = 0; k < n; k++) {
		char *p = NULL;

		if (strcmp(e[k]->d_name, ".") && strcmp(e[k]->d_name, "..") &&
		    !rc && (p = join(data, e[k]->d_name)) &&
		    stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			nsub++;
			rc = check_sample(p, s, why, whyn);
		}
		free(p);
		free(e[k]);
	}
	free(e);
	if (!rc && !nsub)
		rc = check_sample(data, s, why, whyn);
	return rc;
}

void calib_samples_free(struct calib_samples *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->files[i]);
	free(s->files);
	s->files = NULL;
	s->n = 0;
}
