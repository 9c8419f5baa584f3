/*
 * ir/onnx/onnx_check.c - the sizes a TensorProto claims, checked before any
 * byte of it is trusted: a hostile or corrupt file must produce an
 * error naming the tensor, never an overflow or an out-of-bounds read.
 */
#include <inttypes.h>
#include <stdio.h>
#include "onnx/onnx_io.h"

static const char *type_str(const Onnx__TensorProto *tp, char *buf, size_t n)
{
	int64_t dims[64];
	int rank = tp->n_dims > 64 ? 64 : (int)tp->n_dims;

	for (int i = 0; i < rank; i++)
		dims[i] = tp->dims[i];
	return qir_tensor_type_str(tp->data_type, rank, dims, buf, n);
}

int ir_pb_tensor_size(const Onnx__TensorProto *tp, const char *what,
			uint64_t *numel, uint64_t *nbytes, qir_error *err)
{
	uint64_t n = 1;

	if (!tp->has_data_type || tp->data_type == QIR_UNDEFINED)
		return qir_fail(err, QIR_EINVALID,
				"tensor '%s': data_type is not set", what);
	if (!qir_dtype_name(tp->data_type))
		return qir_fail(err, QIR_EINVALID,
				"tensor '%s': unknown data_type %d", what,
				tp->data_type);
	if (tp->n_dims > INT32_MAX)
		return qir_fail(err, QIR_EINVALID,
				"tensor '%s': too many dims (%zu)", what,
				tp->n_dims);
	for (size_t i = 0; i < tp->n_dims; i++) {
		int64_t d = tp->dims[i];

		if (d < 0)
			return qir_fail(err, QIR_EINVALID,
					"tensor '%s': dimension %zu is negative (%" PRId64 ")",
					what, i, d);
		if (d != 0 && n > UINT64_MAX / (uint64_t)d)
			return qir_fail(err, QIR_EINVALID,
					"tensor '%s': element count of dims overflows",
					what);
		n *= (uint64_t)d;
	}
	*numel = n;
	*nbytes = 0;
	if (tp->data_type == QIR_STRING)
		return 0;
	if (qir_dtype_nbytes(tp->data_type, n, nbytes) < 0 ||
	    *nbytes > (uint64_t)INT64_MAX)
		return qir_fail(err, QIR_EINVALID,
				"tensor '%s': byte size of %" PRIu64 " %s elements overflows",
				what, n, qir_dtype_name(tp->data_type));
	return 0;
}

int ir_pb_check_len(const Onnx__TensorProto *tp, const char *what,
		      const char *field, uint64_t have, uint64_t need,
		      const char *unit, qir_error *err)
{
	char buf[256];

	if (have == need)
		return 0;
	return qir_fail(err, QIR_EINVALID,
			"tensor '%s': %s has %" PRIu64 " %s, %s needs %" PRIu64,
			what, field, have, unit, type_str(tp, buf, sizeof(buf)),
			need);
}
