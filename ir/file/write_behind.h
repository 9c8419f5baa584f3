/*
 * ir/file/write_behind.h - a thread that writes a batch of spans while
 * its poster computes the next (ir/file/write_behind.c): direct writes
 * wait for the device, and a worker that waits computes nothing.
 */
#ifndef QOPT_IR_FILE_WRITE_BEHIND_H
#define QOPT_IR_FILE_WRITE_BEHIND_H

#include <stddef.h>
#include <stdint.h>

/* One write of a batch: [buf, +len) at off, its whole pages through
 * the direct descriptor when direct (fio_direct_pwrite), its writeback
 * started after. */
struct fio_span {
	const void *buf;
	uint64_t len;
	uint64_t off;
	int direct;
};

struct fio_wb;

/* A write-behind thread for fd (dfd: its O_DIRECT descriptor or -1;
 * refused: fio_direct_pwrite's flag, shared), owned by the caller
 * (fio_wb_free), or NULL when out of memory or threads: the caller
 * then writes itself (fio_spans_write). */
struct fio_wb *fio_wb_new(int fd, int dfd, int *refused);
/* Waits until the batch posted before is written, then hands this one
 * (n spans, copied; their bytes must stay unchanged until the next
 * post or wait returns) to the thread. 0, or -1 with errno from the
 * batch before (which failed: this one is not posted). */
int fio_wb_post(struct fio_wb *w, const struct fio_span *s, size_t n);
/* Waits until the thread is idle: 0, or -1 with errno when the last
 * batch failed. */
int fio_wb_wait(struct fio_wb *w);
/* Waits, stops and frees w (NULL is a no-op). */
void fio_wb_free(struct fio_wb *w);

/* Writes n spans on the calling thread, stopping at the first error:
 * 0, or -1 with errno. */
int fio_spans_write(int fd, int dfd, int *refused, const struct fio_span *s,
		    size_t n);

#endif /* QOPT_IR_FILE_WRITE_BEHIND_H */
