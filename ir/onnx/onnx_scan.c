/*
 * ir/onnx/onnx_scan.c - a hostile file is refused before protobuf-c sees it.
 *
 * protobuf-c unpacks recursively with no depth limit, so a small file
 * of subgraphs nested a few thousand deep overflows the stack; it also
 * keeps unknown fields with field number 0 (which it then writes back
 * as a key no parser reads) and truncates field numbers above 2^32, and cuts strings at an embedded NUL (two
 * names can become one). One walk over the file's message structure,
 * driven by the schema below, finds all three without allocating: it
 * visits every message the reader or writer unpacks and skips payloads
 * (raw_data and other bytes) without looking inside them.
 *
 * The depth limit is the one protobuf's C++ parser applies by default
 * (100 nested messages), so qopt loads whatever ONNX Runtime can.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "onnx/onnx_io.h"

enum msg {
	M_NONE, M_STR, M_MODEL, M_GRAPH, M_NODE, M_ATTR, M_TENSOR, M_SPARSE,
	M_VI, M_TYPE, M_TTENSOR, M_TSEQ, M_TMAP, M_TOPT, M_TSPARSE, M_TOPAQUE,
	M_SHAPE, M_DIM, M_KV, M_ANNOT, M_OPSET, M_FUNC, M_TRAIN, M_SEGMENT,
};

static const char *const msg_name[] = {
	"", "", "ModelProto", "GraphProto", "NodeProto", "AttributeProto",
	"TensorProto", "SparseTensorProto", "ValueInfoProto", "TypeProto",
	"TypeProto.Tensor", "TypeProto.Sequence", "TypeProto.Map",
	"TypeProto.Optional", "TypeProto.SparseTensor", "TypeProto.Opaque",
	"TensorShapeProto", "TensorShapeProto.Dimension",
	"StringStringEntryProto", "TensorAnnotation", "OperatorSetIdProto",
	"FunctionProto", "TrainingInfoProto", "TensorProto.Segment",
};

struct edge {
	enum msg parent;
	uint8_t field;
	enum msg child;		/* M_STR: a string field */
};

/* Every message-typed and string-typed field of ir/onnx/onnx.proto. */
static const struct edge schema[] = {
	{ M_MODEL, 2, M_STR }, { M_MODEL, 3, M_STR }, { M_MODEL, 4, M_STR },
	{ M_MODEL, 6, M_STR }, { M_MODEL, 7, M_GRAPH }, { M_MODEL, 8, M_OPSET },
	{ M_MODEL, 14, M_KV }, { M_MODEL, 20, M_TRAIN }, { M_MODEL, 25, M_FUNC },
	{ M_GRAPH, 1, M_NODE }, { M_GRAPH, 2, M_STR }, { M_GRAPH, 5, M_TENSOR },
	{ M_GRAPH, 10, M_STR }, { M_GRAPH, 11, M_VI }, { M_GRAPH, 12, M_VI },
	{ M_GRAPH, 13, M_VI }, { M_GRAPH, 14, M_ANNOT },
	{ M_GRAPH, 15, M_SPARSE }, { M_GRAPH, 16, M_KV },
	{ M_NODE, 1, M_STR }, { M_NODE, 2, M_STR }, { M_NODE, 3, M_STR },
	{ M_NODE, 4, M_STR }, { M_NODE, 5, M_ATTR }, { M_NODE, 6, M_STR },
	{ M_NODE, 7, M_STR }, { M_NODE, 8, M_STR }, { M_NODE, 9, M_KV },
	{ M_ATTR, 1, M_STR }, { M_ATTR, 5, M_TENSOR }, { M_ATTR, 6, M_GRAPH },
	{ M_ATTR, 10, M_TENSOR }, { M_ATTR, 11, M_GRAPH }, { M_ATTR, 13, M_STR },
	{ M_ATTR, 14, M_TYPE }, { M_ATTR, 15, M_TYPE }, { M_ATTR, 21, M_STR },
	{ M_ATTR, 22, M_SPARSE }, { M_ATTR, 23, M_SPARSE },
	{ M_TENSOR, 3, M_SEGMENT }, { M_TENSOR, 8, M_STR },
	{ M_TENSOR, 12, M_STR }, { M_TENSOR, 13, M_KV }, { M_TENSOR, 16, M_KV },
	{ M_SPARSE, 1, M_TENSOR }, { M_SPARSE, 2, M_TENSOR },
	{ M_VI, 1, M_STR }, { M_VI, 2, M_TYPE }, { M_VI, 3, M_STR },
	{ M_VI, 4, M_KV },
	{ M_TYPE, 1, M_TTENSOR }, { M_TYPE, 4, M_TSEQ }, { M_TYPE, 5, M_TMAP },
	{ M_TYPE, 6, M_STR }, { M_TYPE, 7, M_TOPAQUE },
	{ M_TYPE, 8, M_TSPARSE }, { M_TYPE, 9, M_TOPT },
	{ M_TTENSOR, 2, M_SHAPE }, { M_TSPARSE, 2, M_SHAPE },
	{ M_TSEQ, 1, M_TYPE }, { M_TMAP, 2, M_TYPE }, { M_TOPT, 1, M_TYPE },
	{ M_TOPAQUE, 1, M_STR }, { M_TOPAQUE, 2, M_STR },
	{ M_SHAPE, 1, M_DIM }, { M_DIM, 2, M_STR }, { M_DIM, 3, M_STR },
	{ M_KV, 1, M_STR }, { M_KV, 2, M_STR },
	{ M_ANNOT, 1, M_STR }, { M_ANNOT, 2, M_KV },
	{ M_OPSET, 1, M_STR },
	{ M_FUNC, 1, M_STR }, { M_FUNC, 4, M_STR }, { M_FUNC, 5, M_STR },
	{ M_FUNC, 6, M_STR }, { M_FUNC, 7, M_NODE }, { M_FUNC, 8, M_STR },
	{ M_FUNC, 9, M_OPSET }, { M_FUNC, 10, M_STR }, { M_FUNC, 11, M_ATTR },
	{ M_FUNC, 12, M_VI }, { M_FUNC, 13, M_STR }, { M_FUNC, 14, M_KV },
	{ M_TRAIN, 1, M_GRAPH }, { M_TRAIN, 2, M_GRAPH }, { M_TRAIN, 3, M_KV },
	{ M_TRAIN, 4, M_KV },
};

static enum msg child_of(enum msg parent, uint64_t field)
{
	size_t i;

	for (i = 0; i < sizeof(schema) / sizeof(schema[0]); i++)
		if (schema[i].parent == parent && schema[i].field == field)
			return schema[i].child;
	return M_NONE;
}

#define QIR_PB_MAX_FIELD 536870911u	/* 2^29 - 1 */

struct scan {
	const uint8_t *p;
	qir_error *err;
	int strict;	/* damage is an error too (checking our own output) */
};

static size_t varint(const uint8_t *p, size_t end, size_t off, uint64_t *v)
{
	*v = 0;
	for (int s = 0; s < 64 && off < end; s += 7) {
		*v |= (uint64_t)(p[off] & 0x7f) << s;
		if (!(p[off++] & 0x80))
			return off;
	}
	return 0;
}

static int bad(struct scan *s, enum msg k, size_t at, const char *what)
{
	return qir_fail(s->err, QIR_EPARSE,
			"not a valid ONNX model (at byte %zu, %s %s)",
			at, msg_name[k], what);
}

/* A message that does not parse ends the scan without a finding:
 * everything before it was checked, and protobuf-c then reports the
 * damage itself (with ir/onnx/onnx_read.c's explanation). A strict scan
 * reports it. */
static int stop(struct scan *s, enum msg k, size_t at, const char *what)
{
	return s->strict ? bad(s, k, at, what) : 1;
}

static int scan_msg(struct scan *s, enum msg k, size_t off, size_t end,
		    int depth)
{
	while (off < end) {
		size_t at = off, next;
		uint64_t key, v;
		enum msg child;

		if (!(off = varint(s->p, end, off, &key)))
			return stop(s, k, at, "has a field key cut off");
		if ((key >> 3) == 0)
			return bad(s, k, at,
				   "has a field with number 0, which no protobuf parser reads back");
		/* protobuf-c keeps a tag in 32 bits: a larger number would be
		 * written back as another field (0, for 2^32). */
		if ((key >> 3) > QIR_PB_MAX_FIELD)
			return bad(s, k, at,
				   "has a field number above 536870911, the protobuf maximum");
		if (s->strict && (key & 7) != 2 && key >> 3 <= 255 &&
		    child_of(k, key >> 3) != M_NONE)
			return bad(s, k, at, "has a message or string field that is not length-delimited");
		switch (key & 7) {
		case 0:
			if (!(off = varint(s->p, end, off, &v)))
				return stop(s, k, at, "has a varint cut off");
			continue;
		case 1:
		case 5:
			if (end - off < ((key & 7) == 1 ? 8u : 4u))
				return stop(s, k, at, "has a fixed-size field cut off");
			off += (key & 7) == 1 ? 8 : 4;
			continue;
		case 2:
			break;
		default:
			return stop(s, k, at, "has a field of wire type 3, 4, 6 or 7");
		}
		if (!(off = varint(s->p, end, off, &v)) || v > end - off)
			return stop(s, k, at, "has a length running past its message");
		next = off + (size_t)v;
		child = key >> 3 > 255 ? M_NONE : child_of(k, key >> 3);
		if (child == M_STR && memchr(s->p + off, 0, (size_t)v)) {
			char what[96];

			snprintf(what, sizeof(what),
				 "string field %" PRIu64 " holds a NUL byte; names and strings must not contain NUL",
				 key >> 3);
			return bad(s, k, at, what);
		}
		if (child > M_STR) {
			if (depth + 1 > QIR_PB_MAX_DEPTH)
				return qir_fail(s->err, QIR_EPARSE,
						"not a valid ONNX model (at byte %zu, %s: messages nested more than %d deep; subgraphs or types inside each other too deeply)",
						at, msg_name[k], QIR_PB_MAX_DEPTH);
			int rc = scan_msg(s, child, off, next, depth + 1);

			if (rc)
				return rc;
		}
		off = next;
	}
	return 0;
}

int ir_pb_scan(const uint8_t *buf, size_t len, int strict, qir_error *err)
{
	struct scan s = { buf, err, strict };

	return scan_msg(&s, M_MODEL, 0, len, 1) < 0 ? -1 : 0;
}
