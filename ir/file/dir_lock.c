/*
 * ir/file/dir_lock.c - two runs writing one output each take the lock of
 * the output's folder around their renames, so the model and its data
 * file always come from the same run.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include "file/dir_lock.h"

int fio_dir_lock(const char *dir, char *msg, size_t msgn)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(msg, msgn, "cannot open the folder '%s': %s", dir,
			 strerror(errno));
		return -1;
	}
	while (flock(fd, LOCK_EX) < 0) {
		int e = errno;

		if (e == EINTR)
			continue;
		close(fd);
		/* A file system without locks: commit unlocked, as
		 * before. */
		if (e == ENOLCK || e == EOPNOTSUPP || e == EINVAL)
			return -2;
		snprintf(msg, msgn, "cannot lock the folder '%s': %s", dir,
			 strerror(e));
		return -1;
	}
	return fd;
}

void fio_dir_unlock(int fd)
{
	if (fd >= 0)
		close(fd);	/* releases the flock */
}
