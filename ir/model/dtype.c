/*
 * ir/model/dtype.c - facts about ONNX element types.
 */
#include <strings.h>
#include <qopt/dtype.h>

struct dtype_info {
	const char *name;
	int bits;
	int is_float;
	int min_ir;
};

/* Indexed by TensorProto.DataType. IR versions: the FP8 types came
 * with IR 9, 4-bit integers with 10, FP4 with 11, E8M0 with 12 and
 * 2-bit integers with 13; everything older predates IR 3, the oldest
 * version qopt reads. */
static const struct dtype_info dtypes[QIR_DTYPE_COUNT] = {
	[QIR_UNDEFINED] = { "UNDEFINED", 0, 0, 3 },
	[QIR_FLOAT] = { "FLOAT", 32, 1, 3 },
	[QIR_UINT8] = { "UINT8", 8, 0, 3 },
	[QIR_INT8] = { "INT8", 8, 0, 3 },
	[QIR_UINT16] = { "UINT16", 16, 0, 3 },
	[QIR_INT16] = { "INT16", 16, 0, 3 },
	[QIR_INT32] = { "INT32", 32, 0, 3 },
	[QIR_INT64] = { "INT64", 64, 0, 3 },
	[QIR_STRING] = { "STRING", 0, 0, 3 },
	[QIR_BOOL] = { "BOOL", 8, 0, 3 },
	[QIR_FLOAT16] = { "FLOAT16", 16, 1, 3 },
	[QIR_DOUBLE] = { "DOUBLE", 64, 1, 3 },
	[QIR_UINT32] = { "UINT32", 32, 0, 3 },
	[QIR_UINT64] = { "UINT64", 64, 0, 3 },
	[QIR_COMPLEX64] = { "COMPLEX64", 64, 0, 3 },
	[QIR_COMPLEX128] = { "COMPLEX128", 128, 0, 3 },
	[QIR_BFLOAT16] = { "BFLOAT16", 16, 1, 3 },
	[QIR_FLOAT8E4M3FN] = { "FLOAT8E4M3FN", 8, 1, 9 },
	[QIR_FLOAT8E4M3FNUZ] = { "FLOAT8E4M3FNUZ", 8, 1, 9 },
	[QIR_FLOAT8E5M2] = { "FLOAT8E5M2", 8, 1, 9 },
	[QIR_FLOAT8E5M2FNUZ] = { "FLOAT8E5M2FNUZ", 8, 1, 9 },
	[QIR_UINT4] = { "UINT4", 4, 0, 10 },
	[QIR_INT4] = { "INT4", 4, 0, 10 },
	[QIR_FLOAT4E2M1] = { "FLOAT4E2M1", 4, 1, 11 },
	[QIR_FLOAT8E8M0] = { "FLOAT8E8M0", 8, 1, 12 },
	[QIR_UINT2] = { "UINT2", 2, 0, 13 },
	[QIR_INT2] = { "INT2", 2, 0, 13 },
};

static const struct dtype_info *info(int dtype)
{
	if (dtype < 0 || dtype >= QIR_DTYPE_COUNT)
		return NULL;
	return &dtypes[dtype];
}

const char *qir_dtype_name(int dtype)
{
	const struct dtype_info *d = info(dtype);

	return d ? d->name : NULL;
}

int qir_dtype_from_name(const char *name)
{
	int i;

	if (!name)
		return -1;
	for (i = 0; i < QIR_DTYPE_COUNT; i++)
		if (strcasecmp(dtypes[i].name, name) == 0)
			return i;
	return -1;
}

int qir_dtype_bits(int dtype)
{
	const struct dtype_info *d = info(dtype);

	return d ? d->bits : 0;
}

int qir_dtype_is_float(int dtype)
{
	const struct dtype_info *d = info(dtype);

	return d ? d->is_float : 0;
}

int qir_dtype_min_ir_version(int dtype)
{
	const struct dtype_info *d = info(dtype);

	return d ? d->min_ir : -1;
}

int qir_dtype_nbytes(int dtype, uint64_t n, uint64_t *out)
{
	int bits = qir_dtype_bits(dtype);
	uint64_t per;

	if (bits == 0)
		return -1;
	if (bits < 8) {
		/* Sub-byte types are packed, the last byte padded. */
		per = 8 / bits;
		*out = n / per + (n % per != 0);
		return 0;
	}
	per = bits / 8;
	if (n > UINT64_MAX / per)
		return -1;
	*out = n * per;
	return 0;
}
