/*
 * kernels/nvfp4.c - NVFP4 weight quantization (E2M1 codes, E4M3 block
 * scales of 16 along K, one FP32 global scale) and its inverse.
 *
 * The arithmetic is in numerics.h (qk_nvfp4_*), shared with CUDA; the
 * exact sequence is documented at qk_nvfp4_quantize in qopt/kernels.h.
 *
 * Work is cut in tiles: tile (o, kb) is the 16 x inner slab of rows
 * kb*16 .. kb*16+15 of outer index o. A tile is contiguous in W, in the
 * packed codes (16 * inner is even, so it starts on a byte) and in the
 * scales, so tiles are independent and the result cannot depend on how
 * they are spread over threads. inner == 1 (K the last axis, the usual
 * [N, K] Linear weight) has its own path: a tile is then one block of
 * 16 contiguous elements, processed QKI_NVB blocks at a time.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define QKI_NVB QKI_AMAX16 /* blocks per step of the inner == 1 path */

struct qki_nv {
	int dtype;
	const void *w;
	void *out;             /* dequantize: the real output */
	size_t k, inner, nb;   /* nb = k / 16 */
	float g;
	uint8_t *codes;
	uint8_t *scales;
	const uint8_t *ccodes; /* dequantize inputs */
	const uint8_t *cscales;
	float *bmax;           /* inner == 1: amax of every block */
	float part[QKI_MAX_THREADS];
};

/* inner == 1 runs in two passes over W, both QKI_NVB blocks of 16 at
 * a time: the first stores every block's amax (qki_amax16, the global
 * amax is their max), the second encodes. Each phase is a fixed-size
 * loop the vectorizer takes. */
QKI_HOT static void qki_nv_q_blocks(const qki_f32u *restrict x,
				    const float *restrict m, float g,
				    uint8_t *restrict codes,
				    uint8_t *restrict scales)
{
	float div[QKI_NVB];
	/* 32-bit codes: with bytes GCC runs the encoder 16 lanes wide and
	 * spends most of its time narrowing and widening masks. */
	uint32_t c[QKI_NVB * QK_NVFP4_BLOCK];
	size_t b, j;

	for (b = 0; b < QKI_NVB; b++) {
		uint32_t s = qki_nvfp4_scale_code(m[b], g);

		div[b] = qki_nvfp4_block_div(s, g);
		scales[b] = (uint8_t)s;
	}
	for (b = 0; b < QKI_NVB; b++)
		for (j = 0; j < QK_NVFP4_BLOCK; j++)
			c[b * QK_NVFP4_BLOCK + j] = qki_enc_e2m1(
				QK_FDIV(x[b * QK_NVFP4_BLOCK + j], div[b]));
	for (j = 0; j < QKI_NVB * QK_NVFP4_BLOCK / 2; j++)
		codes[j] = (uint8_t)(c[2 * j] | c[2 * j + 1] << 4);
}

/* QKI_NVB blocks starting at block b as floats: W itself when it is
 * FLOAT and whole, else converted into buf (zero-padded past n). */
static const qki_f32u *qki_nv_rows_at(const struct qki_nv *a, size_t b,
				      size_t n, float *buf)
{
	if (a->dtype == QK_T_FLOAT && n == QKI_NVB)
		return (const qki_f32u *)a->w + b * QK_NVFP4_BLOCK;
	if (n < QKI_NVB)
		memset(buf, 0, QKI_NVB * QK_NVFP4_BLOCK * sizeof(float));
	qki_load_f32(a->dtype, a->w, b * QK_NVFP4_BLOCK, n * QK_NVFP4_BLOCK,
		     buf);
	return buf;
}

/* Both passes are streams over W; fetching 8 steps (8 KiB of FLOAT)
 * ahead measured +35% over the hardware prefetcher alone. */
static void qki_nv_prefetch(const struct qki_nv *a, size_t b, size_t hi)
{
	size_t sz = qki_dtype_size(a->dtype), ahead = b + 8 * QKI_NVB;

	if (ahead + QKI_NVB <= hi)
		qki_prefetch((const char *)a->w + ahead * QK_NVFP4_BLOCK * sz,
			     QKI_NVB * QK_NVFP4_BLOCK * sz);
}

static int qki_nv_bmax_rows(void *arg, unsigned part, size_t lo, size_t hi)
{
	struct qki_nv *a = arg;
	float buf[QKI_NVB * QK_NVFP4_BLOCK], m[QKI_NVB], top = 0;
	size_t b, n, j;

	for (b = lo; b < hi; b += n) {
		n = hi - b < QKI_NVB ? hi - b : QKI_NVB;
		qki_nv_prefetch(a, b, hi);
		qki_amax16(qki_nv_rows_at(a, b, n, buf), m);
		for (j = 0; j < n; j++) {
			a->bmax[b + j] = m[j];
			top = m[j] > top ? m[j] : top;
		}
	}
	a->part[part] = top;
	return 0;
}

static int qki_nv_q_rows(void *arg, unsigned part, size_t lo, size_t hi)
{
	const struct qki_nv *a = arg;
	float buf[QKI_NVB * QK_NVFP4_BLOCK], m[QKI_NVB] = { 0 };
	uint8_t c[QKI_NVB * 8], s[QKI_NVB];
	size_t b, n;

	(void)part;
	for (b = lo; b < hi; b += n) {
		n = hi - b < QKI_NVB ? hi - b : QKI_NVB;
		if (n == QKI_NVB) {
			qki_nv_prefetch(a, b, hi);
#if QKI_HAVE_F16C
			if (qki_have_avx512()) {
				qki_nv_blocks_avx512(
					a->dtype, (const char *)a->w +
					b * QK_NVFP4_BLOCK *
					qki_dtype_size(a->dtype),
					a->bmax + b, a->g, a->codes + b * 8,
					a->scales + b);
				continue;
			}
			if (qki_cpu_f16c()) {
				qki_nv_blocks_avx2(
					a->dtype, (const char *)a->w +
					b * QK_NVFP4_BLOCK *
					qki_dtype_size(a->dtype),
					a->bmax + b, a->g, a->codes + b * 8,
					a->scales + b);
				continue;
			}
#endif
			qki_nv_q_blocks(qki_nv_rows_at(a, b, n, buf),
					a->bmax + b, a->g, a->codes + b * 8,
					a->scales + b);
			continue;
		}
		/* short last step: padded, only its n blocks stored */
		memcpy(m, a->bmax + b, n * sizeof(float));
		qki_nv_q_blocks(qki_nv_rows_at(a, b, n, buf), m, a->g, c, s);
		memcpy(a->scales + b, s, n);
		memcpy(a->codes + b * 8, c, n * 8);
	}
	return 0;
}

/* One chunk of a tile (inner > 1): 16 rows of QKI_CHUNK columns in x,
 * zero past the tile's last column. Every loop has a fixed trip count,
 * which is what GCC's -O2 vectorizer takes; with a variable count
 * (the last, short chunk) the encoder ran scalar, 5x slower. Zero
 * columns are harmless: scale 1.0, codes 0, neither is stored. */
QKI_HOT static void qki_nv_q_chunk(const float (*restrict x)[QKI_CHUNK],
				   float g, uint8_t *restrict s,
				   uint32_t (*restrict c)[QKI_CHUNK])
{
	uint32_t m[QKI_CHUNK];
	float div[QKI_CHUNK];
	size_t r, j;

	for (j = 0; j < QKI_CHUNK; j++)
		m[j] = 0;
	for (r = 0; r < QK_NVFP4_BLOCK; r++)
		for (j = 0; j < QKI_CHUNK; j++) {
			uint32_t v = qki_abs_bits(x[r][j]);

			m[j] = v > m[j] ? v : m[j];
		}
	for (j = 0; j < QKI_CHUNK; j++) {
		uint32_t sc = qki_nvfp4_scale_code(qki_u2f(m[j]), g);

		s[j] = (uint8_t)sc;
		div[j] = qki_nvfp4_block_div(sc, g);
	}
	for (r = 0; r < QK_NVFP4_BLOCK; r++)
		for (j = 0; j < QKI_CHUNK; j++)
			c[r][j] = qki_enc_e2m1(QK_FDIV(x[r][j], div[j]));
}

/* Packs QKI_CHUNK codes (element 2j low nibble, 2j + 1 high). */
QKI_HOT static void qki_nv_pack(const uint32_t *restrict c,
				uint8_t *restrict out)
{
	size_t j;

	for (j = 0; j < QKI_CHUNK / 2; j++)
		out[j] = (uint8_t)(c[2 * j] | c[2 * j + 1] << 4);
}

struct qki_nv_buf {
	float x[QK_NVFP4_BLOCK][QKI_CHUNK];
	uint32_t c[QK_NVFP4_BLOCK][QKI_CHUNK];
	uint8_t s[QKI_CHUNK];
	uint8_t p[QKI_CHUNK / 2];
	uint8_t *c8; /* odd inner: the tile's codes, one byte each */
};

/* Tile t (inner > 1). With an even inner every row of a chunk starts
 * on a byte of the packed codes and is packed in place; with an odd
 * one rows alternate nibbles, so the tile's codes go to c8 first. */
static void qki_nv_q_tile(const struct qki_nv *a, size_t t,
			  struct qki_nv_buf *b)
{
	size_t base = t * QK_NVFP4_BLOCK * a->inner, col, cw, r, j;
	int even = a->inner % 2 == 0;

	for (col = 0; col < a->inner; col += cw) {
		cw = a->inner - col < QKI_CHUNK ? a->inner - col : QKI_CHUNK;
		for (r = 0; r < QK_NVFP4_BLOCK; r++) {
			if (cw < QKI_CHUNK)
				memset(b->x[r] + cw, 0,
				       (QKI_CHUNK - cw) * sizeof(float));
			qki_load_f32(a->dtype, a->w, base + r * a->inner + col,
				     cw, b->x[r]);
		}
		qki_nv_q_chunk((const float (*)[QKI_CHUNK])b->x, a->g, b->s,
			       b->c);
		memcpy(a->scales + t * a->inner + col, b->s, cw);
		for (r = 0; r < QK_NVFP4_BLOCK; r++) {
			size_t e = base + r * a->inner + col;

			if (even) {
				qki_nv_pack(b->c[r], b->p);
				memcpy(a->codes + e / 2, b->p, cw / 2);
				continue;
			}
			for (j = 0; j < cw; j++)
				b->c8[e - base + j] = (uint8_t)b->c[r][j];
		}
	}
	if (!even)
		for (j = 0; j < QK_NVFP4_BLOCK * a->inner / 2; j++)
			a->codes[base / 2 + j] = (uint8_t)(b->c8[2 * j] |
							   b->c8[2 * j + 1] << 4);
}

static int qki_nv_q_tiles(void *arg, unsigned part, size_t lo, size_t hi)
{
	const struct qki_nv *a = arg;
	struct qki_nv_buf *b;

	(void)part;
#if QKI_HAVE_F16C
	/* Whole 16-column steps: kernels/nvfp4-avx512.c, same bits. */
	if (a->inner % 16 == 0 && qki_have_avx512()) {
		qki_nv_tiles_avx512(a->dtype, a->w, a->inner, a->g, lo, hi,
				    a->codes, a->scales);
		return 0;
	}
	/* 8-column steps on AVX2: kernels/nvfp4-avx2.c, same bits. */
	if (a->inner % 8 == 0 && qki_cpu_f16c()) {
		qki_nv_tiles_avx2(a->dtype, a->w, a->inner, a->g, lo, hi,
				  a->codes, a->scales);
		return 0;
	}
#endif
	b = malloc(sizeof(*b));
	if (!b)
		return QK_ENOMEM;
	b->c8 = NULL;
	if (a->inner % 2 && !(b->c8 = malloc(QK_NVFP4_BLOCK * a->inner))) {
		free(b);
		return QK_ENOMEM;
	}
	for (; lo < hi; lo++)
		qki_nv_q_tile(a, lo, b);
	free(b->c8);
	free(b);
	return 0;
}

/* Shared argument checks; sets *n. */
static int qki_nv_check(int dtype, size_t outer, size_t k, size_t inner,
			size_t *n)
{
	if (!qki_is_real(dtype))
		return QK_EDTYPE;
	if (qki_mul3(outer, k, inner, n) || *n > SIZE_MAX / 4)
		return QK_EINVAL;
	if (k % QK_NVFP4_BLOCK)
		return QK_EBLOCK;
	return 0;
}

/* known: the caller's amax bits, or NULL to take them from w; given:
 * the global scale itself (TensorRT's dynamic quantization of an
 * activation, whose g comes from calibration, not from x), or NULL. */
static qopt_status qki_nv_quantize(qk_ctx *ctx, int src_dtype, const void *w,
			   size_t outer, size_t k, size_t inner,
			   const uint32_t *known, const float *given,
			   uint8_t *codes, uint8_t *scales, float *gscale)
{
	struct qki_nv a = { .dtype = src_dtype, .w = w, .k = k,
			    .inner = inner, .codes = codes, .scales = scales };
	const struct qki_cuda_ops *ops;
	size_t n, sz = qki_dtype_size(src_dtype), tiles;
	unsigned parts, i;
	uint32_t amax;
	int rc = qki_nv_check(src_dtype, outer, k, inner, &n);

	if (rc)
		return rc;
	if (!gscale || (n && (!w || !codes || !scales)))
		return QK_EINVAL;
	rc = qki_route(ctx, n * sz, &ops);
	if (rc)
		return rc;
	/* The CUDA module derives g from w: a given g runs here. */
	if (ops && !given) {
		rc = ops->nvfp4_quantize(src_dtype, w, outer, k, inner, codes,
					 scales, gscale);
		rc = qki_cuda_result(ctx, ops, rc, n * sz);
		if (rc != QKI_CPU)
			return rc;
	}
	a.nb = k / QK_NVFP4_BLOCK;
	tiles = outer * a.nb;
	if (n && inner == 1) {
		/* The block maxima are needed anyway; amax comes free. */
		a.bmax = malloc(tiles * sizeof(float));
		if (!a.bmax)
			return QK_ENOMEM;
		qki_parallel(ctx, tiles, n * sz, qki_nv_bmax_rows, &a, &parts);
		for (i = 0, amax = 0; i < parts; i++)
			amax = qki_f2u(a.part[i]) > amax ? qki_f2u(a.part[i]) : amax;
	} else {
		amax = known ? *known : given ? 0 :
		       qki_amax_bits(ctx, src_dtype, w, n);
	}
	if (amax == 0x7f800000u && !given) {
		free(a.bmax);
		return QOPT_EINVALID_NONFINITE; /* no finite scale represents inf */
	}
	a.g = given ? *given : qki_nvfp4_gscale(qki_u2f(amax));
	if (n && inner == 1)
		rc = qki_parallel(ctx, tiles, n * sz, qki_nv_q_rows, &a, NULL);
	else if (n)
		rc = qki_parallel(ctx, tiles, n * sz, qki_nv_q_tiles, &a, NULL);
	free(a.bmax);
	if (rc)
		return rc;
	*gscale = a.g;
	qki_account(ctx, 0, n * sz);
	return 0;
}

qopt_status qk_nvfp4_quantize(qk_ctx *ctx, int src_dtype, const void *w,
		      size_t outer, size_t k, size_t inner,
		      uint8_t *codes, uint8_t *scales, float *gscale)
{
	return qki_nv_quantize(ctx, src_dtype, w, outer, k, inner, NULL, NULL,
			       codes, scales, gscale);
}

qopt_status qk_nvfp4_quantize_amax(qk_ctx *ctx, int src_dtype, const void *w,
			   size_t outer, size_t k, size_t inner, float amax,
			   uint8_t *codes, uint8_t *scales, float *gscale)
{
	uint32_t bits = qki_f2u(amax);

	/* Negative, NaN or Inf: not the amax of a quantizable weight. */
	if (bits >= 0x7f800000u)
		return QK_EINVAL;
	return qki_nv_quantize(ctx, src_dtype, w, outer, k, inner, &bits,
			       NULL, codes, scales, gscale);
}

qopt_status qk_nvfp4_quantize_gscale(qk_ctx *ctx, int src_dtype,
				     const void *x, size_t outer, size_t k,
				     size_t inner, float gscale,
				     uint8_t *codes, uint8_t *scales)
{
	float g;

	/* A global scale must be a positive normal float (what
	 * qk_nvfp4_gscale gives): else no block scale means anything. */
	if (!(gscale >= QK_FLT_MIN) || qki_f2u(gscale) >= 0x7f800000u)
		return QK_EINVAL;
	return qki_nv_quantize(ctx, src_dtype, x, outer, k, inner, NULL,
			       &gscale, codes, scales, &g);
}

float qk_nvfp4_gscale(float amax)
{
	return qki_nvfp4_gscale(amax);
}

/* Dequantize tiles [lo, hi): y = e2m1(code) * (e4m3(s) * g). A tile's
 * 16 rows share its inner scales: each run of up to QKI_CHUNK columns
 * decodes its scales once and then walks the 16 rows (one division per
 * element for the addresses and a scale decode per element cost 35x
 * the inner == 1 path). */
/* y[j] = e2m1(code j) * div[j] for the n codes from element e of the
 * packed codes cc. An even e and n (the usual case: even inner) read
 * whole bytes, a loop the vectorizer takes. */
QKI_HOT static void qki_nv_dq_run(const uint8_t *restrict cc, size_t e,
				  const float *restrict div, size_t n,
				  float *restrict y)
{
	size_t j;

	if (!(e & 1) && !(n & 1)) {
		cc += e / 2;
		for (j = 0; j < n / 2; j++) {
			uint32_t lo = cc[j] & 0xfu, hi = (uint32_t)cc[j] >> 4;

			y[2 * j] = qki_canon(QK_FMUL(qki_dec_e2m1(lo),
						     div[2 * j]));
			y[2 * j + 1] = qki_canon(QK_FMUL(qki_dec_e2m1(hi),
							 div[2 * j + 1]));
		}
		return;
	}
	for (j = 0; j < n; j++, e++)
		y[j] = qki_canon(QK_FMUL(qki_dec_e2m1(
			((uint32_t)cc[e / 2] >> (e & 1 ? 4 : 0)) & 0xfu), div[j]));
}

static int qki_nv_dq(void *arg, unsigned part, size_t lo, size_t hi)
{
	const struct qki_nv *a = arg;
	size_t inner = a->inner, t, c0, cw, r, j;
	float div[QKI_CHUNK], y[QKI_CHUNK];

	(void)part;
#if QKI_HAVE_F16C
	/* Whole 16-column steps: kernels/nvfp4-avx512.c, same bits. */
	if (inner % 16 == 0 && qki_have_avx512()) {
		qki_nv_dq_tiles_avx512(a->dtype, a->out, inner, a->g, lo, hi,
				       a->ccodes, a->cscales);
		return 0;
	}
	if (inner % 8 == 0 && qki_cpu_f16c()) {
		qki_nv_dq_tiles_avx2(a->dtype, a->out, inner, a->g, lo, hi,
				     a->ccodes, a->cscales);
		return 0;
	}
#endif
	for (t = lo; t < hi; t++) {
		const uint8_t *sc = a->cscales + t * inner;
		size_t base = t * QK_NVFP4_BLOCK * inner;

		for (c0 = 0; c0 < inner; c0 += cw) {
			cw = inner - c0 < QKI_CHUNK ? inner - c0 : QKI_CHUNK;
			for (j = 0; j < cw; j++)
				div[j] = qki_nvfp4_block_div(sc[c0 + j], a->g);
			for (r = 0; r < QK_NVFP4_BLOCK; r++) {
				size_t e0 = base + r * inner + c0;

				qki_nv_dq_run(a->ccodes, e0, div, cw, y);
				qki_store_f32(a->dtype, a->out, e0, cw, y);
			}
		}
	}
	return 0;
}

/* inner == 1: QKI_NVB blocks at a time; each block's 8 bytes and one
 * scale give 16 values. */
QKI_HOT static void qki_nv_dq_blocks(const uint8_t *restrict c,
				     const uint8_t *restrict s, float g,
				     float *restrict y)
{
	uint32_t code[QKI_NVB * QK_NVFP4_BLOCK];
	float div[QKI_NVB];
	size_t b, j;

	for (j = 0; j < QKI_NVB * QK_NVFP4_BLOCK / 2; j++) {
		code[2 * j] = c[j] & 0xfu;
		code[2 * j + 1] = c[j] >> 4;
	}
	for (b = 0; b < QKI_NVB; b++)
		div[b] = qki_nvfp4_block_div(s[b], g);
	for (b = 0; b < QKI_NVB; b++)
		for (j = 0; j < QK_NVFP4_BLOCK; j++)
			y[b * QK_NVFP4_BLOCK + j] = qki_canon(QK_FMUL(
				qki_dec_e2m1(code[b * QK_NVFP4_BLOCK + j]), div[b]));
}

static int qki_nv_dq_rows(void *arg, unsigned part, size_t lo, size_t hi)
{
	const struct qki_nv *a = arg;
	float y[QKI_NVB * QK_NVFP4_BLOCK];
	uint8_t c[QKI_NVB * 8], s[QKI_NVB];
	size_t blk, n;

	(void)part;
#if QKI_HAVE_F16C
	/* Whole steps of 8 blocks on AVX2 (kernels/nvfp4-avx2.c, same
	 * bits); the rest below. */
	if (qki_cpu_f16c()) {
		n = (hi - lo) & ~(size_t)7;
		qki_nv_dq_blocks_avx2(a->dtype, a->out, a->g, lo, n,
				      a->ccodes, a->cscales);
		lo += n;
	}
#endif
	for (blk = lo; blk < hi; blk += n) {
		n = hi - blk < QKI_NVB ? hi - blk : QKI_NVB;
		if (n == QKI_NVB) {
			qki_nv_dq_blocks(a->ccodes + blk * 8, a->cscales + blk,
					 a->g, y);
		} else { /* short last step: zero-padded copies */
			memset(c, 0, sizeof(c));
			memset(s, 0, sizeof(s));
			memcpy(c, a->ccodes + blk * 8, n * 8);
			memcpy(s, a->cscales + blk, n);
			qki_nv_dq_blocks(c, s, a->g, y);
		}
		qki_store_f32(a->dtype, a->out, blk * QK_NVFP4_BLOCK,
			      n * QK_NVFP4_BLOCK, y);
	}
	return 0;
}

qopt_status qk_nvfp4_dequantize(qk_ctx *ctx, const uint8_t *codes,
			const uint8_t *scales, float gscale,
			size_t outer, size_t k, size_t inner,
			int dst_dtype, void *dst)
{
	struct qki_nv a = { .dtype = dst_dtype, .out = dst, .k = k,
			    .inner = inner, .g = gscale, .ccodes = codes,
			    .cscales = scales };
	const struct qki_cuda_ops *ops;
	size_t n, bytes, tiles;
	int rc = qki_nv_check(dst_dtype, outer, k, inner, &n);

	if (rc)
		return rc;
	if (n && (!codes || !scales || !dst))
		return QK_EINVAL;
	bytes = n / 2 + n / QK_NVFP4_BLOCK; /* codes + scales */
	rc = qki_route(ctx, bytes, &ops);
	if (rc)
		return rc;
	if (ops) {
		rc = ops->nvfp4_dequantize(codes, scales, gscale, outer, k,
					   inner, dst_dtype, dst);
		rc = qki_cuda_result(ctx, ops, rc, bytes);
		if (rc != QKI_CPU)
			return rc;
	}
	a.nb = k / QK_NVFP4_BLOCK;
	tiles = outer * a.nb;
	if (n)
		qki_parallel(ctx, tiles, n * (qki_dtype_size(dst_dtype) + 1),
			     inner == 1 ? qki_nv_dq_rows : qki_nv_dq, &a, NULL);
	qki_account(ctx, 0, bytes);
	return 0;
}
