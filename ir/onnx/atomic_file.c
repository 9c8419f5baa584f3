/*
 * ir/onnx/atomic_file.c - outputs appear complete or not at all: written to
 * a temporary file in the target's folder (same file system, so the
 * final rename is atomic), fsync'd, then renamed over the target.
 * Only a regular file (or a symlink, which is replaced, never
 * followed) is ever renamed over; temporary files still open are
 * listed for a signal handler to remove (ir_atomic_cleanup).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "onnx/onnx_io.h"

int ir_write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		/* Linux caps one write at about 2 GiB. */
		size_t chunk = len > (1u << 30) ? (1u << 30) : len;
		ssize_t w = write(fd, p, chunk);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int ir_pwrite_all(int fd, const void *buf, uint64_t len, uint64_t off)
{
	const uint8_t *p = buf;

	while (len) {
		size_t n = len > (1u << 30) ? (1u << 30) : (size_t)len;
		ssize_t w = pwrite(fd, p, n, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			return -1;
		}
		p += w;
		off += (uint64_t)w;
		len -= (uint64_t)w;
	}
	return 0;
}

/* Temporary files being written, for ir_atomic_cleanup (a signal
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

void ir_atomic_cleanup(void)
{
	int saved = errno;

	for (int i = 0; i < LIVE_SLOTS; i++) {
		char *p = __atomic_load_n(&live[i], __ATOMIC_SEQ_CST);

		if (p)
			unlink(p);
	}
	errno = saved;
}

const char *ir_file_kind(mode_t mode)
{
	if (S_ISREG(mode))
		return "a regular file";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISLNK(mode))
		return "a symbolic link";
	return "not a regular file";
}

/* Only regular files are replaced (a symlink is replaced by the new
 * file; its target is left alone): a rename over /dev/null or a FIFO
 * would put a regular file in its place. */
static int target_ok(const char *path, qir_error *err)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 :
		       qir_fail(err, QIR_EIO, "cannot write '%s': %s", path,
				strerror(errno));
	if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
		return 0;
	return qir_fail(err, QIR_EUSAGE,
			"cannot write '%s': it is %s; qopt only replaces regular files",
			path, ir_file_kind(st.st_mode));
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

void ir_stops_hold(sigset_t *old)
{
	sigset_t stops;

	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigaddset(&stops, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stops, old);
}

void ir_stops_release(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* Creates the file and lists it for the signal handler with the stop
 * signals held back, so that a stop between the two cannot leave a
 * file the handler does not know about. */
static int create_tmp_listed(char *path)
{
	sigset_t old;
	int fd, e;

	ir_stops_hold(&old);
	fd = create_tmp(path);
	e = errno;
	if (fd >= 0)
		live_add(path);
	ir_stops_release(&old);
	errno = e;
	return fd;
}

int ir_atomic_open(struct ir_atomic_file *f, const char *final_path,
		     qir_error *err)
{
	struct stat st;

	f->fd = -1;
	f->tmp_path = NULL;
	f->final_path = NULL;
	/* Found now, not at the final rename: by then a data file may
	 * already have been committed beside it. */
	if (stat(final_path, &st) == 0 && S_ISDIR(st.st_mode))
		return qir_fail(err, QIR_EUSAGE, "cannot write '%s': it is a directory",
				final_path);
	if (target_ok(final_path, err))
		return -1;
	f->final_path = strdup(final_path);
	f->tmp_path = tmp_name(final_path);
	if (!f->final_path || !f->tmp_path) {
		free(f->final_path);
		free(f->tmp_path);
		f->final_path = f->tmp_path = NULL;
		return qir_fail(err, QIR_ENOMEM, "out of memory");
	}
	f->fd = create_tmp_listed(f->tmp_path);
	if (f->fd < 0) {
		int e = errno;

		free(f->tmp_path);
		free(f->final_path);
		f->final_path = f->tmp_path = NULL;
		return qir_fail(err, QIR_EIO, "cannot create a file beside '%s': %s",
				final_path, strerror(e));
	}
	return 0;
}

int ir_atomic_sync(struct ir_atomic_file *f, qir_error *err)
{
	if (fsync(f->fd) == 0)
		return 0;
	qir_fail(err, QIR_EIO, "cannot write '%s': %s", f->final_path,
		 strerror(errno));
	return -1;
}

int ir_atomic_commit(struct ir_atomic_file *f, qir_error *err)
{
	int e;

	if (fsync(f->fd) < 0)
		goto fail;
	if (close(f->fd) < 0) {
		f->fd = -1;
		goto fail;
	}
	f->fd = -1;
	if (target_ok(f->final_path, err) < 0) {
		ir_atomic_abort(f);
		return -1;
	}
	if (rename(f->tmp_path, f->final_path) < 0)
		goto fail;
	live_del(f->tmp_path);
	free(f->tmp_path);
	free(f->final_path);
	f->tmp_path = f->final_path = NULL;
	return 0;
fail:
	e = errno;
	qir_fail(err, QIR_EIO, "cannot write '%s': %s", f->final_path,
		 strerror(e));
	ir_atomic_abort(f);
	return -1;
}

void ir_atomic_abort(struct ir_atomic_file *f)
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

int ir_dir_lock(const char *dir, qir_error *err)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return qir_fail(err, QIR_EIO, "cannot open the folder '%s': %s",
				dir, strerror(errno));
	while (flock(fd, LOCK_EX) < 0) {
		int e = errno;

		if (e == EINTR)
			continue;
		close(fd);
		/* A file system without locks: commit unlocked, as
		 * before. */
		if (e == ENOLCK || e == EOPNOTSUPP || e == EINVAL)
			return -2;
		return qir_fail(err, QIR_EIO, "cannot lock the folder '%s': %s",
				dir, strerror(e));
	}
	return fd;
}

void ir_dir_unlock(int fd)
{
	if (fd >= 0)
		close(fd);	/* releases the flock */
}
