/*
 * ir/model/digest.c - a 64-bit digest of a tensor's bytes at memory
 * speed, for qir_model_hash (ir/model/hash.c).
 *
 * FNV-1a, the hash's byte mixer, is one multiply per byte, each waiting
 * on the last (about 0.7 GB/s, seconds for a large model). Here four
 * independent lanes each take a 64-bit word per step (the xxHash64
 * round), so the multiplies overlap and the loop runs as fast as memory
 * delivers the bytes. Words are read little-endian whatever the host,
 * so a model has one digest everywhere.
 */
#include <string.h>
#include "model/internal.h"

#define P1 0x9e3779b185ebca87ULL
#define P2 0xc2b2ae3d27d4eb4fULL
#define P3 0x165667b19e3779f9ULL

static uint64_t rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static uint64_t word(const unsigned char *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w;
}

static uint64_t round64(uint64_t acc, uint64_t w)
{
	return rotl(acc + w * P2, 31) * P1;
}

uint64_t ir_digest(const void *data, uint64_t n)
{
	const unsigned char *p = data;
	uint64_t l0 = P1 + P2, l1 = P2, l2 = 0, l3 = 0 - P1, h, i = 0;

	for (; n - i >= 32; i += 32) {
		l0 = round64(l0, word(p + i));
		l1 = round64(l1, word(p + i + 8));
		l2 = round64(l2, word(p + i + 16));
		l3 = round64(l3, word(p + i + 24));
	}
	h = rotl(l0, 1) + rotl(l1, 7) + rotl(l2, 12) + rotl(l3, 18);
	h = (h ^ round64(0, l0)) * P1 + P3;
	h = (h ^ round64(0, l1)) * P1 + P3;
	h = (h ^ round64(0, l2)) * P1 + P3;
	h = (h ^ round64(0, l3)) * P1 + P3;
	h += n;
	for (; n - i >= 8; i += 8)
		h = rotl(h ^ round64(0, word(p + i)), 27) * P1 + P3;
	for (; i < n; i++)
		h = rotl(h ^ (p[i] * 0x27d4eb2f165667c5ULL), 11) * P1;
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	return h ^ (h >> 32);
}
