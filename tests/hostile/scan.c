/*
 * tests/hostile/scan.c - the walk that guards the loader and reads back
 * every written model (ir/onnx/onnx_scan.c): what it refuses in both modes,
 * and the damage only the strict read-back reports.
 */
#include <string.h>
#include "onnx/onnx_io.h"
#include "../lib/tap.h"

/* ModelProto { ir_version: 8, graph { node { input "x" output "y"
 * op_type "Identity" } name "g" } } */
static const uint8_t good[] = {
	0x08, 0x08,
	0x3a, 0x15,
	  0x0a, 0x10, 0x0a, 0x01, 'x', 0x12, 0x01, 'y',
	    0x22, 0x08, 'I', 'd', 'e', 'n', 't', 'i', 't', 'y',
	  0x12, 0x01, 'g',
};

static int scan(const uint8_t *b, size_t n, int strict, const char *want)
{
	qir_error err = { 0 };
	int rc = ir_pb_scan(b, n, strict, &err);

	if (!want)
		return rc == 0;
	if (rc == 0 || !strstr(err.msg, want)) {
		printf("# got rc %d: %s\n", rc, err.msg);
		return 0;
	}
	return 1;
}

int main(void)
{
	uint8_t b[64];

	tap_ok(scan(good, sizeof(good), 0, NULL), "a valid model passes");
	tap_ok(scan(good, sizeof(good), 1, NULL), "a valid model passes strictly");

	/* The node's length one byte too long: damage. */
	memcpy(b, good, sizeof(good));
	b[5] = 0x11;
	tap_ok(scan(b, sizeof(good), 0, NULL),
	       "damage is left to protobuf-c's own message when loading");
	tap_ok(scan(b, sizeof(good), 1, "length running past its message"),
	       "damage is an error when reading back an output");

	/* op_type (a string field) sent as a varint. */
	static const uint8_t varint_op[] = {
		0x3a, 0x0a, 0x0a, 0x08, 0x0a, 0x01, 'x', 0x12, 0x01, 'y',
		0x20, 0x01,
	};
	tap_ok(scan(varint_op, sizeof(varint_op), 0, NULL),
	       "a string field of the wrong wire type is left to protobuf-c when loading");
	tap_ok(scan(varint_op, sizeof(varint_op), 1, "not length-delimited"),
	       "a string field of the wrong wire type fails strictly");

	/* A node key of field number 0. */
	memcpy(b, good, sizeof(good));
	b[4] = 0x00;
	b[5] = 0x00;
	tap_ok(scan(b, sizeof(good), 0, "field with number 0"),
	       "field number 0 fails when loading");

	/* A group (wire type 3, unknown field 3) inside the graph. */
	memcpy(b, good, sizeof(good));
	b[4] = 0x1b;
	tap_ok(scan(b, sizeof(good), 1, "wire type 3"),
	       "a group fails strictly");
	return tap_done();
}
