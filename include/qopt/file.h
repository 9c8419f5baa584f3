/*
 * qopt/file.h - files written whole or not at all, and inputs that must
 * be regular files.
 *
 * For programs built on libqopt (the qopt command uses it for
 * --stats-json and bisect's folder). Passes never write files. The
 * model writer (qir_model_save) goes through the same mechanism, so one
 * qir_outfile_remove_all() in a signal handler removes every temporary
 * file the process is writing, the model's included.
 */
#ifndef QOPT_FILE_H
#define QOPT_FILE_H

#include <sys/stat.h>
#include <qopt/ir.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct qir_outfile qir_outfile;

/* Starts writing path: a temporary file beside it, replaced over path
 * only by qir_outfile_commit. Refuses (QIR_EUSAGE, naming the kind) a
 * path that exists and is not a regular file or a symlink. The handle
 * belongs to the caller until qir_outfile_commit or qir_outfile_abort
 * frees it. NULL with err set on failure. */
qir_outfile *qir_outfile_open(const char *path, qir_error *err);
/* The temporary file's descriptor; stays owned by the handle. */
int qir_outfile_fd(const qir_outfile *f);
/* fsync only, so a caller can make several files durable before
 * renaming any of them. */
int qir_outfile_sync(qir_outfile *f, qir_error *err);
/* fsync, close and rename over the final path; frees f either way. */
int qir_outfile_commit(qir_outfile *f, qir_error *err);
/* Closes and removes the temporary file unless committed; frees f.
 * NULL is a no-op. */
void qir_outfile_abort(qir_outfile *f);
/* Removes every temporary file of this process still being written.
 * Async-signal-safe: meant for SIGINT/SIGTERM/SIGHUP handlers. */
void qir_outfile_remove_all(void);

/* "a FIFO", "a directory", "a character device", ... for messages
 * about a path that is not what was asked for. Static text. */
const char *qir_file_kind(mode_t mode);

/* Opens path read-only only if it is a regular file, checked before
 * the open so a FIFO never blocks (flags may add O_NOFOLLOW). Returns
 * the descriptor (the caller closes it), or -1 with *kind naming what
 * the path is instead ("a FIFO", "a directory", ...), or with *kind
 * NULL and errno set. st receives the file's status. */
int qir_open_regular(const char *path, int flags, struct stat *st,
		     const char **kind);

/* ---- ABI 3.0 ---- */
/* Reads the whole of path, a regular file opened as qir_open_regular
 * does (flags likewise), refusing one of more than max bytes before
 * reading any: for inputs small enough to hold whole (a calibration
 * file). Returns the bytes followed by a NUL (the caller frees them)
 * with *len (may be NULL) their count, or NULL with err set, naming
 * the path: QIR_EUSAGE for a path that is not a regular file or is
 * larger than max, QIR_ENOMEM, QIR_EIO. */
char *qir_read_file(const char *path, int flags, size_t max, size_t *len,
		    qir_error *err);

/* (ABI 3.1) libqopt maps the files it reads (the model, its external data) and
 * parts of the data file it writes. An access there ends in SIGBUS
 * when the file cannot back the page: the input was truncated by
 * another process, or a copy-on-write file system (btrfs) that is
 * nearly full refused a page of the output. A program's SIGBUS handler
 * (SA_SIGINFO) passes si_addr: 1 when the address is in one of those
 * mappings, whose page is then replaced by a zero page so the access
 * completes, and the fault recorded: the handler just returns, and the
 * save fails (the output's name, or the input that changed) with
 * nothing written. 0 for any other address: a crash. Async-signal-safe. */
int qir_map_fault(const void *addr);
/* 0, or -1 with err naming the first input that changed while mapped
 * (a fault qir_map_fault caught); sticky for the process. */
int qir_map_faulted(qir_error *err);

#ifdef __cplusplus
}
#endif

#endif /* QOPT_FILE_H */
