/*
 * kernels/hadamard-avx512.c - the Hadamard transform of rows on AVX-512:
 * the same stages in the same order as kernels/hadamard.c, so the same
 * bits, only faster.
 *
 * Blocks of 16 to 256 elements go straight from x back to x: load, all
 * stages in sixteen registers, scale, round, store. Longer blocks load
 * 256 elements at a time with stages 1 .. 128 done into an FP32 buffer
 * padded every 256 floats, run the middle stages up to four at a time
 * and the last two or three straight into x. The next unit's bytes are
 * requested a few lines per step while the current one is computed.
 * One function is made per block size, stage count and element type,
 * so that every loop unrolls with its vectors in registers.
 */
#include <stdlib.h>
#include <string.h>

#include "hadamard.h"

#if QKI_HAVE_F16C
#include <immintrin.h>

/* AVX-512 (F + BW): 16 floats per instruction for the load with
 * stages 1 .. 8 and for the scaled, rounded store. Same IEEE
 * operations as the portable code (the lane trick of QKI_LANES8). */
#define QKI_512 __attribute__((target("avx512f,avx512bw,avx512vl")))

int qki_have_avx512(void)
{
	static int have = -1;
	int v = __atomic_load_n(&have, __ATOMIC_RELAXED);

	if (v < 0) {
		__builtin_cpu_init();
		v = __builtin_cpu_supports("avx512f") &&
		    __builtin_cpu_supports("avx512bw") &&
		    __builtin_cpu_supports("avx512vl");
		v = v && !qki_avx512_off();
		__atomic_store_n(&have, v, __ATOMIC_RELAXED);
	}
	return v;
}

/* Stages 1, 2, 4, 8 of 16 lanes: v <- p + s * v with p the partner
 * lanes and s = -1 on the second lane of each pair. s * v is exact, so
 * the fused multiply-add rounds p + (-v) = p - v (or p + v) once, as
 * the butterfly's subtraction (or addition) does: the same bits (a NaN
 * may differ in payload; it becomes the canonical NaN at the end). */
QKI_512 static inline __m512 qki_lanes512(__m512 v)
{
	const __m512 s1 = _mm512_set_ps(-1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1,
					1, -1, 1, -1, 1);
	const __m512 s2 = _mm512_set_ps(-1, -1, 1, 1, -1, -1, 1, 1, -1, -1, 1,
					1, -1, -1, 1, 1);
	const __m512 s4 = _mm512_set_ps(-1, -1, -1, -1, 1, 1, 1, 1, -1, -1,
					-1, -1, 1, 1, 1, 1);
	const __m512 s8 = _mm512_set_ps(-1, -1, -1, -1, -1, -1, -1, -1, 1, 1,
					1, 1, 1, 1, 1, 1);

	v = _mm512_fmadd_ps(v, s1, _mm512_permute_ps(v, 0xb1));
	v = _mm512_fmadd_ps(v, s2, _mm512_permute_ps(v, 0x4e));
	v = _mm512_fmadd_ps(v, s4, _mm512_shuffle_f32x4(v, v, 0xb1));
	v = _mm512_fmadd_ps(v, s8, _mm512_shuffle_f32x4(v, v, 0x4e));
	return v;
}

/* Four vectors (64 floats) per step: four independent dependency
 * chains (each stage waits for the one before), so the core overlaps
 * them; for blocks of 32 and more, stages 16 and 32 are butterflies
 * between those vectors, done before they are stored. */
#define QKI_BF512(a, c)                                                   \
	do {                                                              \
		__m512 u_ = (a);                                          \
		(a) = _mm512_add_ps(u_, (c));                             \
		(c) = _mm512_sub_ps(u_, (c));                             \
	} while (0)
#define QKI_IN512(LOAD)                                                   \
	do {                                                              \
		for (size_t j = 0; j < n; j += 64) {                      \
			__m512 v0 = qki_lanes512(LOAD(j));                \
			__m512 v1 = qki_lanes512(LOAD(j + 16));           \
			__m512 v2 = qki_lanes512(LOAD(j + 32));           \
			__m512 v3 = qki_lanes512(LOAD(j + 48));           \
                                                                          \
			if (b >= 32) {                                    \
				QKI_BF512(v0, v1);                        \
				QKI_BF512(v2, v3);                        \
			}                                                 \
			if (b >= 64) {                                    \
				QKI_BF512(v0, v2);                        \
				QKI_BF512(v1, v3);                        \
			}                                                 \
			_mm512_storeu_ps(t + j, v0);                      \
			_mm512_storeu_ps(t + j + 16, v1);                 \
			_mm512_storeu_ps(t + j + 32, v2);                 \
			_mm512_storeu_ps(t + j + 48, v3);                 \
		}                                                         \
	} while (0)
#define QKI_UNROLL _Pragma("GCC unroll 16")
#define QKI_LD_F32(j) _mm512_loadu_ps(src + 4 * (j))
#define QKI_LD_F16(j) \
	_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(src + 2 * (j))))
#define QKI_LD_BF16(j)                                                    \
	_mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(        \
		_mm256_loadu_si256((const __m256i *)(src + 2 * (j)))), 16))


/* The butterfly of v[k] and v[k + d], on the adders for even k and on
 * the multiply-add units (k odd: u * 1 + v and u * 1 - v, the product
 * exact, one rounding: the same bits as u + v and u - v, signed zeros
 * included) so that both kinds of unit work. */
#define QKI_BF2(v, k, d)                                                  \
	do {                                                              \
		__m512 u_ = v[k];                                         \
                                                                          \
		if ((k) & 1) {                                            \
			v[k] = _mm512_fmadd_ps(u_, one, v[(k) + (d)]);    \
			v[(k) + (d)] = _mm512_fmsub_ps(u_, one,           \
						       v[(k) + (d)]);     \
		} else {                                                  \
			v[k] = _mm512_add_ps(u_, v[(k) + (d)]);           \
			v[(k) + (d)] = _mm512_sub_ps(u_, v[(k) + (d)]);   \
		}                                                         \
	} while (0)

/* Stages 1 .. 128 of n floats (n % 256 == 0) loaded into the padded t. */
#define QKI_INPAD512(LOAD, LINES)                                              \
	do {                                                              \
		for (size_t j = 0; j < n; j += 256) {                     \
			__m512 v[16];                                     \
                                                                          \
			QKI_UNROLL for (int k = 0; k < 16; k++)           \
				v[k] = qki_lanes512(LOAD(j + 16 * k));    \
			QKI_UNROLL for (int d = 1; d < 16; d <<= 1)       \
				QKI_UNROLL for (int k = 0; k < 16; k++)   \
					if (!(k & d))                     \
						QKI_BF2(v, k, d);         \
			/* 256 floats never straddle a padding */         \
			QKI_UNROLL for (int k = 0; k < 16; k++)           \
				_mm512_storeu_ps(t + QKI_TP(j) + 16 * k, v[k]); \
			qki_pf_lines(pf, LINES);                          \
		}                                                         \
	} while (0)

QKI_512 static void qki_inpad512(int dtype, const unsigned char *src,
				 float *t, size_t n, struct qki_pf *pf)
{
	const __m512 one = _mm512_set1_ps(1.0f);

	/* each step requests as many lines of the next unit as it loaded */
	if (dtype == QK_T_FLOAT)
		QKI_INPAD512(QKI_LD_F32, 16);
	else if (dtype == QK_T_FLOAT16)
		QKI_INPAD512(QKI_LD_F16, 8);
	else
		QKI_INPAD512(QKI_LD_BF16, 8);
}

/* n % 64 == 0, b >= 16; returns the first stage left to do. */
/* Rows whose unit is not a multiple of 256 elements (so b < 256: the
 * others go through qki_rows512). */
QKI_512 size_t qki_in512(int dtype, const unsigned char *src, float *t,
			 size_t n, size_t b)
{
	if (dtype == QK_T_FLOAT)
		QKI_IN512(QKI_LD_F32);
	else if (dtype == QK_T_FLOAT16)
		QKI_IN512(QKI_LD_F16);
	else
		QKI_IN512(QKI_LD_BF16);
	return b < 64 ? b : 64;
}

QKI_512 static inline __m512 qki_scale512(const float *t, __m512 sc)
{
	const __m512 qnan = _mm512_castsi512_ps(_mm512_set1_epi32(QK_NAN_BITS));
	__m512 y = _mm512_mul_ps(_mm512_loadu_ps(t), sc);

	return _mm512_mask_mov_ps(y, _mm512_cmp_ps_mask(y, y, _CMP_UNORD_Q), qnan);
}

QKI_512 static inline __m256i qki_bf16_512(__m512 y)
{
	__m512i u = _mm512_castps_si512(y);

	u = _mm512_add_epi32(u, _mm512_add_epi32(
			_mm512_set1_epi32(0x7fff),
			_mm512_and_si512(_mm512_srli_epi32(u, 16),
					 _mm512_set1_epi32(1))));
	return _mm512_cvtepi32_epi16(_mm512_srli_epi32(u, 16));
}

#define QKI_ST_F32(j, y) _mm512_storeu_ps(dst + 4 * (j), (y))
#define QKI_ST_F16(j, y)                                                  \
	_mm256_storeu_si256((__m256i *)(dst + 2 * (j)),                   \
			    _mm512_cvtps_ph((y), _MM_FROUND_TO_NEAREST_INT))
#define QKI_ST_BF16(j, y) \
	_mm256_storeu_si256((__m256i *)(dst + 2 * (j)), qki_bf16_512(y))
#define QKI_OUT512(STORE)                                                 \
	do {                                                              \
		size_t j = 0;                                             \
                                                                          \
		for (; j + 64 <= n; j += 64) {                            \
			__m512 y0 = qki_scale512(t + j, sc);              \
			__m512 y1 = qki_scale512(t + j + 16, sc);         \
			__m512 y2 = qki_scale512(t + j + 32, sc);         \
			__m512 y3 = qki_scale512(t + j + 48, sc);         \
                                                                          \
			STORE(j, y0);                                     \
			STORE(j + 16, y1);                                \
			STORE(j + 32, y2);                                \
			STORE(j + 48, y3);                                \
		}                                                         \
		for (; j < n; j += 16)                                    \
			STORE(j, qki_scale512(t + j, sc));                \
	} while (0)

/* bf16: the rounding of qki_enc_bf16; NaN is canonical by then and
 * 0x7fc00000 rounds to 0x7fc0, the same code qki_enc_bf16 gives it. */
QKI_512 void qki_out512(int dtype, unsigned char *dst, const float *t,
			size_t n, float scale)
{
	const __m512 sc = _mm512_set1_ps(scale);

	if (dtype == QK_T_FLOAT)
		QKI_OUT512(QKI_ST_F32);
	else if (dtype == QK_T_FLOAT16)
		QKI_OUT512(QKI_ST_F16);
	else
		QKI_OUT512(QKI_ST_BF16);
}

/* t * scale with a NaN made canonical: the check costs one compare;
 * the blend runs only when a NaN is there. */
QKI_512 static inline __m512 qki_sc512(__m512 v, __m512 sc)
{
	__m512 y = _mm512_mul_ps(v, sc);
	__mmask16 nan = _mm512_cmp_ps_mask(y, y, _CMP_UNORD_Q);

	if (__builtin_expect(nan != 0, 0))
		y = _mm512_mask_mov_ps(y, nan, _mm512_castsi512_ps(
					       _mm512_set1_epi32(QK_NAN_BITS)));
	return y;
}

/* AVX512-BF16's conversion rounds to nearest even exactly as
 * qki_enc_bf16 does, and turns the canonical NaN into 0x7fc0 as it
 * does, but flushes FP32 subnormals to zero: a vector holding one
 * takes the integer rounding instead. */
#define QKI_512BF                                                         \
	__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,"       \
			      "avx512bf16")))

static int qki_have_bf16n(void)
{
	static int have = -1;
	int v = __atomic_load_n(&have, __ATOMIC_RELAXED);

	if (v < 0) {
		__builtin_cpu_init();
		v = qki_have_avx512() && __builtin_cpu_supports("avx512dq") &&
		    __builtin_cpu_supports("avx512bf16");
		__atomic_store_n(&have, v, __ATOMIC_RELAXED);
	}
	return v;
}

/* v * scale stored as BFLOAT16: one class test finds both a NaN (to
 * make canonical) and a subnormal (which the instruction would flush);
 * either sends the vector down the integer rounding. */
QKI_512BF static inline void qki_sst_bf16n(unsigned char *p, __m512 v,
					   __m512 sc)
{
	__m512 y = _mm512_mul_ps(v, sc);

	if (__builtin_expect(_mm512_fpclass_ps_mask(y, 0xa1) != 0, 0)) {
		_mm256_storeu_si256((__m256i *)p,
				    qki_bf16_512(qki_sc512(v, sc)));
	} else {
		__m256bh h = _mm512_cvtneps_pbh(y);

		memcpy(p, &h, sizeof(h));
	}
}

/* scaled, NaN canonical, rounded, stored */
#define QKI_SST_F32(j, y) QKI_ST_F32(j, qki_sc512((y), sc))
#define QKI_SST_F16(j, y) QKI_ST_F16(j, qki_sc512((y), sc))
#define QKI_SST_BF16(j, y) QKI_ST_BF16(j, qki_sc512((y), sc))
#define QKI_SST_BF16N(j, y) qki_sst_bf16n(dst + 2 * (j), (y), sc)


/* Blocks of 16 to 256 elements (m = b / 16 vectors), 256 floats per
 * step, straight from x back to x: load, stages 1 .. b/2 in sixteen
 * registers, scale, round, store. Nothing goes through the buffer. */
#define QKI_DIRECT512(M, LOAD, STORE)                                     \
	for (size_t j = 0; j < n; j += 256) {                             \
		__m512 v[16];                                             \
                                                                          \
		QKI_UNROLL for (int k = 0; k < 16; k++)                   \
			v[k] = qki_lanes512(LOAD(j + 16 * k));            \
		QKI_UNROLL for (int d = 1; d < (M); d <<= 1)              \
			QKI_UNROLL for (int k = 0; k < 16; k++)           \
				if (!(k & d))                             \
					QKI_BF2(v, k, d);                 \
		QKI_UNROLL for (int k = 0; k < 16; k++)                   \
			STORE(j + 16 * k, v[k]);                          \
	}

/* R (1 to 4) fused stages h = s .. 8s of t (n floats, s % 16 == 0):
 * 2^R vectors in registers per step, stored back into t or (scaled,
 * rounded) into dst. */
/* Loads and stores walk one pointer each, a stride at a time: sixteen
 * addresses kept at once would not fit the registers. The empty asm
 * keeps the compiler from reusing the loads' addresses for the stores
 * (which would keep all sixteen alive across the arithmetic). */
#define QKI_FUSED512(R, STORE)                                            \
	for (size_t base = 0; base < n; base += s << (R))                 \
		for (size_t f = base; f < base + s; f += 16) {            \
			__m512 v[16];                                     \
			float *lp = t + QKI_TP(f), *sp = lp;              \
			unsigned char *xp = dst ? dst + es * f : NULL;    \
                                                                          \
			QKI_UNROLL for (int k = 0; k < (1 << (R)); k++) { \
				v[k] = _mm512_loadu_ps(lp);               \
				lp += ps;                                 \
			}                                                 \
			qki_pf_step(pf, 1 << (R));                        \
			QKI_UNROLL for (int d = 1; d < (1 << (R)); d <<= 1) \
				QKI_UNROLL for (int k = 0; k < (1 << (R)); k++) \
					if (!(k & d))                     \
						QKI_BF2(v, k, d);         \
			__asm__("" : "+r"(sp), "+r"(xp));                 \
			QKI_UNROLL for (int k = 0; k < (1 << (R)); k++) { \
				STORE(sp, xp, v[k]);                      \
				sp += ps;                                 \
				xp += xs;                                 \
			}                                                 \
		}
/* STORE(p, xp, y): to p in t, or scaled and rounded to xp in x */
#define QKI_ST_T(p, xp, y) _mm512_storeu_ps((p), (y))
#define QKI_X_F32(p, xp, y) _mm512_storeu_ps((float *)(xp), qki_sc512((y), sc))
#define QKI_X_F16(p, xp, y)                                               \
	_mm256_storeu_si256((__m256i *)(xp),                              \
			    _mm512_cvtps_ph(qki_sc512((y), sc),           \
					    _MM_FROUND_TO_NEAREST_INT))
#define QKI_X_BF16(p, xp, y)                                              \
	_mm256_storeu_si256((__m256i *)(xp), qki_bf16_512(qki_sc512((y), sc)))
#define QKI_X_BF16N(p, xp, y) qki_sst_bf16n((xp), (y), sc)

/* x[0..n) = the padded t scaled, NaN canonical, rounded once (n % 64
 * == 0). */
#define QKI_OUTPAD512(STORE)                                              \
	for (size_t j = 0; j < n; j += 64) {                              \
		qki_pf_step(pf, 4);                                       \
		QKI_UNROLL for (int k = 0; k < 4; k++)                    \
			STORE(j + 16 * k, _mm512_loadu_ps(                \
				t + QKI_TP(j + 16 * k)));                 \
	}

/* One instance per block size, stage count and element type, so that
 * every loop unrolls with no branch inside; SUF "bf" is the set whose
 * BFLOAT16 stores use AVX512-BF16 (ATTR its target, STBF which store:
 * BF16 or BF16N). */
#define QKI_DIRECT_FN(SUF, ATTR, STBF, M)                                 \
	ATTR static void qki_direct512##SUF##_##M(int dtype,             \
						  unsigned char *x,      \
						  size_t n, float scale) \
	{                                                                 \
		const __m512 sc = _mm512_set1_ps(scale);                  \
		const __m512 one = _mm512_set1_ps(1.0f);                  \
		const unsigned char *src = x;                             \
		unsigned char *dst = x;                                   \
                                                                          \
		if (dtype == QK_T_FLOAT) {                                \
			QKI_DIRECT512(M, QKI_LD_F32, QKI_SST_F32)         \
		} else if (dtype == QK_T_FLOAT16) {                       \
			QKI_DIRECT512(M, QKI_LD_F16, QKI_SST_F16)         \
		} else {                                                  \
			QKI_DIRECT512(M, QKI_LD_BF16, QKI_SST_##STBF)     \
		}                                                         \
	}
#define QKI_FUSED_FN(SUF, ATTR, STBF, R)                                  \
	ATTR static void qki_fused512##SUF##_##R(                         \
		float *t, size_t n, size_t s, int dtype, unsigned char *dst, \
		float scale, struct qki_pf *pf)                           \
	{                                                                 \
		const __m512 sc = _mm512_set1_ps(scale);                  \
		const __m512 one = _mm512_set1_ps(1.0f);                  \
		const size_t ps = QKI_TP(s);                              \
		const size_t es = dtype == QK_T_FLOAT ? 4 : 2;            \
		const size_t xs = es * s;                                 \
                                                                          \
		if (!dst) {                                               \
			QKI_FUSED512(R, QKI_ST_T)                         \
		} else if (dtype == QK_T_FLOAT) {                         \
			QKI_FUSED512(R, QKI_X_F32)                        \
		} else if (dtype == QK_T_FLOAT16) {                       \
			QKI_FUSED512(R, QKI_X_F16)                        \
		} else {                                                  \
			QKI_FUSED512(R, QKI_X_##STBF)                     \
		}                                                         \
	}
#define QKI_OUTPAD_FN(SUF, ATTR, STBF)                                    \
	ATTR static void qki_outpad512##SUF(int dtype, unsigned char *dst, \
					    const float *t, size_t n,    \
					    float scale,                 \
					    struct qki_pf *pf)           \
	{                                                                 \
		const __m512 sc = _mm512_set1_ps(scale);                  \
                                                                          \
		if (dtype == QK_T_FLOAT) {                                \
			QKI_OUTPAD512(QKI_SST_F32)                        \
		} else if (dtype == QK_T_FLOAT16) {                       \
			QKI_OUTPAD512(QKI_SST_F16)                        \
		} else {                                                  \
			QKI_OUTPAD512(QKI_SST_##STBF)                     \
		}                                                         \
	}
#define QKI_ROW_KERNELS(SUF, ATTR, STBF)                                  \
	QKI_DIRECT_FN(SUF, ATTR, STBF, 1)                                 \
	QKI_DIRECT_FN(SUF, ATTR, STBF, 2)                                 \
	QKI_DIRECT_FN(SUF, ATTR, STBF, 4)                                 \
	QKI_DIRECT_FN(SUF, ATTR, STBF, 8)                                 \
	QKI_DIRECT_FN(SUF, ATTR, STBF, 16)                                \
	QKI_FUSED_FN(SUF, ATTR, STBF, 1)                                  \
	QKI_FUSED_FN(SUF, ATTR, STBF, 2)                                  \
	QKI_FUSED_FN(SUF, ATTR, STBF, 3)                                  \
	QKI_FUSED_FN(SUF, ATTR, STBF, 4)                                  \
	QKI_OUTPAD_FN(SUF, ATTR, STBF)                                    \
	static const struct qki_rowk qki_rowk##SUF = {                    \
		{ qki_direct512##SUF##_1, qki_direct512##SUF##_2,         \
		  qki_direct512##SUF##_4, qki_direct512##SUF##_8,         \
		  qki_direct512##SUF##_16 },                              \
		{ qki_fused512##SUF##_1, qki_fused512##SUF##_2,           \
		  qki_fused512##SUF##_3, qki_fused512##SUF##_4 },         \
		qki_outpad512##SUF,                                       \
	};

typedef void qki_direct_fn(int, unsigned char *, size_t, float);
typedef void qki_fused_fn(float *, size_t, size_t, int, unsigned char *,
			  float, struct qki_pf *);
typedef void qki_outpad_fn(int, unsigned char *, const float *, size_t,
			   float, struct qki_pf *);

/* The row kernels of one instruction set. */
struct qki_rowk {
	qki_direct_fn *direct[5]; /* b = 16, 32, 64, 128, 256 */
	qki_fused_fn *fused[4];   /* 1 .. 4 stages */
	qki_outpad_fn *outpad;
};

QKI_ROW_KERNELS(, QKI_512, BF16)
QKI_ROW_KERNELS(bf, QKI_512BF, BF16N)

static const struct qki_rowk *qki_rowk_for(int dtype)
{
	return dtype == QK_T_BFLOAT16 && qki_have_bf16n() ? &qki_rowkbf :
							     &qki_rowk;
}

/* The stages h .. b/2 of t (n floats, rows of b > 256), loaded by
 * qki_inpad512: the middle ones four at a time (t stays in L2 up to
 * b = 65536), the last (up to four) fused with the scaled, rounded
 * store to x. */
static void qki_rest512(const struct qki_rowk *k, int dtype, unsigned char *x,
			float *t, size_t n, size_t b, size_t h, float scale,
			struct qki_pf *pf)
{
	/* Up to four stages after the load: all of them in the last pass.
	 * More: the middle pass takes four or three and the last two or
	 * three (measured best on Zen 5 for b = 8192 .. 32768), so that
	 * the last pass stores at most eight lines of x at a time, which
	 * still fit the ways of one L1 set. */
	static const signed char last_of[8] = { 0, 1, 2, 3, 4, 2, 2, 3 };
	int left = 0, last;

	for (size_t e = h; e < b; e <<= 1)
		left++;
	last = left < 8 ? last_of[left] : 4;
	while (left > last) {
		int r = left - last < 4 ? left - last : 4;

		k->fused[r - 1](t, n, h, dtype, NULL, scale, pf);
		h <<= r;
		left -= r;
	}
	if (h < 1024 || last < 4) {
		k->fused[last - 1](t, n, h, dtype, x, scale, pf);
		return;
	}
	/* Sixteen vectors stored 1024 or more elements apart would go to
	 * as many lines of one L1 set of x: they go to t, then out in
	 * order. */
	k->fused[last - 1](t, n, h, dtype, NULL, scale, pf);
	k->outpad(dtype, x, t, n, scale, pf);
}

/* Rows of b >= 16, n elements (n % 256 == 0) at x. */
void qki_rows512(int dtype, unsigned char *x, float *t, size_t n, size_t b,
		 float scale, struct qki_pf *pf)
{
	const struct qki_rowk *k = qki_rowk_for(dtype);
	int i = 0;

	if (b <= 256) {
		while (((size_t)16 << i) < b)
			i++;
		k->direct[i](dtype, x, n, scale);
		return;
	}
	qki_inpad512(dtype, x, t, n, pf);
	qki_rest512(k, dtype, x, t, n, b, 256, scale, pf);
}
#endif
