/*
 * ir/onnx/onnx_layout.c - the .onnx file laid out first, then filled.
 *
 * A ModelProto's packed size is known before a byte is written, and so
 * is where each of its bytes fields lands: protobuf-c appends a bytes
 * field's payload in one call, after its tag and length. So the file is
 * sized once, the framing (tags, lengths, names, small payloads) is
 * written at its offsets from a bounded buffer, and the big payloads -
 * tensor bytes - become pieces that ir_ext_fill (ir/onnx/data_fill.c)
 * writes in parallel, exactly as in an external data file: bytes that
 * are also in a file copied inside the kernel, deferred tensors'
 * recipes evaluated straight into their place. The bytes are those the
 * streaming packer gives (the same packer produces them), only their
 * order of writing differs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "onnx/onnx_io.h"

/* Framing is gathered here and written when full: the memory it holds
 * does not grow with the model (small tensors are framing too). */
#define LAYOUT_BUF (1u << 20)

/* A stretch of framing: buf[at, +len) goes to the file at off. */
struct run {
	uint64_t off;
	size_t at;
	size_t len;
};

struct layout_sink {
	ProtobufCBuffer base;
	int fd;
	ir_layout_piece_fn fn;
	void *arg;
	uint64_t pos;		/* file offset of the next byte packed */
	uint8_t *buf;		/* LAYOUT_BUF bytes of framing */
	size_t used;
	struct run *runs;
	size_t nruns, caprun;
	struct ir_ext_piece *pieces;
	size_t npieces, cappiece;
	int failed;		/* errno of the first failure */
};

static void flush_runs(struct layout_sink *s)
{
	for (size_t i = 0; !s->failed && i < s->nruns; i++)
		if (fio_pwrite_all(s->fd, s->buf + s->runs[i].at,
				   s->runs[i].len, s->runs[i].off))
			s->failed = errno ? errno : EIO;
	s->used = 0;
	s->nruns = 0;
}

/* arr (of *cap elements of size) with room for one more than n: arr
 * itself, or a larger copy; NULL (arr left as is) when out of memory. */
static void *grow(void *arr, size_t *cap, size_t n, size_t size)
{
	size_t c = *cap ? *cap * 2 : 64;
	void *q;

	if (n < *cap)
		return arr;
	q = realloc(arr, c * size);
	if (q)
		*cap = c;
	return q;
}

static void add_framing(struct layout_sink *s, size_t len, const uint8_t *data)
{
	while (len && !s->failed) {
		size_t n = LAYOUT_BUF - s->used;
		struct run *last = s->nruns ? &s->runs[s->nruns - 1] : NULL;

		if (!n) {
			flush_runs(s);
			continue;
		}
		if (n > len)
			n = len;
		memcpy(s->buf + s->used, data, n);
		if (last && last->off + last->len == s->pos &&
		    last->at + last->len == s->used) {
			last->len += n;
		} else {
			struct run *r = grow(s->runs, &s->caprun, s->nruns,
					     sizeof(*r));

			if (!r) {
				s->failed = ENOMEM;
				return;
			}
			s->runs = r;
			s->runs[s->nruns++] = (struct run){ s->pos, s->used, n };
		}
		s->used += n;
		s->pos += n;
		data += n;
		len -= n;
	}
}

static void sink_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	struct layout_sink *s = (struct layout_sink *)b;
	struct ir_ext_piece p, *pc;

	if (s->failed || !len)
		return;
	memset(&p, 0, sizeof(p));
	p.fd = -1;
	if (!s->fn(s->arg, data, len, &p)) {
		add_framing(s, len, data);
		return;
	}
	pc = grow(s->pieces, &s->cappiece, s->npieces, sizeof(*pc));
	if (!pc) {
		s->failed = ENOMEM;
		return;
	}
	s->pieces = pc;
	p.len = len;
	p.off = s->pos;
	s->pieces[s->npieces++] = p;
	s->pos += len;
}

int ir_layout_write(int fd, const ProtobufCMessage *msg, uint64_t size,
		    ir_layout_piece_fn fn, void *arg, int threads,
		    const char *path, qir_error *err)
{
	struct layout_sink s = { .fd = fd, .fn = fn, .arg = arg };
	int rc = -1;

	s.base.append = sink_append;
	/* Sized first: the gaps the pieces leave read as holes until
	 * filled, and a full disk shows as an error from pwrite. */
	if (ftruncate(fd, (off_t)size) < 0)
		return qir_fail(err, QIR_EIO, "cannot write '%s': %s", path,
				strerror(errno));
	if (!(s.buf = malloc(LAYOUT_BUF)))
		return qir_fail(err, QIR_ENOMEM, "out of memory");
	protobuf_c_message_pack_to_buffer(msg, &s.base);
	flush_runs(&s);
	if (s.failed == ENOMEM)
		qir_fail(err, QIR_ENOMEM, "out of memory");
	else if (s.failed)
		qir_fail(err, QIR_EIO, "cannot write '%s': %s", path,
			 strerror(s.failed));
	else if (s.pos != size)
		/* The packer and its size disagree: nothing is committed. */
		qir_fail(err, QIR_EINVALID,
			 "'%s': the model packed to %llu bytes, %llu were laid out; nothing written",
			 path, (unsigned long long)s.pos,
			 (unsigned long long)size);
	else
		rc = ir_ext_fill(fd, s.pieces, s.npieces, threads, path, err);
	free(s.buf);
	free(s.runs);
	free(s.pieces);
	return rc;
}
