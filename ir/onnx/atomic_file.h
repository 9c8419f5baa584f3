/*
 * ir/onnx/atomic_file.h - outputs written beside their target and renamed
 * over it (ir/onnx/atomic_file.c). Private to libqopt: the IR writer and
 * core's other outputs (--stats-json) share it.
 */
#ifndef QOPT_IR_ATOMIC_FILE_H
#define QOPT_IR_ATOMIC_FILE_H

#include <signal.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <qopt/ir.h>

struct ir_atomic_file {
	char *final_path;
	char *tmp_path;		/* NULL once committed or aborted */
	int fd;
};

/* Creates a temporary file in final_path's folder (mode 0666 less the
 * umask, as a plain creat would give). Fails (QIR_EUSAGE, naming the
 * kind) when final_path exists and is neither a regular file nor a
 * symlink; the commit checks again. */
int ir_atomic_open(struct ir_atomic_file *f, const char *final_path,
		     qir_error *err);
/* fsync only: lets a caller make two files durable before renaming
 * either. */
int ir_atomic_sync(struct ir_atomic_file *f, qir_error *err);
/* fsync, close, rename over final_path. */
int ir_atomic_commit(struct ir_atomic_file *f, qir_error *err);
/* Closes and unlinks the temporary file unless committed; frees. */
void ir_atomic_abort(struct ir_atomic_file *f);
/* Two runs writing one output: each takes an exclusive flock on the
 * output's folder around its renames, so the model and its data file
 * always come from the same run. Blocks while another holds it. The
 * descriptor (>= 0), -2 where the file system has no locks, or -1
 * with err set. */
int ir_dir_lock(const char *dir, qir_error *err);
void ir_dir_unlock(int fd);
/* Holds SIGINT, SIGTERM and SIGHUP back (old receives the previous
 * mask) until ir_stops_release: around steps a stop must not split,
 * such as committing a model and its data file. */
void ir_stops_hold(sigset_t *old);
void ir_stops_release(const sigset_t *old);
/* Unlinks every temporary file still open; async-signal-safe. */
void ir_atomic_cleanup(void);
/* "a FIFO", "a character device", ... for messages. */
const char *ir_file_kind(mode_t mode);
/* ---- ir/onnx/open_regular.c: inputs ------------------------------ */

/* Opens path read-only if it is a regular file (checked before the
 * open, so a FIFO never blocks; flags may add O_NOFOLLOW). -1 with
 * *kind naming what it is instead ("a FIFO", ...), or with *kind NULL
 * and errno set. */
int ir_open_regular(const char *path, int flags, struct stat *st,
		      const char **kind);

/* Writes all of buf (retrying short writes). */
int ir_write_all(int fd, const void *buf, size_t len);
/* Writes all of buf at offset off (retrying short writes; a write of
 * nothing is EIO). */
int ir_pwrite_all(int fd, const void *buf, uint64_t len, uint64_t off);

#endif /* QOPT_IR_ATOMIC_FILE_H */
