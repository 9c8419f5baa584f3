/*
 * ir/infer/quant.c - the quantization operators: QuantizeLinear
 * (zero point's type, output_dtype, else UINT8; FP8/FP4/INT4 included),
 * DequantizeLinear (the scale's type), DynamicQuantizeLinear, the
 * integer and QLinear ops, and TensorRT's custom Q/DQ (trt::
 * TRT_FP8QuantizeLinear, TRT_FP8DequantizeLinear, TRT_FP4QDQ). Every
 * one keeps input 0's shape (per-axis and block scales do not change
 * it).
 */
#include "infer/infer.h"

int iri_quantize(struct iri_ctx *c, const qir_node *n, iri_shape *out,
		 size_t nout)
{
	int dt = iri_input_dtype(n, 2);

	iri_same(c, n, out, nout);
	if (!dt)
		dt = qir_node_attr_dtype(n, "output_dtype");
	out[0].dtype = dt ? dt : QIR_UINT8;
	return 0;
}

int iri_dequantize(struct iri_ctx *c, const qir_node *n, iri_shape *out,
		   size_t nout)
{
	int dt = qir_node_attr_dtype(n, "output_dtype");

	iri_same(c, n, out, nout);
	if (!dt)
		dt = iri_input_dtype(n, 1);
	out[0].dtype = dt ? dt : QIR_FLOAT;
	return 0;
}

/* y (UINT8, x's shape), y_scale (FLOAT scalar), y_zero_point. */
int iri_dyn_quantize(struct iri_ctx *c, const qir_node *n, iri_shape *out,
		     size_t nout)
{
	iri_same(c, n, out, 1);
	out[0].dtype = QIR_UINT8;
	if (nout > 1) {
		out[1].dtype = QIR_FLOAT;
		out[1].rank = 0;
	}
	if (nout > 2) {
		out[2].dtype = QIR_UINT8;
		out[2].rank = 0;
	}
	return 0;
}

/* QLinearConv, QLinearMatMul: the shape rule of the float op on
 * inputs 0 and 3, the output zero point's type. */
int iri_qlinear(struct iri_ctx *c, const qir_node *n, iri_shape *out,
		size_t nout)
{
	int dt = iri_input_dtype(n, 7);
	qir_node shadow = *n;
	qir_value *in[2];

	if (n->ninputs >= 4) {
		in[0] = n->inputs[0];
		in[1] = n->inputs[3];
		shadow.inputs = in;
		shadow.ninputs = 2;
		if (qir_node_is(n, "QLinearConv"))
			iri_conv(c, &shadow, out, nout);
		else
			iri_matmul(c, &shadow, out, nout);
	}
	out[0].dtype = dt ? dt : iri_input_dtype(n, 0);
	return 0;
}

/* trt::TRT_FP8QuantizeLinear(x, scale): x's shape; FP8 codes that
 * exporters (torch has no FP8 element type for custom ops' outputs)
 * declare as UINT8, and TensorRT reads as such: UINT8 here too. */
int iri_trt_fp8_q(struct iri_ctx *c, const qir_node *n, iri_shape *out,
		  size_t nout)
{
	iri_same(c, n, out, nout);
	out[0].dtype = QIR_UINT8;
	return 0;
}

/* trt::TRT_FP8DequantizeLinear(x, scale): the scale's type. */
int iri_trt_fp8_dq(struct iri_ctx *c, const qir_node *n, iri_shape *out,
		   size_t nout)
{
	int dt = iri_input_dtype(n, 1);

	iri_same(c, n, out, nout);
	out[0].dtype = dt ? dt : QIR_FLOAT;
	return 0;
}

int iri_int32_out(struct iri_ctx *c, const qir_node *n, iri_shape *out,
		  size_t nout)
{
	iri_same(c, n, out, nout);
	out[0].dtype = QIR_INT32;
	return 0;
}
