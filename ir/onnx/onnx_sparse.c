/*
 * ir/onnx/onnx_sparse.c - checks of sparse tensors (sparse initializers and
 * sparse attributes), which the IR does not model and the writer copies
 * back from the parsed message: ONNX requires every index to address an
 * element of the dense shape, and an index out of range would make a
 * runtime read or write outside the tensor.
 */
#include <inttypes.h>
#include <string.h>
#include "onnx/onnx_io.h"

/* Index k of the INT64 indices tensor (int64_data or raw_data). */
static int index_at(const Onnx__TensorProto *ix, uint64_t k, int64_t *out)
{
	if (ix->n_int64_data) {
		if (k >= ix->n_int64_data)
			return -1;
		*out = ix->int64_data[k];
		return 0;
	}
	if (!ix->has_raw_data || k >= ix->raw_data.len / 8)
		return -1;
	/* raw_data may sit at any address in the mapped file. */
	memcpy(out, ix->raw_data.data + k * 8, 8);
	return 0;
}

static uint64_t count_of(const Onnx__TensorProto *ix)
{
	return ix->n_int64_data ? ix->n_int64_data :
	       ix->has_raw_data ? ix->raw_data.len / 8 : 0;
}

int ir_sparse_check(const Onnx__SparseTensorProto *sp, const char *what,
		      qir_error *err)
{
	const Onnx__TensorProto *ix = sp->indices;
	uint64_t numel = 1, nnz, n, k;
	size_t r, rank = sp->n_dims;
	int64_t v;

	if (!sp->values)
		return qir_fail(err, QIR_EINVALID, "sparse tensor %s: no values",
				what);
	for (r = 0; r < rank; r++) {
		if (sp->dims[r] < 0)
			return qir_fail(err, QIR_EINVALID,
					"sparse tensor %s: dim %zu is %" PRId64,
					what, r, sp->dims[r]);
		if (sp->dims[r] && numel > UINT64_MAX / (uint64_t)sp->dims[r])
			return qir_fail(err, QIR_EINVALID,
					"sparse tensor %s: shape too large", what);
		numel *= (uint64_t)sp->dims[r];
	}
	if (!ix)
		return 0;	/* no indices: nothing stored sparsely */
	if (ix->has_data_type && ix->data_type != QIR_INT64)
		return qir_fail(err, QIR_EINVALID,
				"sparse tensor %s: indices are not INT64", what);
	if (ix->has_data_location &&
	    ix->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
		return qir_fail(err, QIR_EUNSUPPORTED,
				"sparse tensor %s: indices in external data are not supported",
				what);
	n = count_of(ix);
	/* [NNZ] linear indices, or [NNZ, rank] coordinates. */
	if (ix->n_dims == 2 && rank && ix->dims[1] == (int64_t)rank) {
		nnz = n / rank;
		for (k = 0; k < nnz * rank; k++) {
			if (index_at(ix, k, &v) < 0)
				break;
			if (v < 0 || v >= sp->dims[k % rank])
				return qir_fail(err, QIR_EINVALID,
						"sparse tensor %s: index %" PRId64 " of dim %" PRIu64 " (size %" PRId64 ") out of range",
						what, v, k % rank,
						sp->dims[k % rank]);
		}
		return 0;
	}
	for (k = 0; k < n; k++) {
		if (index_at(ix, k, &v) < 0)
			break;
		if (v < 0 || (uint64_t)v >= numel)
			return qir_fail(err, QIR_EINVALID,
					"sparse tensor %s: index %" PRId64 " out of range (%" PRIu64 " elements)",
					what, v, numel);
	}
	return 0;
}
