/*
 * tests/ir/io-file.c - qopt/file.h, the public face of the file layer
 * (ir/file/): whole reads with a limit, regular-file checks, and
 * outputs that appear whole or not at all.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <qopt/file.h>
#include "../lib/io-util.h"
#include "../lib/tap.h"

static void read_file(const char *dir)
{
	char *p = io_path(dir, "small.txt"), *d;
	char *fifo = io_path(dir, "fifo");
	qir_error err = { 0 };
	size_t n = 99;

	io_write(p, "hello\n", 6);
	d = qir_read_file(p, 0, 6, &n, &err);
	tap_ok(d && n == 6 && !memcmp(d, "hello\n", 7),
	       "a file of exactly max bytes is read whole, NUL after it");
	free(d);

	d = qir_read_file(p, 0, 5, &n, &err);
	tap_ok(!d && err.code == QIR_EUSAGE && strstr(err.msg, "6 bytes") &&
	       strstr(err.msg, "small.txt"),
	       "one byte over max is refused, naming the file and its size: %s",
	       err.msg);

	io_write(p, "", 0);
	d = qir_read_file(p, 0, 0, &n, &err);
	tap_ok(d && n == 0 && d[0] == 0, "an empty file reads as \"\"");
	free(d);

	d = qir_read_file(dir, 0, 100, &n, &err);
	tap_ok(!d && err.code == QIR_EUSAGE && strstr(err.msg, "a directory"),
	       "a directory is refused by kind: %s", err.msg);

	if (mkfifo(fifo, 0600) == 0) {
		/* Opening a FIFO would block without a writer: the kind
		 * is checked before the open, so this returns. */
		d = qir_read_file(fifo, 0, 100, &n, &err);
		tap_ok(!d && err.code == QIR_EUSAGE && strstr(err.msg, "a FIFO"),
		       "a FIFO is refused without blocking: %s", err.msg);
		unlink(fifo);
	} else {
		tap_skip("mkfifo failed", "a FIFO is refused without blocking");
	}

	d = qir_read_file(io_path(dir, "missing"), 0, 100, &n, &err);
	tap_ok(!d && err.code == QIR_EIO && strstr(err.msg, strerror(ENOENT)),
	       "a missing file is an I/O error with the reason: %s", err.msg);

	if (symlink("small.txt", io_path(dir, "link")) == 0) {
		d = qir_read_file(io_path(dir, "link"), O_NOFOLLOW, 100, &n,
				  &err);
		tap_ok(!d && err.code == QIR_EUSAGE &&
		       strstr(err.msg, "a symbolic link"),
		       "O_NOFOLLOW refuses a symlink: %s", err.msg);
	} else {
		tap_skip("symlink failed", "O_NOFOLLOW refuses a symlink");
	}
}

static void outfile(const char *dir)
{
	char *p = io_path(dir, "out.bin"), *fifo = io_path(dir, "out.fifo");
	qir_error err = { 0 };
	qir_outfile *f;
	uint8_t *d;
	size_t n;
	int before;

	io_write(p, "old", 3);
	before = io_count(dir);
	f = qir_outfile_open(p, &err);
	tap_ok(f && qir_outfile_fd(f) >= 0 && io_count(dir) == before + 1,
	       "open makes one temporary file beside the target");
	if (f && write(qir_outfile_fd(f), "new!", 4) != 4)
		tap_diag("write failed");
	d = io_read(p, &n);
	tap_ok(d && n == 3 && !memcmp(d, "old", 3),
	       "the target is untouched until the commit");
	free(d);
	tap_ok(f && qir_outfile_commit(f, &err) == 0, "commit succeeds");
	d = io_read(p, &n);
	tap_ok(d && n == 4 && !memcmp(d, "new!", 4) && io_count(dir) == before,
	       "after the commit the target holds the new bytes, no temporary left");
	free(d);

	f = qir_outfile_open(p, &err);
	qir_outfile_abort(f);
	d = io_read(p, &n);
	tap_ok(d && n == 4 && io_count(dir) == before,
	       "abort removes the temporary file and keeps the target");
	free(d);

	f = qir_outfile_open(dir, &err);
	tap_ok(!f && err.code == QIR_EUSAGE && strstr(err.msg, "a directory"),
	       "a directory target is refused: %s", err.msg);
	if (mkfifo(fifo, 0600) == 0) {
		f = qir_outfile_open(fifo, &err);
		tap_ok(!f && err.code == QIR_EUSAGE && strstr(err.msg, "a FIFO"),
		       "a FIFO target is refused: %s", err.msg);
		unlink(fifo);
	} else {
		tap_skip("mkfifo failed", "a FIFO target is refused");
	}
}

int main(void)
{
	const char *dir = io_mkdir("io-file");
	char keep[4096];

	snprintf(keep, sizeof(keep), "%s", dir);
	read_file(keep);
	outfile(keep);
	return tap_done();
}
