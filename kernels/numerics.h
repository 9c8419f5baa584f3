/*
 * kernels/numerics.h - scalar number formats shared by the C and the
 * CUDA kernels.
 *
 * Both sides compile this very file, so CPU and GPU results agree bit
 * for bit by construction. Rules that keep it so:
 *  - every float operation goes through QK_FADD/QK_FMUL/QK_FDIV, which
 *    are plain IEEE operations in C (FLT_EVAL_METHOD 0 on x86-64) and
 *    the explicit round-to-nearest intrinsics on the device (no FMA
 *    contraction, no fast division, no flush to zero);
 *  - the encoders are branch-free integer code plus one exact-or-RNE
 *    float addition, so the C compiler can vectorize loops over them.
 *    Choices go through qki_sel (a bit mask), not "?:": GCC turns a
 *    "?:" whose arm holds a float operation back into a branch (it may
 *    not speculate an operation that can raise an FP exception), and a
 *    loop with a branch is not vectorized.
 *
 * Encoders round half to even and return the code in the low bits of
 * a uint32_t (vectorized loops then stay in 32-bit lanes until the
 * store). The subnormal ranges use the classic
 * "add a power of two whose ulp is the target's smallest step" trick:
 * fl(|x| + 2^k) rounds |x| to that step with the FPU's own RNE, and the
 * low bits of the sum are the target code (continuing seamlessly into
 * the smallest normal code).
 */
#ifndef QK_NUMERICS_H
#define QK_NUMERICS_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define QK_HD static __host__ __device__ __forceinline__
#else
#define QK_HD static inline
#endif

#ifdef __CUDA_ARCH__
#define QK_FADD(a, b) __fadd_rn((a), (b))
#define QK_FSUB(a, b) __fsub_rn((a), (b))
#define QK_FMUL(a, b) __fmul_rn((a), (b))
#define QK_FDIV(a, b) __fdiv_rn((a), (b))
#else
#define QK_FADD(a, b) ((a) + (b))
#define QK_FSUB(a, b) ((a) - (b))
#define QK_FMUL(a, b) ((a) * (b))
#define QK_FDIV(a, b) ((a) / (b))
#endif

/* ONNX TensorProto.DataType numbers the kernels understand (the same
 * values as QIR_* in qopt/dtype.h; repeated so that the CUDA module
 * needs no project header). */
#define QK_T_FLOAT 1
#define QK_T_INT8 3
#define QK_T_FLOAT16 10
#define QK_T_BFLOAT16 16
#define QK_T_E4M3FN 17
#define QK_T_E5M2 19

#define QK_NVFP4_GDIV 2688.0f      /* 6 * 448: e2m1 max times e4m3 max */
#define QK_FLT_MIN 1.17549435e-38f /* smallest normal float */

QK_HD uint32_t qki_f2u(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof(u));
	return u;
}

QK_HD float qki_u2f(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

/* c ? a : b for c in {0, 1}, without a branch. */
QK_HD uint32_t qki_sel(uint32_t c, uint32_t a, uint32_t b)
{
	uint32_t m = 0u - c;

	return (a & m) | (b & ~m);
}

/* ---- IEEE half ---- */

QK_HD uint32_t qki_enc_f16(float x)
{
	uint32_t b = qki_f2u(x), a = b & 0x7fffffffu;
	uint32_t sign = (b >> 16) & 0x8000u;
	uint32_t norm = ((a + 0xfffu + ((a >> 13) & 1u)) >> 13) - (112u << 10);
	/* 0.5 has an ulp of 2^-24, the smallest half subnormal. */
	uint32_t sub = qki_f2u(QK_FADD(qki_u2f(a), 0.5f)) - 0x3f000000u;
	uint32_t m = qki_sel(a < 0x38800000u, sub, norm);
	uint32_t nan = 0x7e00u | ((a >> 13) & 0x3ffu);

	m = qki_sel(m > 0x7bffu, 0x7c00u, m);
	m = qki_sel(a > 0x7f800000u, nan, m);
	return sign | m;
}

QK_HD float qki_dec_f16(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t em = h & 0x7fffu;
	uint32_t norm = (em << 13) + (112u << 23);
	uint32_t special = (em << 13) | 0x7f800000u;
	/* em * 2^-24, exact: 0.5 + em * 2^-24 is representable. */
	uint32_t sub = qki_f2u(QK_FSUB(qki_u2f(0x3f000000u | em), 0.5f));
	uint32_t m = qki_sel(em < 0x400u, sub, norm);

	m = qki_sel(em >= 0x7c00u, special, m);
	return qki_u2f(sign | m);
}

/* ---- bfloat16 ---- */

QK_HD uint32_t qki_enc_bf16(float x)
{
	uint32_t b = qki_f2u(x);
	uint32_t r = (b + 0x7fffu + ((b >> 16) & 1u)) >> 16;
	uint32_t nan = (b >> 16) | 0x40u;

	return qki_sel((b & 0x7fffffffu) > 0x7f800000u, nan, r);
}

QK_HD float qki_dec_bf16(uint16_t h)
{
	return qki_u2f((uint32_t)h << 16);
}

/* ---- FP8 E4M3FN: bias 7, no inf, NaN = S.1111.111, max 448 ---- */

QK_HD uint32_t qki_enc_e4m3(float x, int saturate)
{
	uint32_t b = qki_f2u(x), a = b & 0x7fffffffu;
	uint32_t sign = (b >> 24) & 0x80u;
	uint32_t norm = ((a + 0x7ffffu + ((a >> 20) & 1u)) >> 20) - (120u << 3);
	/* 2^14 has an ulp of 2^-9, the smallest E4M3 subnormal. */
	uint32_t sub = qki_f2u(QK_FADD(qki_u2f(a), 16384.0f)) - 0x46800000u;
	uint32_t m = qki_sel(a < 0x3c800000u, sub, norm);

	/* Rounded past 448 (inf included): clamp or NaN. */
	m = qki_sel(m > 0x7eu, saturate ? 0x7eu : 0x7fu, m);
	m = qki_sel(a > 0x7f800000u, 0x7fu, m);
	return sign | m;
}

QK_HD float qki_dec_e4m3(uint8_t c)
{
	uint32_t sign = (uint32_t)(c & 0x80u) << 24;
	uint32_t em = c & 0x7fu;
	uint32_t norm = (em << 20) + (120u << 23);
	uint32_t sub = qki_f2u(QK_FSUB(qki_u2f(0x46800000u | em), 16384.0f));
	uint32_t m = qki_sel(em < 8u, sub, norm);

	m = qki_sel(em == 0x7fu, 0x7fc00000u, m);
	return qki_u2f(sign | m);
}

/* ---- FP8 E5M2: bias 15, inf and NaN, max 57344 ---- */

QK_HD uint32_t qki_enc_e5m2(float x, int saturate)
{
	uint32_t b = qki_f2u(x), a = b & 0x7fffffffu;
	uint32_t sign = (b >> 24) & 0x80u;
	uint32_t norm = ((a + 0xfffffu + ((a >> 21) & 1u)) >> 21) - (112u << 2);
	/* 2^7 has an ulp of 2^-16, the smallest E5M2 subnormal. */
	uint32_t sub = qki_f2u(QK_FADD(qki_u2f(a), 128.0f)) - 0x43000000u;
	uint32_t m = qki_sel(a < 0x38800000u, sub, norm);

	m = qki_sel(m > 0x7bu, saturate ? 0x7bu : 0x7cu, m);
	m = qki_sel(a > 0x7f800000u, 0x7fu, m);
	return sign | m;
}

QK_HD float qki_dec_e5m2(uint8_t c)
{
	uint32_t sign = (uint32_t)(c & 0x80u) << 24;
	uint32_t em = c & 0x7fu;
	uint32_t norm = (em << 21) + (112u << 23);
	uint32_t sub = qki_f2u(QK_FSUB(qki_u2f(0x43000000u | em), 128.0f));
	uint32_t special = (em << 21) | 0x7f800000u;
	uint32_t m = qki_sel(em < 4u, sub, norm);

	special |= qki_sel(em > 0x7cu, 0x00400000u, 0u); /* quiet NaNs */
	m = qki_sel(em >= 0x7cu, special, m);
	return qki_u2f(sign | m);
}

/* ---- FP4 E2M1: 0 .5 1 1.5 2 3 4 6, bit 3 the sign ----
 * E2M1 is a float with bias 1 and one mantissa bit, so it is encoded
 * like the FP8 formats: |x| is first clamped to 6 on its bits (which
 * also sends NaN to 6), then rounded half to even, on the bits for
 * |x| >= 1 and by adding 2^22 (ulp 0.5) below. NaN gives 0x7 (+6), as
 * the ONNX reference cast does; -0 keeps its sign. Codes come back in
 * 32 bits: vectorized loops then stay in 32-bit lanes. */
QK_HD uint32_t qki_enc_e2m1(float x)
{
	uint32_t b = qki_f2u(x), a = b & 0x7fffffffu;
	uint32_t sign = qki_sel(a > 0x7f800000u, 0u, (b >> 28) & 0x8u);
	uint32_t norm, sub;

	a = qki_sel(a > 0x40c00000u, 0x40c00000u, a);
	norm = ((a + 0x1fffffu + ((a >> 22) & 1u)) >> 22) - (126u << 1);
	sub = qki_f2u(QK_FADD(qki_u2f(a), 4194304.0f)) - 0x4a800000u;
	return qki_sel(a < 0x3f800000u, sub, norm) | sign;
}

QK_HD float qki_dec_e2m1(uint32_t c) /* low 4 bits used */
{
	uint32_t sign = (uint32_t)(c & 0x8u) << 28;
	uint32_t e = (c >> 1) & 3u, mant = c & 1u;
	/* e > 0: 2^(e-1) * (1 + mant/2); e == 0: mant * 0.5. */
	uint32_t norm = ((e + 126u) << 23) | (mant << 22);
	uint32_t sub = qki_sel(mant, 0x3f000000u, 0u);

	return qki_u2f(sign | qki_sel(e != 0, norm, sub));
}

/* ---- NaN from arithmetic ----
 * Hardware disagrees on the NaN an operation returns (x86 passes an
 * operand's on, quieted; CUDA and ARM's default-NaN mode return their
 * own), so a result that went through float arithmetic never shows a
 * hardware NaN: it is replaced by the canonical quiet NaN, and FP8
 * quantization defines the sign of its NaN code itself. */
#define QK_NAN_BITS 0x7fc00000u

QK_HD uint32_t qki_isnan_bits(uint32_t u)
{
	return (u & 0x7fffffffu) > 0x7f800000u;
}

/* y, or the canonical NaN when y is NaN. */
QK_HD float qki_canon(float y)
{
	uint32_t u = qki_f2u(y);

	return qki_u2f(qki_sel(qki_isnan_bits(u), QK_NAN_BITS, u));
}

/* FP8 QuantizeLinear of one element: fp8(x / s). A NaN quotient gives
 * the NaN code with x's sign when x is NaN (what a NaN input becomes on
 * x86, ONNX Runtime's platform), else the positive one (0/0, inf/inf,
 * a NaN scale). The sign is fixed on the quotient's bits and the
 * encoder then runs unconditionally: a select between the encoder and
 * a constant would be turned into a branch (the encoder's float add
 * may not be speculated) and stop vectorization. */
QK_HD float qki_quot_nan(float x, float s)
{
	uint32_t xb = qki_f2u(x), qb = qki_f2u(QK_FDIV(x, s));
	uint32_t m = (0u - qki_isnan_bits(qb)) & 0x80000000u;
	uint32_t sign = xb & (0u - qki_isnan_bits(xb)) & 0x80000000u;

	return qki_u2f((qb & ~m) | (sign & m));
}

QK_HD uint32_t qki_quant_e4m3(float x, float s, int saturate)
{
	return qki_enc_e4m3(qki_quot_nan(x, s), saturate);
}

QK_HD uint32_t qki_quant_e5m2(float x, float s, int saturate)
{
	return qki_enc_e5m2(qki_quot_nan(x, s), saturate);
}

/* Symmetric INT8 QuantizeLinear of one element (zero point 0):
 * clamp(x / s, -127, 127) rounded half to even, NaN -> 0. Clamping
 * first is the same as rounding first (the bounds are integers), and
 * keeps the rounding in the range where adding 1.5 * 2^23 rounds to an
 * integer with the FPU's own RNE (no rintf: the device and the host
 * then share this code, and the loop stays branch-free). -128 is never
 * produced: TensorRT's INT8 is symmetric, and for a weight whose scale
 * is amax / 127 ONNX's [-128, 127] saturation gives the same codes. */
#define QK_INT8_MAX 127.0f
#define QK_RNE_MAGIC 12582912.0f	/* 1.5 * 2^23 */

QK_HD uint32_t qki_quant_int8(float x, float s)
{
	float v = QK_FDIV(x, s);
	uint32_t u = qki_sel(qki_isnan_bits(qki_f2u(v)), 0u, qki_f2u(v));

	v = qki_u2f(u);
	v = v > QK_INT8_MAX ? QK_INT8_MAX : v;
	v = v < -QK_INT8_MAX ? -QK_INT8_MAX : v;
	v = QK_FSUB(QK_FADD(v, QK_RNE_MAGIC), QK_RNE_MAGIC);
	return (uint32_t)(int32_t)v & 0xffu;
}

/* The value of INT8 code q times s (one rounding), NaN canonical. */
QK_HD float qki_dequant_int8(uint8_t q, float s)
{
	return qki_canon(QK_FMUL((float)(int8_t)q, s));
}

/* ---- NVFP4 scales (docs/numerics.md) ----
 * Global scale g = amax / 2688 in float; 1 when amax is 0. A positive
 * amax so small that g would be subnormal (amax < ~3.2e-35) is held at
 * the smallest normal float, so that no block scale overflows and
 * dequantization keeps full precision. */
QK_HD float qki_nvfp4_gscale(float amax)
{
	float g;

	if (!(amax > 0.0f))
		return 1.0f;
	g = QK_FDIV(amax, QK_NVFP4_GDIV);
	return g < QK_FLT_MIN ? QK_FLT_MIN : g;
}

/* Block scale code: e4m3(amax_blk / 6 / g), two float divisions in
 * that order. amax_blk == 0 gives 1.0 (0x38); a positive amax_blk whose
 * scale rounds to 0 gets the smallest subnormal (0x01) instead, so the
 * element division never divides by zero. */
QK_HD uint32_t qki_nvfp4_scale_code(float bamax, float g)
{
	uint32_t s = qki_enc_e4m3(QK_FDIV(QK_FDIV(bamax, 6.0f), g), 1);

	s = qki_sel(s == 0u, 0x01u, s);
	return qki_sel(bamax > 0.0f, s, 0x38u);
}

/* The divisor of a block: S = e4m3(s) * g, rounded once to float. The
 * quantizer computes e2m1(x / S), the dequantizer e2m1(code) * S; this
 * is also what the two chained DequantizeLinear nodes of the graph
 * form compute. */
QK_HD float qki_nvfp4_block_div(uint32_t s, float g)
{
	return QK_FMUL(qki_dec_e4m3((uint8_t)s), g);
}

/* 1/sqrt(b) for a power of two b = 2^k, as float: 2^(-k/2), times the
 * correctly rounded 1/sqrt(2) when k is odd. Built from bits so that
 * host and device agree without depending on a libm. */
QK_HD float qki_hadamard_scale(uint64_t b)
{
	uint32_t k = 0;
	float s;

	while (k < 63 && ((uint64_t)1 << k) < b)
		k++;
	s = qki_u2f((127u - k / 2) << 23);
	return k & 1 ? QK_FMUL(s, 0.70710678118654752440f) : s;
}

/* |x| as ordered integer bits with NaN mapped to 0: the integer max of
 * these is the float amax that ignores NaN (exact, order-free). */
QK_HD uint32_t qki_abs_bits(float x)
{
	uint32_t a = qki_f2u(x) & 0x7fffffffu;

	return qki_sel(a > 0x7f800000u, 0u, a);
}

#endif /* QK_NUMERICS_H */
