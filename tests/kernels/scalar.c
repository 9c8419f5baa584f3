/*
 * tests/kernels/scalar.c - scalar format conversions: FP8 E4M3FN and
 * E5M2, E2M1 (and its packing), FLOAT16 and BFLOAT16.
 *
 * Besides the golden vectors of docs/numerics.md, every encoder is
 * checked against a brute-force reference: the nearest value in a
 * table of all codes, ties to the even code, on random floats of every
 * magnitude and on every midpoint between neighbouring codes.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "qopt/kernels.h"
#include "../lib/tap.h"
#include "util.h"

/* A format seen by the reference: values of codes 0..nfin-1 (positive,
 * increasing), plus one more step past the largest (where RNE may
 * carry to, meaning overflow). */
struct fmt {
	const char *name;
	int nfin;     /* positive finite codes */
	double *val;  /* nfin + 1 entries */
	unsigned sign; /* the sign bit of a code */
	unsigned (*enc)(float x, int sat);
	float (*dec)(unsigned c);
	unsigned nan_code, ovf_sat, ovf_nosat; /* magnitudes */
};

static unsigned enc_e4m3(float x, int s) { return qk_f32_to_e4m3(x, s); }
static float dec_e4m3(unsigned c) { return qk_e4m3_to_f32((uint8_t)c); }
static unsigned enc_e5m2(float x, int s) { return qk_f32_to_e5m2(x, s); }
static float dec_e5m2(unsigned c) { return qk_e5m2_to_f32((uint8_t)c); }
static unsigned enc_f16(float x, int s) { (void)s; return qk_f32_to_f16(x); }
static float dec_f16(unsigned c) { return qk_f16_to_f32((uint16_t)c); }
static unsigned enc_bf16(float x, int s) { (void)s; return qk_f32_to_bf16(x); }
static float dec_bf16(unsigned c) { return qk_bf16_to_f32((uint16_t)c); }

static void fmt_init(struct fmt *f)
{
	f->val = malloc((f->nfin + 1) * sizeof(double));
	for (int i = 0; i < f->nfin; i++)
		f->val[i] = f->dec(i);
	f->val[f->nfin] = 2 * f->val[f->nfin - 1] - f->val[f->nfin - 2];
}

/* Reference code index for a finite a >= 0 (may be nfin: overflow). */
static int ref_index(const struct fmt *f, double a)
{
	int lo = 0, hi = f->nfin; /* val[lo] <= a < val[hi] or hi = nfin */

	if (a >= f->val[f->nfin])
		return f->nfin;
	while (hi - lo > 1) {
		int mid = (lo + hi) / 2;

		if (f->val[mid] <= a)
			lo = mid;
		else
			hi = mid;
	}
	if (a - f->val[lo] < f->val[hi] - a)
		return lo;
	if (a - f->val[lo] > f->val[hi] - a)
		return hi;
	return lo % 2 == 0 ? lo : hi;
}

static unsigned ref_code(const struct fmt *f, float x, int sat)
{
	unsigned s = signbit(x) ? f->sign : 0;
	int i;

	if (isnan(x))
		return s | f->nan_code;
	if (isinf(x))
		return s | (sat ? f->ovf_sat : f->ovf_nosat);
	i = ref_index(f, fabs((double)x));
	if (i >= f->nfin)
		return s | (sat ? f->ovf_sat : f->ovf_nosat);
	return s | (unsigned)i;
}

/* A float of any magnitude: random bits, half the time narrowed to the
 * format's neighbourhood of exponents. */
static float any_float(int lo_exp, int hi_exp)
{
	uint32_t u = kt_u32();

	if (u & 1) {
		int e = lo_exp + (int)(kt_u32() % (unsigned)(hi_exp - lo_exp));

		u = (u & 0x807fffffu) | (uint32_t)(e + 127) << 23;
	}
	return kt_float(u);
}

static void check_against_ref(const struct fmt *f, int lo_exp, int hi_exp,
			      int sats)
{
	int bad = 0, n = 0;

	for (int sat = 0; sat < sats; sat++) {
		for (int i = 0; i < 400000; i++, n++) {
			float x = any_float(lo_exp, hi_exp);
			unsigned got = f->enc(x, sat), want = ref_code(f, x, sat);

			if (isnan(x) && isnan(f->dec(got)) &&
			    (got & f->sign) == (want & f->sign))
				continue;
			if (got != want && bad++ < 5)
				tap_diag("%s(%a, sat=%d) = 0x%x, want 0x%x",
					 f->name, x, sat, got, want);
		}
		/* every midpoint, and its two neighbours */
		for (int c = 0; c < f->nfin; c++, n += 3) {
			double m = (f->val[c] + f->val[c + 1]) / 2;
			float xs[3] = { (float)m, nextafterf((float)m, 0),
					nextafterf((float)m, INFINITY) };

			for (int k = 0; k < 3; k++) {
				float x = (c & 1) ? -xs[k] : xs[k];
				unsigned got = f->enc(x, sat);
				unsigned want = ref_code(f, x, sat);

				if (got != want && bad++ < 5)
					tap_diag("%s(%a, sat=%d) = 0x%x, want "
						 "0x%x", f->name, x, sat, got,
						 want);
			}
		}
	}
	tap_ok(bad == 0, "%s encoder = nearest code, ties to even (%d cases)",
	       f->name, n);
}

/* Every code decodes to a value that encodes back to it; NaN codes
 * decode to NaN and encode back to the canonical NaN. */
static void check_roundtrip(const struct fmt *f, unsigned ncodes, int sat)
{
	int bad = 0;

	for (unsigned c = 0; c < ncodes; c++) {
		float v = f->dec(c);
		unsigned back = f->enc(v, sat), want;

		if (isnan(v)) {
			if ((back & ~f->sign) != f->nan_code ||
			    (back & f->sign) != (c & f->sign))
				bad++;
			continue;
		}
		/* saturation sends inf to the largest finite code */
		want = isinf(v) && sat ? (c & f->sign) | f->ovf_sat : c;
		if (back != want && bad++ < 5)
			tap_diag("%s: code 0x%x -> %a -> 0x%x", f->name, c, v,
				 back);
	}
	tap_ok(bad == 0, "%s: all %u codes decode and re-encode to themselves",
	       f->name, ncodes);
}

static void e4m3_golden(void)
{
	static const struct { float x; uint8_t c; } g[] = {
		{ 1.0f, 0x38 }, { 0.5f, 0x30 }, { 2.0f, 0x40 }, { -1.0f, 0xB8 },
		{ -0.0f, 0x80 }, { 1e10f, 0x7E }, { -1e10f, 0xFE },
		{ 1e-10f, 0x00 }, { -1e-10f, 0x80 }, { 448.0f, 0x7E },
		{ 464.0f, 0x7E }, /* tie between 448 and 480: even 448 */
		{ 0x1p-9f, 0x01 }, { 0x1p-10f, 0x00 }, /* tie: even 0 */
		{ 0x1.000002p-10f, 0x01 }, { 0x1p-6f, 0x08 },
		{ 0x1.1p0f, 0x38 }, /* 1.0625: tie 1 / 1.125, even 1 */
		{ 0x1.3p0f, 0x3A }, /* 1.1875: tie 1.125 / 1.25, even 1.25 */
		{ INFINITY, 0x7E }, { -INFINITY, 0xFE },
	};
	int bad = 0;

	for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
		uint8_t c = qk_f32_to_e4m3(g[i].x, 1);

		if (c != g[i].c) {
			bad++;
			tap_diag("e4m3(%a) = 0x%02x, want 0x%02x", g[i].x, c,
				 g[i].c);
		}
	}
	tap_ok(bad == 0, "E4M3 golden codes (saturating)");
	tap_ok(qk_f32_to_e4m3(1e10f, 0) == 0x7F &&
	       qk_f32_to_e4m3(-1e10f, 0) == 0xFF &&
	       qk_f32_to_e4m3(INFINITY, 0) == 0x7F &&
	       qk_f32_to_e4m3(464.0f, 0) == 0x7E &&
	       qk_f32_to_e4m3(nextafterf(464.0f, 1e9f), 0) == 0x7F,
	       "E4M3 without saturation: overflow is NaN, 464 still 448");
	tap_ok(qk_f32_to_e4m3(NAN, 1) == 0x7F &&
	       qk_f32_to_e4m3(-NAN, 1) == 0xFF &&
	       qk_f32_to_e4m3(NAN, 0) == 0x7F,
	       "E4M3: NaN stays NaN, sign kept");
	tap_ok(qk_e4m3_to_f32(0x7E) == 448.0f &&
	       qk_e4m3_to_f32(0x01) == 0x1p-9f &&
	       qk_e4m3_to_f32(0x08) == 0x1p-6f &&
	       qk_e4m3_to_f32(0xB8) == -1.0f &&
	       signbit(qk_e4m3_to_f32(0x80)) && qk_e4m3_to_f32(0x80) == 0 &&
	       isnan(qk_e4m3_to_f32(0x7F)) && isnan(qk_e4m3_to_f32(0xFF)),
	       "E4M3 decode: max, subnormals, -0, NaN");
}

static void e5m2_golden(void)
{
	tap_ok(qk_f32_to_e5m2(1.0f, 1) == 0x3C &&
	       qk_f32_to_e5m2(-2.0f, 1) == 0xC0 &&
	       qk_f32_to_e5m2(57344.0f, 1) == 0x7B &&
	       qk_f32_to_e5m2(1e10f, 1) == 0x7B &&
	       qk_f32_to_e5m2(1e10f, 0) == 0x7C &&
	       qk_f32_to_e5m2(-1e10f, 0) == 0xFC &&
	       qk_f32_to_e5m2(INFINITY, 1) == 0x7B &&
	       qk_f32_to_e5m2(INFINITY, 0) == 0x7C &&
	       qk_f32_to_e5m2(0x1p-16f, 1) == 0x01 &&
	       qk_f32_to_e5m2(0x1p-17f, 1) == 0x00 &&
	       qk_f32_to_e5m2(-0.0f, 1) == 0x80 &&
	       qk_f32_to_e5m2(NAN, 1) == 0x7F &&
	       qk_f32_to_e5m2(-NAN, 0) == 0xFF,
	       "E5M2 golden codes (saturation, inf, subnormal, -0, NaN)");
	tap_ok(qk_e5m2_to_f32(0x7B) == 57344.0f &&
	       qk_e5m2_to_f32(0x7C) == INFINITY &&
	       qk_e5m2_to_f32(0xFC) == -INFINITY &&
	       isnan(qk_e5m2_to_f32(0x7D)) && isnan(qk_e5m2_to_f32(0xFE)) &&
	       qk_e5m2_to_f32(0x01) == 0x1p-16f,
	       "E5M2 decode: max, inf, NaN, subnormal");
}

static void e2m1_tests(void)
{
	static const float grid[8] = { 0, .5f, 1, 1.5f, 2, 3, 4, 6 };
	static const struct { float x; float v; } ties[] = {
		{ .25f, 0 }, { .75f, 1 }, { 1.25f, 1 }, { 1.75f, 2 },
		{ 2.5f, 2 }, { 3.5f, 4 }, { 5.0f, 4 }, { 7.0f, 6 },
		{ 1e30f, 6 }, { INFINITY, 6 }, { .26f, .5f }, { 4.9f, 4 },
		{ 5.1f, 6 }, { .1f, 0 },
	};
	static const struct { float x[4]; int n; uint8_t b[2]; } packed[] = {
		{ { 0, .5f, 1, 1.5f }, 4, { 0x10, 0x32 } },
		{ { -.5f, -1, -1.5f, 1.75f }, 4, { 0xA9, 0x4B } },
		{ { 0, .75f, 1.75f, 3.5f }, 4, { 0x20, 0x64 } },
		{ { 10, -10 }, 2, { 0xF7 } },
		{ { .1f, -.1f }, 2, { 0x80 } },
	};
	int bad = 0;

	for (unsigned c = 0; c < 16; c++) {
		float v = qk_e2m1_to_f32((uint8_t)c);
		float want = c & 8 ? -grid[c & 7] : grid[c & 7];

		if (!kt_same(v, want) || qk_f32_to_e2m1(v) != c)
			bad++;
	}
	tap_ok(bad == 0, "E2M1: 16 codes decode to the grid and back");
	bad = 0;
	for (size_t i = 0; i < sizeof(ties) / sizeof(ties[0]); i++) {
		for (int s = 0; s < 2; s++) {
			float x = s ? -ties[i].x : ties[i].x;
			float got = qk_e2m1_to_f32(qk_f32_to_e2m1(x));
			float want = s ? -ties[i].v : ties[i].v;

			if (!kt_same(got, want)) {
				bad++;
				tap_diag("e2m1(%g) -> %g, want %g", x, got,
					 want);
			}
		}
	}
	tap_ok(bad == 0, "E2M1 round-half-to-even and saturation at 6");
	tap_ok(qk_f32_to_e2m1(NAN) == 0x7 && qk_f32_to_e2m1(-0.0f) == 0x8,
	       "E2M1: NaN -> 0x7 (ONNX reference), -0 keeps its sign");
	bad = 0;
	for (size_t i = 0; i < sizeof(packed) / sizeof(packed[0]); i++) {
		uint8_t b[2] = { 0xEE, 0xEE };

		qk_e2m1_pack(packed[i].x, packed[i].n, b);
		for (int j = 0; j < packed[i].n / 2; j++)
			if (b[j] != packed[i].b[j])
				bad++;
	}
	tap_ok(bad == 0, "E2M1 golden packed bytes (low nibble first)");
	{
		float x[3] = { 1, -2, 6 }, y[3];
		uint8_t b[2] = { 0xFF, 0xFF };

		qk_e2m1_pack(x, 3, b);
		qk_e2m1_unpack(b, 3, y);
		tap_ok(b[0] == 0xC2 && b[1] == 0x07 && y[0] == 1 &&
		       y[1] == -2 && y[2] == 6,
		       "E2M1 odd count: last byte padded with a zero nibble");
	}
}

static void f16_tests(struct fmt *f)
{
	int bad = 0;

	tap_ok(qk_f32_to_f16(1.0f) == 0x3C00 && qk_f32_to_f16(-2.0f) == 0xC000 &&
	       qk_f32_to_f16(65504.0f) == 0x7BFF &&
	       qk_f32_to_f16(65519.99f) == 0x7BFF &&
	       qk_f32_to_f16(65520.0f) == 0x7C00 && /* tie: even is inf */
	       qk_f32_to_f16(INFINITY) == 0x7C00 &&
	       qk_f32_to_f16(-INFINITY) == 0xFC00 &&
	       qk_f32_to_f16(0x1p-24f) == 0x0001 &&
	       qk_f32_to_f16(0x1p-25f) == 0x0000 && /* tie: even 0 */
	       qk_f32_to_f16(0x1.8p-24f) == 0x0002 && /* tie 1/2: even 2 */
	       qk_f32_to_f16(-0.0f) == 0x8000 &&
	       qk_f32_to_f16(0x1.002p0f) == 0x3C00 && /* tie: even */
	       qk_f32_to_f16(0x1.006p0f) == 0x3C02,
	       "FLOAT16 golden: ties, overflow, inf, subnormals, -0");
	tap_ok((qk_f32_to_f16(NAN) & 0x7C00) == 0x7C00 &&
	       (qk_f32_to_f16(NAN) & 0x3FF) && isnan(qk_f16_to_f32(0x7E00)) &&
	       (qk_f32_to_f16(-NAN) & 0x8000) &&
	       qk_f16_to_f32(0x0001) == 0x1p-24f &&
	       qk_f16_to_f32(0x03FF) == 0x1.ff8p-15f &&
	       qk_f16_to_f32(0x7C00) == INFINITY,
	       "FLOAT16: NaN stays NaN, subnormal and inf decode");
	for (unsigned c = 0; c < 0x10000; c++) {
		float v = qk_f16_to_f32((uint16_t)c);
		uint16_t back = qk_f32_to_f16(v);

		if (isnan(v) ? (back & 0x7FFF) <= 0x7C00 : back != c)
			bad++;
	}
	tap_ok(bad == 0, "FLOAT16: all 65536 codes round-trip (NaN to NaN)");
	check_against_ref(f, -30, 20, 1);
#ifdef __FLT16_MAX__
	bad = 0;
	for (int i = 0; i < 1000000; i++) {
		float x = any_float(-30, 20);
		_Float16 h = (_Float16)x;
		uint16_t hb;

		memcpy(&hb, &h, 2);
		if (isnan(x) ? isnan(qk_f16_to_f32(qk_f32_to_f16(x))) == 0 :
			       hb != qk_f32_to_f16(x))
			bad++;
		if (!isnan(x) && !kt_same((float)h, qk_f16_to_f32(hb)))
			bad++;
	}
	tap_ok(bad == 0, "FLOAT16 agrees with the compiler's _Float16 (1e6)");
#endif
}

static void bf16_tests(struct fmt *f)
{
	int bad = 0;

	tap_ok(qk_f32_to_bf16(1.0f) == 0x3F80 &&
	       qk_f32_to_bf16(0x1.01p0f) == 0x3F80 && /* tie: even */
	       qk_f32_to_bf16(0x1.03p0f) == 0x3F82 && /* tie: even */
	       qk_f32_to_bf16(0x1.fffffep127f) == 0x7F80 && /* rounds to inf */
	       qk_f32_to_bf16(-INFINITY) == 0xFF80 &&
	       qk_f32_to_bf16(0x1p-133f) == 0x0001 && /* subnormal */
	       qk_f32_to_bf16(-0.0f) == 0x8000 &&
	       isnan(qk_bf16_to_f32(qk_f32_to_bf16(NAN))) &&
	       isnan(qk_bf16_to_f32(qk_f32_to_bf16(kt_float(0x7F800001u)))),
	       "BFLOAT16 golden: ties, overflow, inf, subnormal, -0, NaN");
	for (unsigned c = 0; c < 0x10000; c++) {
		float v = qk_bf16_to_f32((uint16_t)c);
		uint16_t back = qk_f32_to_bf16(v);

		if (isnan(v) ? !isnan(qk_bf16_to_f32(back)) : back != c)
			bad++;
	}
	tap_ok(bad == 0, "BFLOAT16: all 65536 codes round-trip (NaN to NaN)");
	check_against_ref(f, -140, 128, 1);
}

int main(void)
{
	struct fmt e4 = { "e4m3", 0x7F, NULL, 0x80, enc_e4m3, dec_e4m3,
			  0x7F, 0x7E, 0x7F };
	struct fmt e5 = { "e5m2", 0x7C, NULL, 0x80, enc_e5m2, dec_e5m2,
			  0x7F, 0x7B, 0x7C };
	struct fmt h = { "f16", 0x7C00, NULL, 0x8000, enc_f16, dec_f16,
			 0x7E00, 0x7C00, 0x7C00 };
	struct fmt bf = { "bf16", 0x7F80, NULL, 0x8000, enc_bf16, dec_bf16,
			  0x7FC0, 0x7F80, 0x7F80 };

	kt_seed(1);
	fmt_init(&e4);
	fmt_init(&e5);
	fmt_init(&h);
	fmt_init(&bf);

	e4m3_golden();
	check_roundtrip(&e4, 256, 0);
	check_roundtrip(&e4, 256, 1);
	check_against_ref(&e4, -14, 12, 2);

	e5m2_golden();
	check_roundtrip(&e5, 256, 0);
	check_roundtrip(&e5, 256, 1);
	check_against_ref(&e5, -20, 20, 2);

	e2m1_tests();
	f16_tests(&h);
	bf16_tests(&bf);
	free(e4.val);
	free(e5.val);
	free(h.val);
	free(bf.val);
	return tap_done();
}
