/*
 * core/cli/outpath.c - where qopt may write, decided before any work.
 *
 * qopt replaces only regular files: an output path naming a device, a
 * FIFO, a socket or a directory is a usage error, because the atomic
 * rename would put a regular file in its place (as root, over
 * /dev/null). /dev/null itself (that character device, by number, not
 * a symlink to it) means "discard": everything runs, nothing is
 * written. A symlink at the output path is replaced by the new file;
 * its target is left alone.
 * No file qopt writes may be the input model or another of its outputs.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <qopt/file.h>
#include "cli/cli.h"
#include "cli/outpath.h"

static int is_dev_null(const struct stat *st)
{
	struct stat dn;

	return S_ISCHR(st->st_mode) && stat("/dev/null", &dn) == 0 &&
	       S_ISCHR(dn.st_mode) && dn.st_rdev == st->st_rdev;
}

int cli_outpath_check(qm_session *s, const char *opt, const char *path, int *discard)
{
	struct stat st;
	char *copy;
	int rc = 0;

	*discard = 0;
	if (!*path) {
		qm_say(s, QOPT_LOG_ERROR, "qopt: error: %s needs a file name, got ''\n", opt);
		return QOPT_EXIT_USAGE;
	}
	if (lstat(path, &st) == 0) {
		if (is_dev_null(&st)) {
			*discard = 1;
			return 0;
		}
		/* A symlink is replaced, never followed. */
		if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
			return 0;
		qm_say(s, QOPT_LOG_ERROR, "qopt: error: %s '%s' is %s; qopt only replaces regular files (/dev/null discards)\n",
			opt, path, qir_file_kind(st.st_mode));
		return QOPT_EXIT_USAGE;
	}
	if (errno != ENOENT && errno != ENOTDIR) {
		qm_say(s, QOPT_LOG_ERROR, "qopt: error: %s '%s': %s\n", opt, path,
			strerror(errno));
		return QOPT_EXIT_USAGE;
	}
	copy = strdup(path);
	if (!copy)
		return QOPT_EXIT_FAIL;
	if (stat(dirname(copy), &st) < 0 || !S_ISDIR(st.st_mode)) {
		qm_say(s, QOPT_LOG_ERROR, "qopt: error: %s '%s': its folder %s\n", opt,
			path, errno == ENOENT ? "does not exist" :
			"is not a folder");
		rc = QOPT_EXIT_USAGE;
	}
	free(copy);
	return rc;
}

/* The folder resolved, the last component as given: two spellings of
 * one place compare equal even when the file does not exist yet. */
static char *canonical(const char *path)
{
	char *c1 = strdup(path), *c2 = strdup(path), *dir = NULL, *out = NULL;

	if (c1 && c2 && (dir = realpath(dirname(c1), NULL))) {
		const char *base = basename(c2);

		out = malloc(strlen(dir) + strlen(base) + 2);
		if (out)
			sprintf(out, "%s/%s", dir, base);
	}
	free(dir);
	free(c1);
	free(c2);
	return out;
}

int cli_same_path(const char *a, const char *b)
{
	struct stat sa, sb;
	char *ca, *cb;
	int same;

	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	ca = canonical(a);
	cb = canonical(b);
	same = ca && cb && !strcmp(ca, cb);
	free(ca);
	free(cb);
	return same;
}

char *cli_data_path(const char *output, const char *external_name)
{
	return qir_model_data_path(output, external_name);
}
