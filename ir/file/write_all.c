/*
 * ir/file/write_all.c - write(2) and pwrite(2) may write less than asked
 * (a signal, a full pipe, Linux's 2 GiB cap per call): these loop until
 * everything is written or a real error comes back.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>
#include "file/write_all.h"

/* Linux caps one write at about 2 GiB. */
#define WRITE_MAX (1u << 30)

/* One loop for both: at the file position when off is NULL, else at
 * *off (advanced as bytes land). */
static int write_loop(int fd, const uint8_t *p, uint64_t len, uint64_t *off)
{
	while (len) {
		size_t n = len > WRITE_MAX ? WRITE_MAX : (size_t)len;
		ssize_t w = off ? pwrite(fd, p, n, (off_t)*off) :
				  write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			return -1;
		}
		p += w;
		if (off)
			*off += (uint64_t)w;
		len -= (uint64_t)w;
	}
	return 0;
}

int fio_write_all(int fd, const void *buf, size_t len)
{
	return write_loop(fd, buf, len, NULL);
}

int fio_pwrite_all(int fd, const void *buf, uint64_t len, uint64_t off)
{
	return write_loop(fd, buf, len, &off);
}

void fio_start_writeback(int fd, uint64_t off, uint64_t n)
{
#ifdef SYNC_FILE_RANGE_WRITE
	(void)sync_file_range(fd, (off_t)off, (off_t)n, SYNC_FILE_RANGE_WRITE);
#else
	(void)fd;
	(void)off;
	(void)n;
#endif
}
