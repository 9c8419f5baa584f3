/*
 * ir/file/read_file.h - a small input read whole, with a size limit
 * (ir/file/read_file.c).
 */
#ifndef QOPT_IR_FILE_READ_FILE_H
#define QOPT_IR_FILE_READ_FILE_H

#include <stddef.h>

/* Reads the whole of path, opened as fio_open_regular does (flags
 * likewise), refusing a file of more than max bytes before reading
 * any. On FIO_OK *data holds the bytes plus a NUL after them (the
 * caller frees it) and *len their count; otherwise *data is NULL and
 * msg says why without naming the path ("cannot open it: a FIFO"), so
 * that the caller can say which file it was and what for. */
int fio_read_file(const char *path, int flags, size_t max, char **data,
		  size_t *len, char *msg, size_t msgn);

#endif /* QOPT_IR_FILE_READ_FILE_H */
