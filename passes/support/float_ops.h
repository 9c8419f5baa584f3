/*
 * passes/support/float_ops.h - which slots of an operator carry its
 * float type T, and from which opset T holds FLOAT16 and BFLOAT16
 * (float_ops.c): for the passes that change or check precisions.
 */
#ifndef PASSES_SUPPORT_FLOAT_OPS_H
#define PASSES_SUPPORT_FLOAT_OPS_H

#include <stddef.h>
#include <stdint.h>

struct ps_float_op {
	const char *op_type;
	uint32_t t_in;		/* input slots of the float type T */
	uint32_t t_out;		/* output slots of T */
	int fp16_since;		/* opset from which T holds FLOAT16 */
	int bf16_since;		/* ... BFLOAT16 */
	int reduces;		/* sums over an axis */
};

#define PS_ALL_SLOTS 0xffffffffu

/* The table's entry for a default-domain op_type, or NULL. */
const struct ps_float_op *ps_float_op_find(const char *op_type);
/* 1 when slot i is in mask. */
static inline int ps_slot(uint32_t mask, size_t i)
{
	return i < 32 && (mask >> i) & 1u;
}

#endif
