/* tests/ir/dtype.c - element type facts. */
#include <stdint.h>
#include <qopt/dtype.h>
#include "../lib/tap.h"

int main(void)
{
	uint64_t n = 0;

	TAP_IS_STR(qir_dtype_name(QIR_FLOAT), "FLOAT", "name FLOAT");
	TAP_IS_STR(qir_dtype_name(QIR_FLOAT8E4M3FN), "FLOAT8E4M3FN",
		   "name FLOAT8E4M3FN");
	TAP_IS_STR(qir_dtype_name(QIR_INT2), "INT2", "name INT2");
	tap_ok(qir_dtype_name(QIR_DTYPE_COUNT) == NULL, "unknown number -> NULL");
	tap_ok(qir_dtype_name(-1) == NULL, "negative number -> NULL");
	tap_ok(qir_dtype_from_name("bfloat16") == QIR_BFLOAT16,
	       "from_name is case-insensitive");
	tap_ok(qir_dtype_from_name("FLOAT4E2M1") == QIR_FLOAT4E2M1,
	       "from_name FLOAT4E2M1");
	tap_ok(qir_dtype_from_name("FLOAT33") == -1, "from_name unknown -> -1");
	tap_ok(qir_dtype_bits(QIR_FLOAT) == 32 && qir_dtype_bits(QIR_INT4) == 4 &&
	       qir_dtype_bits(QIR_UINT2) == 2 &&
	       qir_dtype_bits(QIR_COMPLEX128) == 128 &&
	       qir_dtype_bits(QIR_BOOL) == 8, "bits");
	tap_ok(qir_dtype_bits(QIR_STRING) == 0 && qir_dtype_bits(QIR_UNDEFINED) == 0,
	       "STRING/UNDEFINED have no bit width");
	tap_ok(qir_dtype_is_float(QIR_FLOAT16) && qir_dtype_is_float(QIR_FLOAT4E2M1) &&
	       qir_dtype_is_float(QIR_FLOAT8E5M2) && !qir_dtype_is_float(QIR_INT8) &&
	       !qir_dtype_is_float(QIR_BOOL), "is_float");
	tap_ok(qir_dtype_min_ir_version(QIR_FLOAT8E4M3FN) == 9 &&
	       qir_dtype_min_ir_version(QIR_FLOAT8E5M2FNUZ) == 9, "FP8 needs IR 9");
	tap_ok(qir_dtype_min_ir_version(QIR_INT4) == 10 &&
	       qir_dtype_min_ir_version(QIR_UINT4) == 10, "4-bit ints need IR 10");
	tap_ok(qir_dtype_min_ir_version(QIR_FLOAT4E2M1) == 11, "FP4 needs IR 11");
	tap_ok(qir_dtype_min_ir_version(QIR_FLOAT8E8M0) == 12, "E8M0 needs IR 12");
	tap_ok(qir_dtype_min_ir_version(QIR_INT2) == 13, "2-bit ints need IR 13");
	tap_ok(qir_dtype_min_ir_version(QIR_FLOAT) <= 3 &&
	       qir_dtype_min_ir_version(QIR_BFLOAT16) <= 3, "old types <= 3");
	tap_ok(qir_dtype_nbytes(QIR_FLOAT, 3, &n) == 0 && n == 12, "3 floats = 12 bytes");
	tap_ok(qir_dtype_nbytes(QIR_INT4, 3, &n) == 0 && n == 2, "3 int4 = 2 bytes");
	tap_ok(qir_dtype_nbytes(QIR_FLOAT4E2M1, 4, &n) == 0 && n == 2, "4 fp4 = 2 bytes");
	tap_ok(qir_dtype_nbytes(QIR_UINT2, 5, &n) == 0 && n == 2, "5 uint2 = 2 bytes");
	tap_ok(qir_dtype_nbytes(QIR_INT2, 0, &n) == 0 && n == 0, "0 int2 = 0 bytes");
	tap_ok(qir_dtype_nbytes(QIR_UINT4, UINT64_MAX, &n) == 0 &&
	       n == UINT64_MAX / 2 + 1, "max uint4 count does not overflow");
	tap_ok(qir_dtype_nbytes(QIR_FLOAT, UINT64_MAX / 4 + 1, &n) == -1,
	       "float byte count overflow detected");
	tap_ok(qir_dtype_nbytes(QIR_COMPLEX128, UINT64_MAX / 16, &n) == 0 &&
	       n == UINT64_MAX / 16 * 16, "largest complex128 count fits");
	tap_ok(qir_dtype_nbytes(QIR_STRING, 1, &n) == -1, "STRING has no byte size");
	tap_ok(qir_dtype_nbytes(99, 1, &n) == -1, "unknown type has no byte size");
	return tap_done();
}
