/*
 * ir/file/read_file.c - the calibration file, a script's result and
 * other inputs small enough to hold whole: the size is checked on the
 * open descriptor before anything is allocated, so a huge or growing
 * file costs nothing, and only the size seen is read.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "file/code.h"
#include "file/open_regular.h"
#include "file/read_file.h"

/* Reads exactly len bytes; 0, or -1 with errno set (EIO when the file
 * ended early: it shrank since its size was taken). */
static int read_exact(int fd, char *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t k = read(fd, buf + got, len - got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (k == 0)
				errno = EIO;
			return -1;
		}
		got += (size_t)k;
	}
	return 0;
}

int fio_read_file(const char *path, int flags, size_t max, char **data,
		  size_t *len, char *msg, size_t msgn)
{
	struct stat st;
	const char *kind = NULL;
	char *buf;
	size_t n;
	int fd = fio_open_regular(path, flags, &st, &kind), e;

	*data = NULL;
	*len = 0;
	if (fd < 0) {
		snprintf(msg, msgn, "cannot open it: %s",
			 kind ? kind : strerror(errno));
		return kind ? FIO_EKIND : FIO_EIO;
	}
	if ((uint64_t)st.st_size > max) {
		snprintf(msg, msgn, "%lld bytes, more than the %zu allowed",
			 (long long)st.st_size, max);
		close(fd);
		return FIO_ETOOBIG;
	}
	n = (size_t)st.st_size;
	buf = malloc(n + 1);
	if (!buf) {
		snprintf(msg, msgn, "out of memory reading %zu bytes", n);
		close(fd);
		return FIO_ENOMEM;
	}
	if (read_exact(fd, buf, n) < 0) {
		e = errno;
		snprintf(msg, msgn, "cannot read it: %s", strerror(e));
		close(fd);
		free(buf);
		return FIO_EIO;
	}
	close(fd);
	buf[n] = 0;
	*data = buf;
	*len = n;
	return FIO_OK;
}
