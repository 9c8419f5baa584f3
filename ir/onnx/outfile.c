/*
 * ir/onnx/outfile.c - the public face (qopt/file.h) of the atomic writer the
 * model saver uses, so programs on libqopt share its cleanup list.
 */
#include <stdlib.h>
#include <qopt/file.h>
#include "onnx/atomic_file.h"

struct qir_outfile {
	struct ir_atomic_file f;
};

qir_outfile *qir_outfile_open(const char *path, qir_error *err)
{
	qir_outfile *o = calloc(1, sizeof(*o));

	if (!o) {
		qir_fail(err, QIR_ENOMEM, "out of memory");
		return NULL;
	}
	if (ir_atomic_open(&o->f, path, err) < 0) {
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
	return ir_atomic_sync(&o->f, err);
}

int qir_outfile_commit(qir_outfile *o, qir_error *err)
{
	int rc = ir_atomic_commit(&o->f, err);

	qir_outfile_abort(o);
	return rc;
}

void qir_outfile_abort(qir_outfile *o)
{
	if (!o)
		return;
	ir_atomic_abort(&o->f);
	free(o);
}

void qir_outfile_remove_all(void)
{
	ir_atomic_cleanup();
}

int qir_open_regular(const char *path, int flags, struct stat *st,
		     const char **kind)
{
	return ir_open_regular(path, flags, st, kind);
}

const char *qir_file_kind(mode_t mode)
{
	return ir_file_kind(mode);
}
