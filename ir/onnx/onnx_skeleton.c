/*
 * ir/onnx/onnx_skeleton.c - large raw_data stays in the loaded file.
 *
 * protobuf-c copies every bytes field it unpacks, so unpacking a model
 * straight from its mapping would hold each weight twice at the peak
 * and copy it once even when no pass touches it. Instead the reader
 * unpacks a small rewrite of the file (the "skeleton") in which every
 * large TensorProto.raw_data the IR turns into a tensor is replaced by
 * a token naming the payload's place in the file, then points those
 * raw_data fields back at the file's bytes. The unpacked message then
 * says exactly what the file says (original lengths included), so
 * size checks, error messages and the writer's verbatim copies see no
 * difference; only its owner must know not to free those bytes.
 *
 * Only the paths the reader converts are walked (ModelProto.graph ->
 * GraphProto.initializer / node -> NodeProto.attribute -> t, tensors,
 * g, graphs, recursively); every other field is copied byte for byte.
 * Anything that does not parse cleanly ends the rewrite: the caller
 * unpacks the original bytes instead and protobuf-c reports the error
 * exactly as it would have.
 */
#include <stdlib.h>
#include <string.h>
#include "onnx/onnx_io.h"

/* Messages nested deeper than this (some 16 levels of subgraphs) are
 * left to the copying path. */
#define SKEL_DEPTH 64

static const uint8_t *const magic = (const uint8_t *)QIR_SKEL_MAGIC;

enum kind { K_NONE, K_MODEL, K_GRAPH, K_NODE, K_ATTR, K_TENSOR, K_RAW };

/* The message kind field `field` (length-delimited) holds inside a
 * message of kind k, as far as the reader converts it. */
static enum kind child_kind(enum kind k, uint64_t field)
{
	switch (k) {
	case K_MODEL:
		return field == 7 ? K_GRAPH : K_NONE;
	case K_GRAPH:
		return field == 1 ? K_NODE : field == 5 ? K_TENSOR : K_NONE;
	case K_NODE:
		return field == 5 ? K_ATTR : K_NONE;
	case K_ATTR:
		if (field == 5 || field == 10)
			return K_TENSOR;
		return field == 6 || field == 11 ? K_GRAPH : K_NONE;
	case K_TENSOR:
		return field == 9 ? K_RAW : K_NONE;
	default:
		return K_NONE;
	}
}

/* A rewritten sub-message, in walk (pre-)order: measuring fills these,
 * emitting reads them back. */
struct sub {
	uint64_t len;		/* its new length */
	size_t nsubs;		/* entries for its own sub-messages */
	size_t ntokens;		/* tokens inside it */
};

struct skel_ctx {
	const uint8_t *src;
	int emit;
	struct sub *subs;
	size_t nsubs, capsubs, next;
	size_t ntokens;
	uint8_t *out;		/* emitting: ocap bytes */
	size_t olen, ocap;
	int overflow;		/* emitting wrote past what measuring said */
	struct ir_skel_span *spans;	/* emitting: nspans of them */
	size_t nspans;
};

static size_t get_varint(const uint8_t *p, size_t end, size_t off,
			 uint64_t *v)
{
	*v = 0;
	for (int s = 0; s < 64 && off < end; s += 7) {
		*v |= (uint64_t)(p[off] & 0x7f) << s;
		if (!(p[off++] & 0x80))
			return off;
	}
	return 0;
}

static size_t varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static void put_varint(struct skel_ctx *c, uint64_t v)
{
	if (c->ocap - c->olen < varint_size(v)) {
		c->overflow = 1;
		return;
	}
	while (v >= 0x80) {
		c->out[c->olen++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	c->out[c->olen++] = (uint8_t)v;
}

static void put(struct skel_ctx *c, const uint8_t *p, size_t n)
{
	if (c->ocap - c->olen < n) {
		c->overflow = 1;
		return;
	}
	memcpy(c->out + c->olen, p, n);
	c->olen += n;
}

/* A field as found: key ends at hdr; a length-delimited one has its
 * payload at pay, plen bytes. */
struct field {
	uint64_t key;
	size_t hdr, pay;
	uint64_t plen;
};

/* Where the field starting at off ends; 0 when it does not parse. */
static size_t field_end(const uint8_t *p, size_t end, size_t off,
			struct field *f)
{
	size_t at;
	uint64_t v;

	if (!(at = get_varint(p, end, off, &f->key)) || (f->key >> 3) == 0)
		return 0;
	f->hdr = at;
	switch (f->key & 7) {
	case 0:
		return get_varint(p, end, at, &v);
	case 1:
		return end - at >= 8 ? at + 8 : 0;
	case 5:
		return end - at >= 4 ? at + 4 : 0;
	case 2:
		if (!(at = get_varint(p, end, at, &f->plen)) ||
		    f->plen > end - at)
			return 0;
		f->pay = at;
		return at + (size_t)f->plen;
	default:
		return 0;	/* groups: not in ONNX */
	}
}

static int walk(struct skel_ctx *c, size_t off, size_t end, enum kind k,
		int depth, uint64_t *newlen);

/* A large raw_data becomes its token. A small one that looks like a
 * token would be mistaken for one: the rewrite gives up. */
static int raw_field(struct skel_ctx *c, size_t start, const struct field *f,
		     uint64_t *size)
{
	size_t keylen = f->hdr - start;

	if (f->plen < QIR_SKEL_MIN) {
		if (f->plen == QIR_SKEL_TOKEN_LEN &&
		    !memcmp(c->src + f->pay, magic, QIR_SKEL_MAGIC_LEN))
			return -1;
		*size = f->pay + f->plen - start;
		if (c->emit)
			put(c, c->src + start, (size_t)*size);
		return 0;
	}
	*size = keylen + varint_size(QIR_SKEL_TOKEN_LEN) + QIR_SKEL_TOKEN_LEN;
	if (c->emit) {
		uint64_t idx = c->ntokens;

		if (idx >= c->nspans)
			return -1;
		put(c, c->src + start, keylen);
		put_varint(c, QIR_SKEL_TOKEN_LEN);
		put(c, magic, QIR_SKEL_MAGIC_LEN);
		uint8_t le[8];

		for (int i = 0; i < 8; i++)
			le[i] = (uint8_t)(idx >> (8 * i));
		put(c, le, sizeof(le));
		c->spans[idx].off = f->pay;
		c->spans[idx].len = f->plen;
	}
	c->ntokens++;
	return 0;
}

static int measure_sub(struct skel_ctx *c, size_t start, const struct field *f,
		       enum kind k, int depth, uint64_t *size)
{
	size_t slot = c->nsubs, tokens = c->ntokens;
	uint64_t len;

	if (c->nsubs == c->capsubs) {
		size_t cap = c->capsubs ? c->capsubs * 2 : 256;
		struct sub *s = realloc(c->subs, cap * sizeof(*s));

		if (!s)
			return -1;
		c->subs = s;
		c->capsubs = cap;
	}
	c->nsubs++;
	if (walk(c, f->pay, f->pay + (size_t)f->plen, k, depth + 1, &len))
		return -1;
	c->subs[slot].len = len;
	c->subs[slot].nsubs = c->nsubs - slot - 1;
	c->subs[slot].ntokens = c->ntokens - tokens;
	/* Nothing replaced inside: kept byte for byte. */
	if (c->ntokens == tokens)
		*size = f->pay + f->plen - start;
	else
		*size = (f->hdr - start) + varint_size(len) + len;
	return 0;
}

static int emit_sub(struct skel_ctx *c, size_t start, const struct field *f,
		    enum kind k, int depth)
{
	const struct sub *s;
	uint64_t len;

	if (c->next >= c->nsubs)
		return -1;
	s = &c->subs[c->next++];
	if (!s->ntokens) {
		c->next += s->nsubs;
		put(c, c->src + start, f->pay + (size_t)f->plen - start);
		return 0;
	}
	put(c, c->src + start, f->hdr - start);
	put_varint(c, s->len);
	return walk(c, f->pay, f->pay + (size_t)f->plen, k, depth + 1, &len);
}

/* Measures (or, when emitting, writes) the message at [off, end) of
 * kind k; *newlen: its length once rewritten. */
static int walk(struct skel_ctx *c, size_t off, size_t end, enum kind k,
		int depth, uint64_t *newlen)
{
	uint64_t total = 0;

	if (depth > SKEL_DEPTH)
		return -1;
	while (off < end) {
		struct field f = { 0 };
		size_t next = field_end(c->src, end, off, &f);
		enum kind ck;
		uint64_t size = 0;
		int rc = 0;

		if (!next)
			return -1;
		ck = (f.key & 7) == 2 ? child_kind(k, f.key >> 3) : K_NONE;
		if (ck == K_NONE) {
			size = next - off;
			if (c->emit)
				put(c, c->src + off, (size_t)size);
		} else if (ck == K_RAW) {
			rc = raw_field(c, off, &f, &size);
		} else if (!c->emit) {
			rc = measure_sub(c, off, &f, ck, depth, &size);
		} else {
			rc = emit_sub(c, off, &f, ck, depth);
		}
		if (rc)
			return -1;
		total += size;
		off = next;
	}
	*newlen = total;
	return 0;
}

int ir_skel_build(const uint8_t *src, size_t len, struct ir_skeleton *sk)
{
	struct skel_ctx c = { .src = src };
	uint64_t newlen, unused;

	memset(sk, 0, sizeof(*sk));
	if (walk(&c, 0, len, K_MODEL, 0, &newlen) || !c.ntokens ||
	    newlen > len)
		goto none;
	sk->nspans = c.ntokens;
	sk->spans = calloc(c.ntokens, sizeof(*sk->spans));
	sk->buf = malloc((size_t)newlen);
	if (!sk->spans || !sk->buf)
		goto none;
	c.emit = 1;
	c.out = sk->buf;
	c.ocap = (size_t)newlen;
	c.spans = sk->spans;
	c.nspans = sk->nspans;
	c.ntokens = 0;
	if (walk(&c, 0, len, K_MODEL, 0, &unused) || c.overflow ||
	    c.olen != newlen || c.ntokens != sk->nspans)
		goto none;
	sk->len = c.olen;
	free(c.subs);
	return 1;
none:
	free(c.subs);
	ir_skel_free(sk);
	return 0;
}

void ir_skel_free(struct ir_skeleton *sk)
{
	free(sk->buf);
	free(sk->spans);
	memset(sk, 0, sizeof(*sk));
}

/* ---- after unpacking: tokens back to the file's bytes ------------- */

struct resolve {
	const struct ir_skeleton *sk;
	const uint8_t *src;
	uint8_t *claimed;
};

static int resolve_graph(struct resolve *r, Onnx__GraphProto *gp);

static int resolve_tensor(struct resolve *r, Onnx__TensorProto *tp)
{
	ProtobufCBinaryData *b = &tp->raw_data;
	uint64_t idx = 0;

	if (!tp->has_raw_data || b->len != QIR_SKEL_TOKEN_LEN ||
	    memcmp(b->data, magic, QIR_SKEL_MAGIC_LEN))
		return 0;
	for (int i = 0; i < 8; i++)
		idx |= (uint64_t)b->data[QIR_SKEL_MAGIC_LEN + i] << (8 * i);
	if (idx >= r->sk->nspans || r->claimed[idx])
		return -1;
	r->claimed[idx] = 1;
	/* protobuf-c's default allocator is malloc. */
	free(b->data);
	b->data = (uint8_t *)r->src + r->sk->spans[idx].off;
	b->len = r->sk->spans[idx].len;
	return 0;
}

static int resolve_attr(struct resolve *r, Onnx__AttributeProto *ap)
{
	if (ap->t && resolve_tensor(r, ap->t))
		return -1;
	for (size_t i = 0; i < ap->n_tensors; i++)
		if (resolve_tensor(r, ap->tensors[i]))
			return -1;
	if (ap->g && resolve_graph(r, ap->g))
		return -1;
	for (size_t i = 0; i < ap->n_graphs; i++)
		if (resolve_graph(r, ap->graphs[i]))
			return -1;
	return 0;
}

static int resolve_graph(struct resolve *r, Onnx__GraphProto *gp)
{
	for (size_t i = 0; i < gp->n_initializer; i++)
		if (resolve_tensor(r, gp->initializer[i]))
			return -1;
	for (size_t i = 0; i < gp->n_node; i++) {
		const Onnx__NodeProto *np = gp->node[i];

		for (size_t j = 0; j < np->n_attribute; j++)
			if (resolve_attr(r, np->attribute[j]))
				return -1;
	}
	return 0;
}

int ir_skel_resolve(Onnx__ModelProto *mp, const struct ir_skeleton *sk,
		      const uint8_t *src)
{
	struct resolve r = { .sk = sk, .src = src };
	int rc;

	if (!mp->graph)
		return 0;
	r.claimed = calloc(sk->nspans, 1);
	if (!r.claimed)
		return -1;
	rc = resolve_graph(&r, mp->graph);
	free(r.claimed);
	return rc;
}

/* ---- freeing a message that borrows ----------------------------- */

struct borrowed {
	uintptr_t base;
	size_t len;
};

static void *pb_alloc(void *data, size_t size)
{
	(void)data;
	return malloc(size);
}

static void pb_free(void *data, void *p)
{
	const struct borrowed *b = data;

	if ((uintptr_t)p - b->base < b->len)
		return;		/* the file's bytes */
	free(p);
}

void ir_pb_model_free(Onnx__ModelProto *mp, const void *base, size_t len)
{
	struct borrowed b = { (uintptr_t)base, base ? len : 0 };
	ProtobufCAllocator a = { pb_alloc, pb_free, &b };

	if (mp)
		onnx__model_proto__free_unpacked(mp, &a);
}
