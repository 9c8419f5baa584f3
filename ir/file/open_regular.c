/*
 * ir/file/open_regular.c - inputs (model, pipeline, external data) are read
 * only from regular files, and the check comes before the open: opening
 * a FIFO for reading blocks until a writer appears, and opening a device
 * can have effects of its own. The file opened is then checked to be
 * the one looked at, so a swap in between is refused too.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include "file/kind.h"
#include "file/open_regular.h"

int fio_open_regular(const char *path, int flags, struct stat *st,
		     const char **kind)
{
	struct stat before;
	int fd;

	*kind = NULL;
	if (((flags & O_NOFOLLOW) ? lstat(path, &before) :
	     stat(path, &before)) < 0)
		return -1;
	if (!S_ISREG(before.st_mode)) {
		*kind = fio_file_kind(before.st_mode);
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | flags);
	if (fd < 0)
		return -1;
	if (fstat(fd, st) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	if (!S_ISREG(st->st_mode) || st->st_dev != before.st_dev ||
	    st->st_ino != before.st_ino) {
		close(fd);
		*kind = S_ISREG(st->st_mode) ?
			"a file that changed while being opened" :
			fio_file_kind(st->st_mode);
		return -1;
	}
	/* Reads block normally from here on. */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}
