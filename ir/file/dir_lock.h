/*
 * ir/file/dir_lock.h - one run at a time renaming into a folder
 * (ir/file/dir_lock.c).
 */
#ifndef QOPT_IR_FILE_DIR_LOCK_H
#define QOPT_IR_FILE_DIR_LOCK_H

#include <stddef.h>

/* Takes an exclusive flock on dir, blocking while another process
 * holds it. The descriptor (>= 0, for fio_dir_unlock), -2 where the
 * file system has no locks, or -1 with msg filled. */
int fio_dir_lock(const char *dir, char *msg, size_t msgn);
/* Releases a lock fio_dir_lock returned (-2 is a no-op). */
void fio_dir_unlock(int fd);

#endif /* QOPT_IR_FILE_DIR_LOCK_H */
