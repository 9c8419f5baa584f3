/*
 * ir/file/direct_io.c - O_DIRECT writes beside buffered ones.
 *
 * A buffered write of a fresh page costs the kernel a zeroed (or read)
 * page-cache page and a copy into it, and writeback later; O_DIRECT
 * sends the caller's pages to the device instead. It wants aligned
 * offsets, lengths and memory, and the page cache must not hold a copy
 * of a page written past it while another write of that page goes
 * through the cache: so only whole pages go direct, and the partial
 * pages at the ends of a range (shared with the neighbouring bytes,
 * which other writes put there) go through the ordinary descriptor.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include "file/direct_io.h"
#include "file/write_all.h"

/* One direct write at most this big (a multiple of any page size;
 * Linux caps a write near 2 GiB). */
#define DIRECT_MAX (1u << 30)

int fio_direct_open(int fd)
{
#if defined(O_DIRECT) && defined(__linux__)
	struct stat a, b;
	char proc[64];
	int d;

	/* Not fcntl(F_SETFL, O_DIRECT): that would change fd's own open
	 * file description, which other writes use unaligned. */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	d = open(proc, O_WRONLY | O_DIRECT | O_CLOEXEC);
	if (d < 0)
		return -1;
	if (fstat(fd, &a) || fstat(d, &b) || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino) {
		close(d);
		errno = ENOENT;
		return -1;
	}
	return d;
#else
	(void)fd;
	errno = ENOTSUP;
	return -1;
#endif
}

/* The file system will not write this direct. */
static int refusal(int e)
{
	return e == EINVAL || e == EOPNOTSUPP || e == ENOTSUP;
}

/* [p, +len) at off through dfd; a refusal finishes it through fd. */
static int direct_span(int dfd, int fd, const uint8_t *p, uint64_t len,
		       uint64_t off, int *refused)
{
	while (len) {
		size_t n = len > DIRECT_MAX ? DIRECT_MAX : (size_t)len;
		ssize_t w = pwrite(dfd, p, n, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && refusal(errno)) {
			__atomic_store_n(refused, 1, __ATOMIC_RELAXED);
			/* A short direct write before may have left off
			 * inside a page; a buffered write of the rest
			 * reads that page from the device, after the
			 * direct write completed: coherent. */
			return fio_pwrite_all(fd, p, len, off);
		}
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

int fio_direct_pwrite(int dfd, int fd, const void *buf, uint64_t len,
		      uint64_t off, int *refused)
{
	const uint8_t *p = buf;
	long sz = sysconf(_SC_PAGESIZE);
	uint64_t pg = sz > 0 ? (uint64_t)sz : 4096, lo, hi;

	lo = (off + pg - 1) & ~(pg - 1);
	hi = (off + len) & ~(pg - 1);
	if (dfd < 0 || __atomic_load_n(refused, __ATOMIC_RELAXED) ||
	    (((uintptr_t)p ^ off) & (pg - 1)) || hi <= lo)
		return fio_pwrite_all(fd, p, len, off);
	if (lo > off && fio_pwrite_all(fd, p, lo - off, off))
		return -1;
	if (direct_span(dfd, fd, p + (lo - off), hi - lo, lo, refused))
		return -1;
	if (off + len > hi && fio_pwrite_all(fd, p + (hi - off),
					     off + len - hi, hi))
		return -1;
	return 0;
}
