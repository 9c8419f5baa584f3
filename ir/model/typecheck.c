/*
 * ir/model/typecheck.c - inputs of one node whose element types must
 * agree: the standard operators whose ONNX schema binds those inputs
 * to one type variable T (MatMul(A: T, B: T), Add, Concat, ...).
 *
 * Conservative on purpose: only operators whose schema has said so in
 * every opset, only the standard domain, and only types that are known
 * (a value without a type is never a clash). Pow (T, T1),
 * BatchNormalization (T, T1, T2) and the quantizers (T1, T2) bind their
 * inputs to different variables and are not listed.
 */
#include <string.h>
#include "model/internal.h"

#define ALL_INPUTS 0xffffffffu

static const struct {
	const char *op;
	unsigned mask;	/* the inputs sharing T, bit i for input i */
} one_type[] = {
	{ "Add", 3 }, { "And", 3 }, { "Clip", 7 }, { "Concat", ALL_INPUTS },
	{ "Conv", 7 }, { "ConvTranspose", 7 }, { "Div", 3 }, { "Equal", 3 },
	{ "Gemm", 7 }, { "Greater", 3 }, { "GreaterOrEqual", 3 },
	{ "Less", 3 }, { "LessOrEqual", 3 }, { "MatMul", 3 }, { "Max", ALL_INPUTS },
	{ "Mean", ALL_INPUTS }, { "Min", ALL_INPUTS }, { "Mul", 3 },
	{ "Or", 3 }, { "PRelu", 3 }, { "Sub", 3 }, { "Sum", ALL_INPUTS },
	{ "Where", 6 }, { "Xor", 3 },
};

static unsigned mask_of(const qir_node *n)
{
	size_t i;

	if (!qir_domain_is_default(n->domain))
		return 0;
	for (i = 0; i < sizeof(one_type) / sizeof(one_type[0]); i++)
		if (!strcmp(n->op_type, one_type[i].op))
			return one_type[i].mask;
	return 0;
}

int ir_type_clash(const qir_node *n, size_t *first, size_t *other)
{
	unsigned mask = mask_of(n);
	size_t i, f = SIZE_MAX;

	for (i = 0; mask && i < n->ninputs && i < 32; i++) {
		const qir_value *v = n->inputs[i];

		if (!(mask & (1u << i)) || !v || v->dtype == QIR_UNDEFINED)
			continue;
		if (f == SIZE_MAX) {
			f = i;
		} else if (v->dtype != n->inputs[f]->dtype) {
			*first = f;
			*other = i;
			return 1;
		}
	}
	return 0;
}
