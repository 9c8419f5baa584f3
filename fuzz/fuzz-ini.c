/*
 * fuzz/fuzz-ini.c - libFuzzer target: the pipeline parsers, the INI
 * file (through a scratch file, as qopt reads it) and the inline
 * --passes form. Errors are expected; crashes, hangs, leaks and
 * sanitizer reports are not.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "manager/session-api.h"

static char path[256];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	qm_session *s;
	char *text;
	int fd;

	if (!path[0])
		snprintf(path, sizeof(path), "%s/qopt-fuzz-%ld.ini",
			 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp",
			 (long)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
	/* Pipeline messages go to stderr; libFuzzer's -close_fd_mask=2
	 * silences them on long runs. */
	s = qm_session_new();
	if (!s)
		abort();
	qm_parse(s, path, NULL);
	qm_session_free(s);

	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	s = qm_session_new();
	if (!s)
		abort();
	qm_parse(s, NULL, text);
	qm_session_free(s);
	free(text);
	unlink(path);
	return 0;
}
