/*
 * kernels/transpose.c - 2-D transpose of fixed-size elements, for passes
 * that store a weight in the layout its consumer reads (fp8-mha's
 * pre-transposed FP8 weights).
 *
 * It only moves bytes, so it runs on the CPU under every device: a trip
 * over PCIe and back would cost more than the move itself. Work is split
 * in bands of 64 source columns (64 destination rows), disjoint between
 * threads. Inside a band the source is walked in 64 x 64 tiles; one
 * byte elements go through 16 x 16 blocks of SSE2 unpacks, where the
 * four blocks along a line read and write it whole between them. With
 * AVX-512 (chosen at run time, QK_NO_SIMD off) a band's four blocks are
 * one pass of 16 x 64 bytes, and where the destination rows are 64-byte
 * aligned 64 rows at a time go out as whole lines, non-temporally.
 */
#include <string.h>

#include "internal.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define QKI_TBAND 64

struct qki_tr {
	const unsigned char *src;
	unsigned char *dst;
	size_t es, rows, cols, ds;
};

#if defined(__SSE2__)
/* 16 x 16 bytes: four perfect shuffles (row i interleaved with row
 * i + 8, byte by byte) turn rows into columns. */
static void qki_t16x16(const unsigned char *src, size_t ss,
		       unsigned char *dst, size_t ds)
{
	__m128i a[16], b[16];
	int i, s;

	for (i = 0; i < 16; i++)
		a[i] = _mm_loadu_si128((const __m128i *)(src + i * ss));
	for (s = 0; s < 4; s++) {
		for (i = 0; i < 8; i++) {
			b[2 * i] = _mm_unpacklo_epi8(a[i], a[i + 8]);
			b[2 * i + 1] = _mm_unpackhi_epi8(a[i], a[i + 8]);
		}
		memcpy(a, b, sizeof(a));
	}
	for (i = 0; i < 16; i++)
		_mm_storeu_si128((__m128i *)(dst + i * ds), a[i]);
}
#endif

#if QKI_HAVE_F16C
#include <immintrin.h>

/* 16 x 64 bytes on AVX-512: the four perfect shuffles of qki_t16x16
 * run inside each 128-bit lane, so one pass transposes the four 16 x 16
 * blocks of a whole 64-column band at once, with all rows in registers
 * (a and b take turns: no copies between the stages). Lane l of row i
 * is then destination row 16 * l + i. */
#define QKI_T_STAGE(a, b)                                                 \
	do {                                                              \
		for (int i_ = 0; i_ < 8; i_++) {                          \
			b[2 * i_] = _mm512_unpacklo_epi8(a[i_], a[i_ + 8]);  \
			b[2 * i_ + 1] = _mm512_unpackhi_epi8(a[i_], a[i_ + 8]); \
		}                                                         \
	} while (0)

__attribute__((target("avx512f,avx512bw,avx512vl"))) static void
qki_t16x64(const unsigned char *src, size_t ss, unsigned char *dst,
	   size_t ds)
{
	__m512i a[16], b[16];
	int i;

	for (i = 0; i < 16; i++)
		a[i] = _mm512_loadu_si512(src + i * ss);
	QKI_T_STAGE(a, b);
	QKI_T_STAGE(b, a);
	QKI_T_STAGE(a, b);
	QKI_T_STAGE(b, a);
	for (i = 0; i < 16; i++) {
		_mm_storeu_si128((__m128i *)(dst + i * ds),
				 _mm512_castsi512_si128(a[i]));
		_mm_storeu_si128((__m128i *)(dst + (16 + i) * ds),
				 _mm512_extracti32x4_epi32(a[i], 1));
		_mm_storeu_si128((__m128i *)(dst + (32 + i) * ds),
				 _mm512_extracti32x4_epi32(a[i], 2));
		_mm_storeu_si128((__m128i *)(dst + (48 + i) * ds),
				 _mm512_extracti32x4_epi32(a[i], 3));
	}
}

/* 64 x 64 bytes: four 16 x 64 passes into an L1 buffer, then each
 * destination row's 64 bytes as one non-temporal store. The transposed
 * weight is written once and not read back, and a whole line written
 * at once needs no read for ownership: the destination lines are no
 * longer fetched from memory to be overwritten (dst + r * ds must be
 * 64-byte aligned). */
__attribute__((target("avx512f,avx512bw,avx512vl"))) static void
qki_t64x64_nt(const unsigned char *src, size_t ss, unsigned char *dst,
	      size_t ds)
{
	unsigned char tmp[64 * 64] __attribute__((aligned(64)));
	int k;

	for (k = 0; k < 4; k++)
		qki_t16x64(src + 16 * k * ss, ss, tmp + 16 * k, 64);
	for (k = 0; k < 64; k++)
		_mm512_stream_si512((void *)(dst + k * ds),
				    _mm512_load_si512(tmp + 64 * k));
}
#endif

/* Elements (i, j) for i in [i0, i1), j in [j0, j1), one at a time. */
static void qki_tr_plain(const struct qki_tr *t, size_t i0, size_t i1,
			 size_t j0, size_t j1)
{
	for (size_t j = j0; j < j1; j++)
		for (size_t i = i0; i < i1; i++)
			memcpy(t->dst + (j * t->ds + i) * t->es,
			       t->src + (i * t->cols + j) * t->es, t->es);
}

/* Source columns [j0, j0 + w) of every row. */
static void qki_tr_band(const struct qki_tr *t, size_t j0, size_t w)
{
	size_t i = 0;

#if QKI_HAVE_F16C
	if (t->es == 1 && w == QKI_TBAND && qki_have_avx512()) {
		unsigned char *d = t->dst + j0 * t->ds;

		if ((uintptr_t)d % 64 == 0 && t->ds % 64 == 0)
			for (; i + 64 <= t->rows; i += 64)
				qki_t64x64_nt(t->src + i * t->cols + j0,
					      t->cols, d + i, t->ds);
		for (; i + 16 <= t->rows; i += 16)
			qki_t16x64(t->src + i * t->cols + j0, t->cols,
				   t->dst + j0 * t->ds + i, t->ds);
	}
#endif
#if defined(__SSE2__)
	if (t->es == 1) {
		size_t w16 = w & ~(size_t)15;

		for (; i + 16 <= t->rows; i += 16)
			for (size_t j = j0; j < j0 + w16; j += 16)
				qki_t16x16(t->src + i * t->cols + j, t->cols,
					   t->dst + j * t->ds + i, t->ds);
		qki_tr_plain(t, 0, i, j0 + w16, j0 + w);
	}
#endif
	/* Tiles of 64 rows: a band's destination rows fill front to back. */
	for (; i < t->rows; i += QKI_TBAND) {
		size_t i1 = t->rows - i < QKI_TBAND ? t->rows : i + QKI_TBAND;

		qki_tr_plain(t, i, i1, j0, j0 + w);
	}
}

static int qki_tr_range(void *arg, unsigned part, size_t lo, size_t hi)
{
	const struct qki_tr *t = arg;

	(void)part;
	for (; lo < hi; lo++) {
		size_t j0 = lo * QKI_TBAND;
		size_t w = t->cols - j0 < QKI_TBAND ? t->cols - j0 : QKI_TBAND;

		qki_tr_band(t, j0, w);
	}
#if QKI_HAVE_F16C
	/* Non-temporal stores are weakly ordered: drain them before the
	 * caller (or the thread joining this one) reads the result. */
	_mm_sfence();
#endif
	return 0;
}

qopt_status qk_transpose(qk_ctx *ctx, size_t esize, const void *src, size_t rows,
		 size_t cols, void *dst, size_t dst_stride)
{
	struct qki_tr t = { src, dst, esize, rows, cols, dst_stride };
	size_t total;

	if (esize != 1 && esize != 2 && esize != 4 && esize != 8)
		return QK_EINVAL;
	if (dst_stride < rows || qki_mul3(rows, cols, esize, &total) ||
	    qki_mul3(cols, dst_stride, esize, &total))
		return QK_EINVAL;
	if (!rows || !cols)
		return 0;
	if (!src || !dst)
		return QK_EINVAL;
	return qki_parallel(ctx, (cols + QKI_TBAND - 1) / QKI_TBAND,
			    rows * cols * esize, qki_tr_range, &t, NULL);
}
