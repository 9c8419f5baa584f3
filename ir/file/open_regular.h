/*
 * ir/file/open_regular.h - opening inputs that must be regular files
 * (ir/file/open_regular.c).
 */
#ifndef QOPT_IR_FILE_OPEN_REGULAR_H
#define QOPT_IR_FILE_OPEN_REGULAR_H

#include <sys/stat.h>

/* Opens path read-only if it is a regular file (checked before the
 * open, so a FIFO never blocks; flags may add O_NOFOLLOW). The
 * descriptor (the caller closes it) with st filled, or -1 with *kind
 * naming what the path is instead ("a FIFO", ...), or with *kind NULL
 * and errno set. */
int fio_open_regular(const char *path, int flags, struct stat *st,
		     const char **kind);

#endif /* QOPT_IR_FILE_OPEN_REGULAR_H */
