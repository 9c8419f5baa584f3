/*
 * core/manager/outfile.c - qopt's own output files (--stats-json, bisect's
 * log) go through the IR's atomic file: written beside the target,
 * renamed over it only when complete, removed by the signal handler
 * while unfinished, never replacing anything but a regular file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "manager/sys.h"
#include <qopt/file.h>

struct qm_outfile {
	qir_outfile *f;
	char *path;
	FILE *fp;
};

pm_outfile *pm_outfile_open(const char *path, FILE **fp, qir_error *err)
{
	pm_outfile *o = calloc(1, sizeof(*o));
	int fd;

	if (!o) {
		qir_fail(err, QIR_ENOMEM, "out of memory");
		return NULL;
	}
	o->path = strdup(path);
	o->f = o->path ? qir_outfile_open(path, err) : NULL;
	if (!o->f) {
		if (!o->path)
			qir_fail(err, QIR_ENOMEM, "out of memory");
		free(o->path);
		free(o);
		return NULL;
	}
	/* The stream gets its own descriptor: fclose must not close the
	 * one the commit fsyncs. */
	fd = dup(qir_outfile_fd(o->f));
	o->fp = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!o->fp) {
		if (fd >= 0)
			close(fd);
		qir_fail(err, QIR_ENOMEM, "out of memory");
		pm_outfile_abort(o);
		return NULL;
	}
	*fp = o->fp;
	return o;
}

/* Flushes the stream; the file stays temporary. */
static int finish_stream(pm_outfile *o, qir_error *err)
{
	int bad = ferror(o->fp);

	if (fclose(o->fp) != 0)
		bad = 1;
	o->fp = NULL;
	if (bad)
		return qir_fail(err, QIR_EIO, "cannot write '%s'",
				o->path);
	return qir_outfile_sync(o->f, err);
}

int pm_outfile_ready(pm_outfile *o, qir_error *err)
{
	if (!o->fp)
		return 0;
	return finish_stream(o, err);
}

int pm_outfile_commit(pm_outfile *o, qir_error *err)
{
	int rc = pm_outfile_ready(o, err);

	if (!rc) {
		rc = qir_outfile_commit(o->f, err);
		o->f = NULL;
	}
	pm_outfile_abort(o);
	return rc;
}

void pm_outfile_abort(pm_outfile *o)
{
	if (!o)
		return;
	if (o->fp)
		fclose(o->fp);
	qir_outfile_abort(o->f);
	free(o->path);
	free(o);
}
