/*
 * kernels/hadamard.h - what kernels/hadamard.c (the transform, its
 * portable code) and kernels/hadamard-avx512.c (rows on AVX-512) share.
 * Internal to the kernels.
 */
#ifndef QKI_HADAMARD_H
#define QKI_HADAMARD_H

#include "internal.h"

/* The buffer of rows longer than 256 is padded: 16 floats after every
 * 256, so that vectors 1024 or more floats apart (the partners of the
 * late stages) fall in different L1 sets instead of one. Every stride
 * those stages use is a multiple of 256, so element f + k s sits at
 * QKI_TP(f) + k QKI_TP(s): addresses stay linear. */
#define QKI_TP(j) ((j) + ((j) >> 8) * 16)
#define QKI_PADDED(n) (QKI_TP(n) + 16)

/* The next unit's bytes, requested a few lines per step of the passes
 * over the buffer: spread out, the requests overlap the arithmetic
 * instead of queueing up behind each other. */
struct qki_pf {
	const char *p, *end;
};

static inline __attribute__((always_inline)) void
qki_pf_step(struct qki_pf *pf, int lines)
{
	for (int i = 0; i < lines && pf->p < pf->end; i++, pf->p += 64)
		__builtin_prefetch(pf->p, 0, 1);
}

/* The same with lines a constant: no test per line (a request past
 * the end is harmless, prefetches never fault). */
static inline __attribute__((always_inline)) void
qki_pf_lines(struct qki_pf *pf, int lines)
{
	if (pf->p >= pf->end)
		return;
	for (int i = 0; i < lines; i++)
		__builtin_prefetch(pf->p + 64 * i, 0, 1);
	pf->p += 64 * lines;
}

#if QKI_HAVE_F16C
/* Rows of b >= 16 elements, n of them at x (n % 256 == 0), transformed
 * in place; t holds QKI_PADDED of the unit's floats; pf names the next
 * unit's bytes to request meanwhile. */
void qki_rows512(int dtype, unsigned char *x, float *t, size_t n, size_t b,
		 float scale, struct qki_pf *pf);
/* The load of the portable path (n % 64 == 0, 16 <= b < 256) with stages
 * 1 .. min(b, 64) / 2 done; returns the first stage left. */
size_t qki_in512(int dtype, const unsigned char *src, float *t, size_t n,
		 size_t b);
/* dst = t scaled, NaN canonical, rounded once (n % 16 == 0). */
void qki_out512(int dtype, unsigned char *dst, const float *t, size_t n,
		float scale);
#endif

#endif
