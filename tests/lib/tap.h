/*
 * tests/lib/tap.h - minimal TAP producer for the C unit tests.
 * Each test program prints "1..N" at the end (no plan needed up front).
 */
#ifndef QOPT_TESTS_TAP_H
#define QOPT_TESTS_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Fixture building calls the IR's QIR_MUST_CHECK mutators without
 * checking each one: a failed edit fails the assertions that follow. */
#pragma GCC diagnostic ignored "-Wunused-result"

static int tap_n, tap_failed;

static inline int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;
	tap_n++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		tap_failed++;
	fflush(stdout);
	return cond;
}

static inline void tap_skip(const char *why, const char *fmt, ...)
{
	va_list ap;
	tap_n++;
	printf("ok %d - ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" # SKIP %s\n", why);
	fflush(stdout);
}

static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;
	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#define TAP_IS_STR(got, want, ...) \
	tap_ok((got) && (want) && strcmp((got), (want)) == 0, __VA_ARGS__)

#endif
