/*
 * ir/file/atomic_file.c - outputs appear complete or not at all: written to
 * a temporary file in the target's folder (same file system, so the
 * final rename is atomic), fsync'd, then renamed over the target.
 * Only a regular file (or a symlink, which is replaced, never
 * followed) is ever renamed over; temporary files still open are
 * listed for a signal handler to remove (fio_atomic_cleanup).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "file/atomic_file.h"
#include "file/code.h"
#include "file/kind.h"
#include "file/stops.h"

/* Fills msg and returns code, so a failure is one statement. */
static int fail(char *msg, size_t msgn, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(char *msg, size_t msgn, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (msg && msgn)
		vsnprintf(msg, msgn, fmt, ap);
	va_end(ap);
	return code;
}

/* Temporary files being written, for fio_atomic_cleanup (a signal
 * handler): a slot holds the path from creation until the file is
 * renamed or removed. Slots are claimed under a lock-free exchange so
 * a handler never sees a half-written entry. */
#define LIVE_SLOTS 32
static char *volatile live[LIVE_SLOTS];

static void live_add(char *path)
{
	for (int i = 0; i < LIVE_SLOTS; i++) {
		char *expect = NULL;

		if (__atomic_compare_exchange_n(&live[i], &expect, path, 0,
						__ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST))
			return;
	}
}

static void live_del(const char *path)
{
	for (int i = 0; i < LIVE_SLOTS; i++) {
		char *expect = (char *)path;

		if (__atomic_compare_exchange_n(&live[i], &expect, NULL, 0,
						__ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST))
			return;
	}
}

void fio_atomic_cleanup(void)
{
	int saved = errno;

	for (int i = 0; i < LIVE_SLOTS; i++) {
		char *p = __atomic_load_n(&live[i], __ATOMIC_SEQ_CST);

		if (p)
			unlink(p);
	}
	errno = saved;
}

/* Only regular files are replaced (a symlink is replaced by the new
 * file; its target is left alone): a rename over /dev/null or a FIFO
 * would put a regular file in its place. */
static int target_ok(const char *path, char *msg, size_t msgn)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? FIO_OK :
		       fail(msg, msgn, FIO_EIO, "cannot write '%s': %s", path,
			    strerror(errno));
	if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
		return FIO_OK;
	return fail(msg, msgn, FIO_EKIND,
		    "cannot write '%s': it is %s; qopt only replaces regular files",
		    path, fio_file_kind(st.st_mode));
}

/* dir/.NAME.XXXXXX: NAME cut so the whole stays within NAME_MAX, so any
 * legal output name has a legal temporary name. */
static char *tmp_name(const char *final_path)
{
	char *copy1 = strdup(final_path), *copy2 = strdup(final_path);
	char *out = NULL;
	size_t n;

	if (copy1 && copy2) {
		const char *dir = dirname(copy1), *base = basename(copy2);

		n = strlen(dir) + strlen(base) + 16;
		out = malloc(n);
		if (out)
			snprintf(out, n, "%s/.%.*s.XXXXXX", dir,
				 NAME_MAX - 8, base);
	}
	free(copy1);
	free(copy2);
	return out;
}

/* Fills the XXXXXX and creates the file; 0666 so the kernel applies the
 * process umask (mkstemp's 0600 would need the umask read, and reading
 * it means setting it). */
static int create_tmp(char *path)
{
	static const char digits[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	size_t n = strlen(path);
	int tries;

	for (tries = 0; tries < 100; tries++) {
		struct timespec ts;
		uint64_t r;
		int fd;

		clock_gettime(CLOCK_REALTIME, &ts);
		r = (uint64_t)ts.tv_nsec * 2654435761u ^
		    ((uint64_t)getpid() << 32) ^ (uint64_t)tries * 0x9e3779b97f4a7c15u;
		for (int i = 0; i < 6; i++) {
			path[n - 6 + i] = digits[r % 62];
			r /= 62;
		}
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC |
			  O_NOFOLLOW, 0666);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

/* Creates the file and lists it for the signal handler with the stop
 * signals held back, so that a stop between the two cannot leave a
 * file the handler does not know about. */
static int create_tmp_listed(char *path)
{
	sigset_t old;
	int fd, e;

	fio_stops_hold(&old);
	fd = create_tmp(path);
	e = errno;
	if (fd >= 0)
		live_add(path);
	fio_stops_release(&old);
	errno = e;
	return fd;
}

int fio_atomic_open(struct fio_atomic_file *f, const char *final_path,
		    char *msg, size_t msgn)
{
	struct stat st;
	int rc;

	f->fd = -1;
	f->tmp_path = NULL;
	f->final_path = NULL;
	/* Found now, not at the final rename: by then a data file may
	 * already have been committed beside it. */
	if (stat(final_path, &st) == 0 && S_ISDIR(st.st_mode))
		return fail(msg, msgn, FIO_EKIND,
			    "cannot write '%s': it is a directory", final_path);
	rc = target_ok(final_path, msg, msgn);
	if (rc)
		return rc;
	f->final_path = strdup(final_path);
	f->tmp_path = tmp_name(final_path);
	if (!f->final_path || !f->tmp_path) {
		free(f->final_path);
		free(f->tmp_path);
		f->final_path = f->tmp_path = NULL;
		return fail(msg, msgn, FIO_ENOMEM, "out of memory");
	}
	f->fd = create_tmp_listed(f->tmp_path);
	if (f->fd < 0) {
		int e = errno;

		free(f->tmp_path);
		free(f->final_path);
		f->final_path = f->tmp_path = NULL;
		return fail(msg, msgn, FIO_EIO,
			    "cannot create a file beside '%s': %s", final_path,
			    strerror(e));
	}
	return FIO_OK;
}

int fio_atomic_sync(struct fio_atomic_file *f, char *msg, size_t msgn)
{
	if (fsync(f->fd) == 0)
		return FIO_OK;
	return fail(msg, msgn, FIO_EIO, "cannot write '%s': %s",
		    f->final_path, strerror(errno));
}

int fio_atomic_commit(struct fio_atomic_file *f, char *msg, size_t msgn)
{
	int e, rc;

	if (fsync(f->fd) < 0)
		goto fail;
	if (close(f->fd) < 0) {
		f->fd = -1;
		goto fail;
	}
	f->fd = -1;
	rc = target_ok(f->final_path, msg, msgn);
	if (rc) {
		fio_atomic_abort(f);
		return rc;
	}
	if (rename(f->tmp_path, f->final_path) < 0)
		goto fail;
	live_del(f->tmp_path);
	free(f->tmp_path);
	free(f->final_path);
	f->tmp_path = f->final_path = NULL;
	return FIO_OK;
fail:
	e = errno;
	rc = fail(msg, msgn, FIO_EIO, "cannot write '%s': %s",
		  f->final_path, strerror(e));
	fio_atomic_abort(f);
	return rc;
}

void fio_atomic_abort(struct fio_atomic_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (f->tmp_path) {
		unlink(f->tmp_path);
		live_del(f->tmp_path);
	}
	free(f->tmp_path);
	f->tmp_path = NULL;
	free(f->final_path);
	f->final_path = NULL;
}

