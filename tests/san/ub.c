/*
 * tests/san/ub.c - undefined behaviour on purpose, for
 * tests/san/gate.sh, which checks that the sanitizer gate fails a test
 * when a program it runs hits some: "misaligned" loads a float from an
 * odd address, "float-cast" converts 1e10 to int (the check GCC's
 * -fsanitize=undefined leaves out), anything else does nothing wrong.
 * Prints the value it computed and exits 0 when nothing stopped it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	static float store[4] = { 1.0f, 2.0f, 3.0f, 4.0f };
	const char *what = argc > 1 ? argv[1] : "";
	volatile double big = 1e10;
	double v = 0;

	if (!strcmp(what, "misaligned")) {
		const float *p = (const float *)((const char *)store + 1 +
						  (argc > 5));

		v = *p;
	} else if (!strcmp(what, "float-cast")) {
		v = (int)big;
	}
	printf("%g\n", v);
	return 0;
}
