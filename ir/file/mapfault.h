/*
 * ir/file/mapfault.h - file mappings whose faults are errors, not
 * crashes (ir/file/mapfault.c). Private to libqopt; programs reach it
 * through qopt/file.h's qir_map_fault and qir_map_faulted.
 */
#ifndef QOPT_IR_FILE_MAPFAULT_H
#define QOPT_IR_FILE_MAPFAULT_H

#include <stddef.h>

enum fio_map_kind {
	FIO_MAP_INPUT,	/* a file qopt reads: a fault means it shrank */
	FIO_MAP_OUTPUT,	/* a file qopt writes: the file system refused */
};

/* Registers [addr, addr + len), a mapping of path with protection
 * prot, until fio_map_del(addr). When the registry cannot grow (out of
 * memory) the mapping stays unregistered: a fault there is a crash, as
 * before. */
void fio_map_add(const void *addr, size_t len, int prot, const char *path,
		 enum fio_map_kind kind);
/* Before the mapping at addr is unmapped: 1 when an access to it
 * faulted (the file system refused a page of an output), else 0. */
int fio_map_del(const void *addr);
/* From a SIGBUS handler, async-signal-safe: 1 when addr is in a
 * registered mapping, whose page is then replaced by a zero page so
 * the access completes; the fault is recorded. 0 otherwise. */
int fio_map_fault(const void *addr);
/* FIO_OK when no input mapping has faulted; else FIO_EIO with the
 * message naming the first file that changed. */
int fio_map_check(char *msg, size_t msgn);
/* The message for an input that changed under qopt. */
void fio_map_changed(char *msg, size_t msgn, const char *path);

#endif /* QOPT_IR_FILE_MAPFAULT_H */
