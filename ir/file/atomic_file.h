/*
 * ir/file/atomic_file.h - outputs written beside their target and renamed
 * over it (ir/file/atomic_file.c). Private to libqopt: the model writer,
 * its data file and qopt/file.h's qir_outfile share it, so one cleanup
 * list holds every temporary file of the process.
 */
#ifndef QOPT_IR_FILE_ATOMIC_FILE_H
#define QOPT_IR_FILE_ATOMIC_FILE_H

#include <stddef.h>

struct fio_atomic_file {
	char *final_path;
	char *tmp_path;		/* NULL once committed or aborted */
	int fd;
};

/* Each call returns an enum fio_code (ir/file/code.h) and on failure
 * writes a message naming the path into msg[msgn]. */

/* Creates a temporary file in final_path's folder (mode 0666 less the
 * umask, as a plain creat would give). FIO_EKIND when final_path
 * exists and is neither a regular file nor a symlink; the commit
 * checks again. f belongs to the caller; fio_atomic_abort frees what
 * it holds. */
int fio_atomic_open(struct fio_atomic_file *f, const char *final_path,
		    char *msg, size_t msgn);
/* fsync only: lets a caller make two files durable before renaming
 * either. */
int fio_atomic_sync(struct fio_atomic_file *f, char *msg, size_t msgn);
/* fsync, close, rename over final_path; aborts on failure. */
int fio_atomic_commit(struct fio_atomic_file *f, char *msg, size_t msgn);
/* Closes and unlinks the temporary file unless committed; frees the
 * paths. Safe to call again. */
void fio_atomic_abort(struct fio_atomic_file *f);
/* Unlinks every temporary file still open; async-signal-safe. */
void fio_atomic_cleanup(void);

#endif /* QOPT_IR_FILE_ATOMIC_FILE_H */
