/*
 * ir/model/outfile.c - the public face (qopt/file.h) of the file layer
 * (ir/file/): the atomic writer the model saver uses, so programs on
 * libqopt share its cleanup list, and the regular-file checks on
 * inputs. Failures become qir_errors here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <qopt/file.h>
#include "model/internal.h"
#include "file/atomic_file.h"
#include "file/kind.h"
#include "file/mapfault.h"
#include "file/open_regular.h"
#include "file/read_file.h"

struct qir_outfile {
	struct fio_atomic_file f;
};

qir_outfile *qir_outfile_open(const char *path, qir_error *err)
{
	qir_outfile *o = calloc(1, sizeof(*o));
	char msg[sizeof(err->msg)];
	int rc;

	if (!o) {
		qir_fail(err, QIR_ENOMEM, "out of memory");
		return NULL;
	}
	rc = fio_atomic_open(&o->f, path, msg, sizeof(msg));
	if (rc) {
		ir_fail_file(err, rc, msg);
		free(o);
		return NULL;
	}
	return o;
}

int qir_outfile_fd(const qir_outfile *o)
{
	return o->f.fd;
}

int qir_outfile_sync(qir_outfile *o, qir_error *err)
{
	char msg[sizeof(err->msg)];
	int rc = fio_atomic_sync(&o->f, msg, sizeof(msg));

	return rc ? ir_fail_file(err, rc, msg) : 0;
}

int qir_outfile_commit(qir_outfile *o, qir_error *err)
{
	char msg[sizeof(err->msg)];
	int rc = fio_atomic_commit(&o->f, msg, sizeof(msg));

	qir_outfile_abort(o);
	return rc ? ir_fail_file(err, rc, msg) : 0;
}

void qir_outfile_abort(qir_outfile *o)
{
	if (!o)
		return;
	fio_atomic_abort(&o->f);
	free(o);
}

void qir_outfile_remove_all(void)
{
	fio_atomic_cleanup();
}

int qir_map_fault(const void *addr)
{
	return fio_map_fault(addr);
}

int qir_map_faulted(qir_error *err)
{
	char msg[sizeof(err->msg)];
	int rc = fio_map_check(msg, sizeof(msg));

	return rc ? ir_fail_file(err, rc, msg) : 0;
}

int qir_open_regular(const char *path, int flags, struct stat *st,
		     const char **kind)
{
	return fio_open_regular(path, flags, st, kind);
}

const char *qir_file_kind(mode_t mode)
{
	return fio_file_kind(mode);
}

char *qir_read_file(const char *path, int flags, size_t max, size_t *len,
		    qir_error *err)
{
	char msg[sizeof(err->msg)], named[sizeof(err->msg) + 64], *data;
	size_t n;
	int rc = fio_read_file(path, flags, max, &data, &n, msg, sizeof(msg));

	if (rc) {
		snprintf(named, sizeof(named), "'%s': %s", path, msg);
		ir_fail_file(err, rc, named);
		return NULL;
	}
	if (len)
		*len = n;
	return data;
}
