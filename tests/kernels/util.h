/*
 * tests/kernels/util.h - helpers for the kernel tests: a seeded RNG,
 * a few distributions and float bit access.
 */
#ifndef QOPT_TESTS_KERNELS_UTIL_H
#define QOPT_TESTS_KERNELS_UTIL_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static uint64_t kt_state = 0x9e3779b97f4a7c15ull;

static inline void kt_seed(uint64_t s)
{
	kt_state = s * 0x9e3779b97f4a7c15ull + 1;
}

/* xorshift64*: deterministic across platforms. */
static inline uint64_t kt_u64(void)
{
	kt_state ^= kt_state >> 12;
	kt_state ^= kt_state << 25;
	kt_state ^= kt_state >> 27;
	return kt_state * 0x2545f4914f6cdd1dull;
}

static inline uint32_t kt_u32(void)
{
	return (uint32_t)(kt_u64() >> 32);
}

/* (0, 1) */
static inline double kt_unif(void)
{
	return ((kt_u64() >> 11) + 0.5) / 9007199254740992.0;
}

static inline double kt_normal(void)
{
	return sqrt(-2.0 * log(kt_unif())) * cos(6.283185307179586 * kt_unif());
}

static inline double kt_cauchy(void)
{
	return tan(3.141592653589793 * (kt_unif() - 0.5));
}

/* Student-t with nu degrees of freedom (nu a small integer). */
static inline double kt_student(int nu)
{
	double chi = 0;

	for (int i = 0; i < nu; i++) {
		double z = kt_normal();

		chi += z * z;
	}
	return kt_normal() / sqrt(chi / nu);
}

static inline uint32_t kt_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static inline float kt_float(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

/* Same bits, or both NaN. */
static inline int kt_same(float a, float b)
{
	return kt_bits(a) == kt_bits(b) || (isnan(a) && isnan(b));
}

#endif
