/*
 * ir/onnx/onnx_tensor.c - a TensorProto becomes a qir_tensor.
 *
 * raw_data is borrowed: large payloads from the loaded file itself
 * (ir/onnx/onnx_skeleton.c), small ones from protobuf-c's copy. The
 * typed fields (float_data, int32_data, ...) are converted into the
 * same raw little-endian layout, owned by the tensor, so everything
 * downstream sees one representation. External data is bound to the
 * shared mapping of its file and mapped on first use.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "onnx/onnx_io.h"

static const char *tname(const Onnx__TensorProto *tp)
{
	return tp->name && tp->name[0] ? tp->name : "(unnamed)";
}

static void put_le(uint8_t *dst, uint64_t v, int width)
{
	for (int i = 0; i < width; i++)
		dst[i] = (uint8_t)(v >> (8 * i));
}

/* Which typed field carries dtype, and how many entries per element:
 * complex numbers take two, sub-byte types pack several per entry. */
static void typed_field(int dtype, const Onnx__TensorProto *tp,
			const char **field, size_t *have, const void **src)
{
	switch (dtype) {
	case QIR_FLOAT:
	case QIR_COMPLEX64:
		*field = "float_data";
		*have = tp->n_float_data;
		*src = tp->float_data;
		break;
	case QIR_DOUBLE:
	case QIR_COMPLEX128:
		*field = "double_data";
		*have = tp->n_double_data;
		*src = tp->double_data;
		break;
	case QIR_INT64:
		*field = "int64_data";
		*have = tp->n_int64_data;
		*src = tp->int64_data;
		break;
	case QIR_UINT32:
	case QIR_UINT64:
		*field = "uint64_data";
		*have = tp->n_uint64_data;
		*src = tp->uint64_data;
		break;
	default:
		*field = "int32_data";
		*have = tp->n_int32_data;
		*src = tp->int32_data;
		break;
	}
}

/* Fills out (nbytes long) from the typed field. */
static void convert_typed(int dtype, const void *src, uint64_t count,
			  uint8_t *out)
{
	int bits = qir_dtype_bits(dtype);
	int width = bits >= 8 ? bits / 8 : 1;

	for (uint64_t i = 0; i < count; i++) {
		uint64_t v;

		switch (dtype) {
		case QIR_FLOAT:
		case QIR_COMPLEX64: {
			uint32_t u;

			memcpy(&u, (const float *)src + i, 4);
			put_le(out + 4 * i, u, 4);
			continue;
		}
		case QIR_DOUBLE:
		case QIR_COMPLEX128:
			memcpy(&v, (const double *)src + i, 8);
			put_le(out + 8 * i, v, 8);
			continue;
		case QIR_INT64:
			v = (uint64_t)((const int64_t *)src)[i];
			break;
		case QIR_UINT32:
		case QIR_UINT64:
			v = ((const uint64_t *)src)[i];
			break;
		default:
			/* One element per entry, or one packed byte of
			 * sub-byte elements per entry (ONNX spec). */
			v = (uint32_t)((const int32_t *)src)[i];
			break;
		}
		put_le(out + (uint64_t)width * i, v, width);
	}
}

static int load_typed(qir_tensor *t, const Onnx__TensorProto *tp,
		      uint64_t numel, uint64_t nbytes, qir_error *err)
{
	const char *field;
	size_t have;
	const void *src;
	int dtype = tp->data_type;
	int bits = qir_dtype_bits(dtype);
	uint64_t need;
	uint8_t *buf;

	typed_field(dtype, tp, &field, &have, &src);
	if (bits < 8)
		need = nbytes;
	else if (dtype == QIR_COMPLEX64 || dtype == QIR_COMPLEX128)
		need = numel * 2;
	else
		need = numel;
	if (ir_pb_check_len(tp, tname(tp), field, have, need, "entries",
			      err))
		return -1;
	if (nbytes == 0)
		return 0;
	buf = malloc(nbytes);
	if (!buf)
		return qir_fail(err, QIR_ENOMEM,
				"tensor '%s': out of memory for %" PRIu64 " bytes",
				tname(tp), nbytes);
	convert_typed(dtype, src, need, buf);
	return qir_tensor_reset(t, dtype, (int)tp->n_dims, tp->dims, buf,
				nbytes, err);
}

static int load_strings(qir_tensor *t, const Onnx__TensorProto *tp,
			uint64_t numel, qir_error *err)
{
	if (tp->has_raw_data && tp->raw_data.len)
		return qir_fail(err, QIR_EINVALID,
				"tensor '%s': STRING data must be in string_data, not raw_data",
				tname(tp));
	if (ir_pb_check_len(tp, tname(tp), "string_data", tp->n_string_data,
			      numel, "strings", err))
		return -1;
	if (numel == 0)
		return 0;
	t->strings = calloc(numel, sizeof(*t->strings));
	t->string_lens = calloc(numel, sizeof(*t->string_lens));
	if (!t->strings || !t->string_lens)
		return qir_fail(err, QIR_ENOMEM, "tensor '%s': out of memory",
				tname(tp));
	t->nstrings = numel;
	for (uint64_t i = 0; i < numel; i++) {
		const ProtobufCBinaryData *s = &tp->string_data[i];

		t->strings[i] = malloc(s->len + 1);
		if (!t->strings[i])
			return qir_fail(err, QIR_ENOMEM,
					"tensor '%s': out of memory", tname(tp));
		if (s->len)
			memcpy(t->strings[i], s->data, s->len);
		t->strings[i][s->len] = 0;
		t->string_lens[i] = s->len;
	}
	return 0;
}

/* Strict decimal: external_data offsets and lengths are strings. */
static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

static int load_external(struct ir_load_ctx *ctx, qir_tensor *t,
			 const Onnx__TensorProto *tp, uint64_t nbytes,
			 qir_error *err)
{
	const char *what = tname(tp), *location = NULL;
	uint64_t offset = 0, length = nbytes;
	int has_length = 0;
	ir_mapping *map;

	for (size_t i = 0; i < tp->n_external_data; i++) {
		const Onnx__StringStringEntryProto *e = tp->external_data[i];
		const char *k = e->key ? e->key : "";

		if (!strcmp(k, "location")) {
			location = e->value;
		} else if (!strcmp(k, "offset")) {
			if (parse_u64(e->value, &offset))
				return qir_fail(err, QIR_EINVALID,
						"tensor '%s': external data offset '%s' is not a number",
						what, e->value ? e->value : "");
		} else if (!strcmp(k, "length")) {
			if (parse_u64(e->value, &length))
				return qir_fail(err, QIR_EINVALID,
						"tensor '%s': external data length '%s' is not a number",
						what, e->value ? e->value : "");
			has_length = 1;
		}
	}
	if (ctx->no_external)
		return qir_fail(err, QIR_EUNSAFE,
				"tensor '%s': external data refused (loading with no_external)",
				what);
	if (!location || !*location)
		return qir_fail(err, QIR_EINVALID,
				"tensor '%s': external data has no location", what);
	if (tp->data_type == QIR_STRING)
		return qir_fail(err, QIR_EINVALID,
				"tensor '%s': STRING tensors cannot use external data",
				what);
	if (has_length && ir_pb_check_len(tp, what, "external data length",
					    length, nbytes, "bytes", err))
		return -1;
	map = ir_ext_resolve(ctx, what, location, err);
	if (!map)
		return -1;
	if (offset > map->size || nbytes > map->size - offset)
		return qir_fail(err, QIR_EINVALID,
				"tensor '%s': external data (offset %" PRIu64 ", length %" PRIu64 ") lies outside '%s' (%" PRIu64 " bytes)",
				what, offset, nbytes, location, map->size);
	ir_tensor_set_external(t, map, location, offset);
	return 0;
}

qir_tensor *ir_tensor_from_pb(struct ir_load_ctx *ctx,
				const Onnx__TensorProto *tp, qir_error *err)
{
	uint64_t numel, nbytes;
	qir_tensor *t;
	int rc, ext = tp->has_data_location &&
		tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;

	if (ir_pb_tensor_size(tp, tname(tp), &numel, &nbytes, err))
		return NULL;
	t = ir_tensor_shell(tp->name ? tp->name : "", tp->data_type,
			      (int)tp->n_dims, tp->dims, err);
	if (!t)
		return NULL;
	if (ext)
		rc = load_external(ctx, t, tp, nbytes, err);
	else if (tp->data_type == QIR_STRING)
		rc = load_strings(t, tp, numel, err);
	else if (tp->has_raw_data)
		rc = ir_pb_check_len(tp, tname(tp), "raw_data",
				       tp->raw_data.len, nbytes, "bytes", err);
	else
		rc = load_typed(t, tp, numel, nbytes, err);
	if (!rc && !ext && tp->has_raw_data && nbytes &&
	    tp->data_type != QIR_STRING)
		ir_tensor_set_borrowed(t, tp->raw_data.data);
	if (rc) {
		qir_tensor_free(t);
		return NULL;
	}
	QIR_TPRIV(t)->pb = tp;
	return t;
}
