/*
 * ir/file/write_all.h - writes that finish (ir/file/write_all.c).
 */
#ifndef QOPT_IR_FILE_WRITE_ALL_H
#define QOPT_IR_FILE_WRITE_ALL_H

#include <stddef.h>
#include <stdint.h>

/* Writes all of buf (retrying short writes and EINTR). 0, or -1 with
 * errno set. */
int fio_write_all(int fd, const void *buf, size_t len);
/* Writes all of buf at offset off (retrying short writes; a write of
 * nothing is EIO). 0, or -1 with errno set. */
int fio_pwrite_all(int fd, const void *buf, uint64_t len, uint64_t off);
/* Starts writing [off, off + n) of fd to disk without waiting, so that
 * the fsync before a rename finds most of the file written instead of
 * the whole file's writeback coming after the last byte. A hint: where
 * it fails (not a regular file, no such call) that fsync does the
 * work. */
void fio_start_writeback(int fd, uint64_t off, uint64_t n);

#endif /* QOPT_IR_FILE_WRITE_ALL_H */
