/*
 * qopt/dtype.h - ONNX element types (TensorProto.DataType numbers).
 */
#ifndef QOPT_DTYPE_H
#define QOPT_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum qir_dtype {
	QIR_UNDEFINED = 0,
	QIR_FLOAT = 1,
	QIR_UINT8 = 2,
	QIR_INT8 = 3,
	QIR_UINT16 = 4,
	QIR_INT16 = 5,
	QIR_INT32 = 6,
	QIR_INT64 = 7,
	QIR_STRING = 8,
	QIR_BOOL = 9,
	QIR_FLOAT16 = 10,
	QIR_DOUBLE = 11,
	QIR_UINT32 = 12,
	QIR_UINT64 = 13,
	QIR_COMPLEX64 = 14,
	QIR_COMPLEX128 = 15,
	QIR_BFLOAT16 = 16,
	QIR_FLOAT8E4M3FN = 17,
	QIR_FLOAT8E4M3FNUZ = 18,
	QIR_FLOAT8E5M2 = 19,
	QIR_FLOAT8E5M2FNUZ = 20,
	QIR_UINT4 = 21,
	QIR_INT4 = 22,
	QIR_FLOAT4E2M1 = 23,
	QIR_FLOAT8E8M0 = 24,
	QIR_UINT2 = 25,
	QIR_INT2 = 26,
	QIR_DTYPE_COUNT
};

/* "FLOAT", "FLOAT8E4M3FN", ...; "UNKNOWN(n)"-style names are not
 * returned: an unknown number gives NULL. */
const char *qir_dtype_name(int dtype);
/* Inverse of qir_dtype_name (case-insensitive); -1 when unknown. */
int qir_dtype_from_name(const char *name);
/* Bits per element (2, 4, 8, ... 128); 0 for UNDEFINED, STRING, unknown. */
int qir_dtype_bits(int dtype);
/* 1 for FLOAT, DOUBLE, FLOAT16, BFLOAT16 and the FP8/FP4 types. */
int qir_dtype_is_float(int dtype);
/* Smallest IR version that knows the type (FP8 9, 4-bit 10, FP4 11...). */
int qir_dtype_min_ir_version(int dtype);
/* Bytes needed for n elements, sub-byte types packed and padded.
 * Returns 0 and sets *out, or -1 on overflow or an unsized type. */
int qir_dtype_nbytes(int dtype, uint64_t n, uint64_t *out);

#ifdef __cplusplus
}
#endif
#endif /* QOPT_DTYPE_H */
