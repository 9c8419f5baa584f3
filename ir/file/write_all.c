/*
 * ir/file/write_all.c - write(2) and pwrite(2) may write less than asked
 * (a signal, a full pipe, Linux's 2 GiB cap per call): these loop until
 * everything is written or a real error comes back.
 */
#include <errno.h>
#include <unistd.h>
#include "file/write_all.h"

/* Linux caps one write at about 2 GiB. */
#define WRITE_MAX (1u << 30)

int fio_write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		size_t chunk = len > WRITE_MAX ? WRITE_MAX : len;
		ssize_t w = write(fd, p, chunk);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			return -1;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int fio_pwrite_all(int fd, const void *buf, uint64_t len, uint64_t off)
{
	const uint8_t *p = buf;

	while (len) {
		size_t n = len > WRITE_MAX ? WRITE_MAX : (size_t)len;
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
