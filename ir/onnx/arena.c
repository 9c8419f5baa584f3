/*
 * ir/onnx/arena.c - the allocations of one save.
 *
 * The message tree built for packing mixes our allocations with
 * borrowed pointers (tensor bytes, sub-messages of the loaded model
 * kept verbatim). Allocating everything we create from an arena and
 * freeing the arena, never the tree, makes "free only what we
 * allocated" hold by construction.
 */
#include <stdlib.h>
#include <string.h>
#include "onnx/onnx_io.h"

struct ir_arena_block {
	struct ir_arena_block *next;
	size_t used, cap;
	max_align_t data[];
};

#define BLOCK_BYTES (64u * 1024u)

void *ir_arena_alloc(struct ir_arena *a, size_t size)
{
	struct ir_arena_block *b = a->head;
	size_t need = (size + sizeof(max_align_t) - 1) /
		      sizeof(max_align_t) * sizeof(max_align_t);
	void *p;

	if (need < size) {
		a->failed = 1;
		return NULL;
	}
	if (!b || b->cap - b->used < need) {
		size_t cap = need > BLOCK_BYTES ? need : BLOCK_BYTES;

		b = malloc(sizeof(*b) + cap);
		if (!b) {
			a->failed = 1;
			return NULL;
		}
		b->cap = cap;
		b->used = 0;
		b->next = a->head;
		a->head = b;
	}
	p = (char *)b->data + b->used;
	b->used += need;
	memset(p, 0, size);
	return p;
}

char *ir_arena_strdup(struct ir_arena *a, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = ir_arena_alloc(a, n);

	if (p)
		memcpy(p, s, n);
	return p;
}

void ir_arena_free(struct ir_arena *a)
{
	struct ir_arena_block *b = a->head, *next;

	for (; b; b = next) {
		next = b->next;
		free(b);
	}
	a->head = NULL;
}
