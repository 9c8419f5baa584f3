/*
 * ir/file/kind.h - naming what a path is, for messages
 * (ir/file/kind.c).
 */
#ifndef QOPT_IR_FILE_KIND_H
#define QOPT_IR_FILE_KIND_H

#include <sys/stat.h>

/* "a FIFO", "a character device", ...; static text. */
const char *fio_file_kind(mode_t mode);

#endif /* QOPT_IR_FILE_KIND_H */
