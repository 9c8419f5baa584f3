/*
 * ir/file/mapfault.c - a fault in a mapped file is an error, not a
 * crash.
 *
 * libqopt maps the files it reads (the model, its external data) and
 * parts of the data file it writes. An access to a mapped page the
 * file cannot back ends in SIGBUS: an input truncated by another
 * process while qopt runs, or an output page a copy-on-write or
 * compressed file system (btrfs) refuses when the disk is nearly full,
 * even after fallocate and MADV_POPULATE_WRITE succeeded (it reserves
 * again when the page is first written). The fault may come on any
 * thread (the data file is filled by workers), so the handler cannot
 * jump anywhere: it finds the mapping here, puts a zero page in place
 * of the one that failed so the access completes, and records the
 * fault. The code that owns the mapping asks afterwards and fails
 * with the file's name (the writer, before committing anything).
 *
 * Registrations take a lock; the handler takes none. Slots live in
 * blocks that are never freed, so it can walk them at any time; a
 * slot is live while its end is nonzero, published last with a
 * release store. The program installs the SIGBUS handler and calls
 * qir_map_fault from it (core/manager/guard.c does for qopt).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "file/code.h"
#include "file/mapfault.h"

#define SLOTS_PER_BLOCK 64

struct slot {
	uintptr_t start;
	uintptr_t end;		/* atomic; 0 while the slot is free */
	int prot;
	int kind;
	int faulted;		/* atomic */
	char *path;
};

struct block {
	struct slot s[SLOTS_PER_BLOCK];
	struct block *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct block *blocks;	/* atomic: read by the handler */
static uintptr_t page_size;	/* atomic; set with the first slot */

/* The first input that faulted, for fio_map_check: 0 none, 1 being
 * recorded, 2 recorded. */
static int input_state;
static char input_path[4096];

static struct slot *free_slot(void)
{
	struct block *b;

	for (b = blocks; b; b = b->next)
		for (size_t i = 0; i < SLOTS_PER_BLOCK; i++)
			if (!__atomic_load_n(&b->s[i].end, __ATOMIC_RELAXED))
				return &b->s[i];
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->next = blocks;
	__atomic_store_n(&blocks, b, __ATOMIC_RELEASE);
	return &b->s[0];
}

void fio_map_add(const void *addr, size_t len, int prot, const char *path,
		 enum fio_map_kind kind)
{
	struct slot *s;
	char *copy;

	if (!addr || !len || (uintptr_t)addr > UINTPTR_MAX - len)
		return;
	copy = strdup(path ? path : "?");
	if (!copy)
		return;
	pthread_mutex_lock(&lock);
	if (!page_size)
		__atomic_store_n(&page_size, (uintptr_t)sysconf(_SC_PAGESIZE),
				 __ATOMIC_RELEASE);
	s = free_slot();
	if (s) {
		s->start = (uintptr_t)addr;
		s->prot = prot;
		s->kind = kind;
		s->path = copy;
		__atomic_store_n(&s->faulted, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&s->end, (uintptr_t)addr + len,
				 __ATOMIC_RELEASE);
	} else {
		free(copy);
	}
	pthread_mutex_unlock(&lock);
}

int fio_map_del(const void *addr)
{
	int faulted = 0;

	pthread_mutex_lock(&lock);
	for (struct block *b = blocks; b; b = b->next)
		for (size_t i = 0; i < SLOTS_PER_BLOCK; i++) {
			struct slot *s = &b->s[i];

			if (!__atomic_load_n(&s->end, __ATOMIC_RELAXED) ||
			    s->start != (uintptr_t)addr)
				continue;
			__atomic_store_n(&s->end, 0, __ATOMIC_RELEASE);
			faulted = __atomic_load_n(&s->faulted,
						  __ATOMIC_ACQUIRE);
			free(s->path);
			s->path = NULL;
			goto out;
		}
out:
	pthread_mutex_unlock(&lock);
	return faulted;
}

static void record_input(const char *path)
{
	int none = 0;
	size_t i;

	if (!__atomic_compare_exchange_n(&input_state, &none, 1, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	for (i = 0; path[i] && i < sizeof(input_path) - 1; i++)
		input_path[i] = path[i];
	input_path[i] = 0;
	__atomic_store_n(&input_state, 2, __ATOMIC_RELEASE);
}

int fio_map_fault(const void *addr)
{
	uintptr_t a = (uintptr_t)addr;
	uintptr_t pg = __atomic_load_n(&page_size, __ATOMIC_ACQUIRE);

	if (!pg)
		return 0;
	for (struct block *b = __atomic_load_n(&blocks, __ATOMIC_ACQUIRE); b;
	     b = b->next)
		for (size_t i = 0; i < SLOTS_PER_BLOCK; i++) {
			struct slot *s = &b->s[i];
			uintptr_t end = __atomic_load_n(&s->end,
							__ATOMIC_ACQUIRE);

			if (!end || a < s->start || a >= end)
				continue;
			/* The access restarts on the new page: zeros to
			 * read, a store that goes nowhere. */
			if (mmap((void *)(a & ~(pg - 1)), (size_t)pg, s->prot,
				 MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1,
				 0) == MAP_FAILED)
				return 0;
			__atomic_store_n(&s->faulted, 1, __ATOMIC_RELEASE);
			if (s->kind == FIO_MAP_INPUT)
				record_input(s->path);
			return 1;
		}
	return 0;
}

int fio_map_check(char *msg, size_t msgn)
{
	if (__atomic_load_n(&input_state, __ATOMIC_ACQUIRE) != 2)
		return FIO_OK;
	fio_map_changed(msg, msgn, input_path);
	return FIO_EIO;
}

void fio_map_changed(char *msg, size_t msgn, const char *path)
{
	snprintf(msg, msgn,
		 "%s: changed while qopt was reading it (truncated?)", path);
}
