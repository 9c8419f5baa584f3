/*
 * tests/cli/bisect-check.c - the bisect test command of tests/cli/bisect.sh:
 * exit 1 (bad) when a metadata value is "CORRUPT", 125 (skip) when the
 * model has exactly SKIP metadata entries, else 0 (good). With --meta
 * it prints the metadata as key=value lines instead.
 * usage: core-check MODEL.onnx [SKIP | --meta]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qopt/ir.h>

int main(int argc, char **argv)
{
	qir_error err = { 0 };
	qir_model *m = NULL;
	size_t i;
	int rc = 0;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: core-check MODEL.onnx [SKIP | --meta]\n");
		return 2;
	}
	if (qir_model_load(argv[1], NULL, &m, &err) < 0) {
		fprintf(stderr, "core-check: %s: %s\n", argv[1], err.msg);
		return 125;
	}
	if (argc == 3 && !strcmp(argv[2], "--meta")) {
		for (i = 0; i < m->nmetadata; i++)
			printf("%s=%s\n", m->metadata[i].key,
			       m->metadata[i].value);
		qir_model_free(m);
		return 0;
	}
	for (i = 0; i < m->nmetadata; i++)
		if (!strcmp(m->metadata[i].value, "CORRUPT"))
			rc = 1;
	if (!rc && argc == 3 && m->nmetadata == strtoull(argv[2], NULL, 10))
		rc = 125;
	qir_model_free(m);
	return rc;
}
