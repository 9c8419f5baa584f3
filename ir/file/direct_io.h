/*
 * ir/file/direct_io.h - writes that bypass the page cache
 * (ir/file/direct_io.c): a second descriptor of a file with O_DIRECT,
 * and a positioned write that sends the whole pages of its range
 * through it and the partial pages at either end through the ordinary
 * descriptor.
 */
#ifndef QOPT_IR_FILE_DIRECT_IO_H
#define QOPT_IR_FILE_DIRECT_IO_H

#include <stdint.h>

/* A new open file description of fd's file, write-only, with O_DIRECT
 * (caller owns it: close it), or -1 with errno: EINVAL where the file
 * system refuses O_DIRECT (ramfs; tmpfs before Linux 6.6), ENOENT
 * without /proc, ENOTSUP on a system without O_DIRECT. */
int fio_direct_open(int fd);

/* Writes [buf, +len) at off of the file that fd and dfd (from
 * fio_direct_open(fd)) both open. The pages wholly inside the range go
 * through dfd, the partial pages at its ends through fd: no page is
 * written both ways, so the page cache never holds a stale copy of a
 * page written past it. That needs buf and off to agree modulo the page
 * size (the caller lays its buffer out so); where they do not, or
 * dfd is -1, everything goes through fd. When dfd refuses a write
 * (EINVAL, EOPNOTSUPP: the file system's alignment is not the page
 * size, or it has no direct I/O for this file), that write is done
 * through fd and *refused (shared between threads) is set, which turns
 * every later call buffered too. 0, or -1 with errno. */
int fio_direct_pwrite(int dfd, int fd, const void *buf, uint64_t len,
		      uint64_t off, int *refused);

#endif /* QOPT_IR_FILE_DIRECT_IO_H */
