/*
 * core/calib/calib-npz.c - an .npz of `qopt calibrate --data FILE.npz`
 * (one array per input, N samples on the first axis, as ModelOpt takes
 * them) checked before node starts, as calib-samples.c checks a .npy:
 * the zip's central directory, each member a NAME.npy, stored or
 * deflated, inside the file. numpy.savez stores its members, so their
 * .npy headers are checked here too; numpy.savez_compressed deflates
 * them, and C has no inflater here: the script inflates those (node has
 * zlib) and checks their headers with the same messages.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "calib/calib-samples.h"

#define EOCD_SIG 0x06054b50u
#define CDIR_SIG 0x02014b50u
#define LOCAL_SIG 0x04034b50u
#define EOCD_LEN 22
#define CDIR_LEN 46
#define LOCAL_LEN 30
#define ZIP_COMMENT_MAX 65535

static unsigned le16(const unsigned char *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)le16(p) | (uint32_t)le16(p + 2) << 16;
}

static int read_at(int fd, void *buf, size_t n, long long at)
{
	size_t got = 0;
	ssize_t k;

	while (got < n) {
		k = pread(fd, (char *)buf + got, n - got, (off_t)(at + (long long)got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		got += (size_t)k;
	}
	return 0;
}

/* The end record: where the central directory is and how many entries
 * it holds. */
static int end_record(int fd, long long size, uint32_t *cd_off,
		      uint32_t *cd_len, unsigned *count, char *why,
		      size_t whyn)
{
	size_t tail = size < EOCD_LEN + ZIP_COMMENT_MAX ? (size_t)size :
		      EOCD_LEN + ZIP_COMMENT_MAX;
	unsigned char *b = malloc(tail ? tail : 1);
	size_t k;
	int rc = -1;

	if (!b || size < EOCD_LEN ||
	    read_at(fd, b, tail, size - (long long)tail)) {
		snprintf(why, whyn, "not an .npz file (%s)", b ?
			 "no zip end record" : "out of memory");
		free(b);
		return -1;
	}
	for (k = tail - EOCD_LEN + 1; k-- > 0;)
		if (le32(b + k) == EOCD_SIG)
			break;
	if (k == (size_t)-1) {
		snprintf(why, whyn, "not an .npz file (no zip end record)");
	} else if (le16(b + k + 10) == 0xffff || le32(b + k + 16) == 0xffffffffu) {
		snprintf(why, whyn, "a zip64 .npz; at most 65534 arrays in "
			 "a file under 4 GiB are read");
	} else if (le16(b + k + 4) || le16(b + k + 6)) {
		snprintf(why, whyn, "a multi-disk zip is no .npz");
	} else {
		*count = le16(b + k + 10);
		*cd_len = le32(b + k + 12);
		*cd_off = le32(b + k + 16);
		rc = 0;
		if ((long long)*cd_off + *cd_len > size - (long long)(tail - k)) {
			snprintf(why, whyn, "the zip directory (%u bytes at %u) "
				 "runs past the end record", (unsigned)*cd_len,
				 (unsigned)*cd_off);
			rc = -1;
		}
	}
	free(b);
	return rc;
}

struct member {
	char name[256];
	unsigned method, flags;
	uint32_t csize, usize, local;
};

/* Central-directory entry at cd[*at]; *at moves past it. */
static int entry(const unsigned char *cd, size_t len, size_t *at,
		 struct member *m, char *why, size_t whyn)
{
	const unsigned char *e = cd + *at;
	size_t nlen, total;

	if (len - *at < CDIR_LEN || le32(e) != CDIR_SIG) {
		snprintf(why, whyn, "a zip directory entry at byte %zu is "
			 "malformed", *at);
		return -1;
	}
	nlen = le16(e + 28);
	total = CDIR_LEN + nlen + le16(e + 30) + le16(e + 32);
	if (len - *at < total) {
		snprintf(why, whyn, "a zip directory entry at byte %zu runs "
			 "past the directory", *at);
		return -1;
	}
	if (!nlen || nlen >= sizeof(m->name) ||
	    memchr(e + CDIR_LEN, 0, nlen)) {
		snprintf(why, whyn, "a zip member's name is empty, too long "
			 "or holds NUL");
		return -1;
	}
	memcpy(m->name, e + CDIR_LEN, nlen);
	m->name[nlen] = 0;
	m->flags = le16(e + 8);
	m->method = le16(e + 10);
	m->csize = le32(e + 20);
	m->usize = le32(e + 24);
	m->local = le32(e + 42);
	*at += total;
	return 0;
}

/* Where member m's bytes start (past its local header), checked to lie
 * before the directory. */
static int data_start(int fd, const struct member *m, uint32_t cd_off,
		      long long *start, char *why, size_t whyn)
{
	unsigned char h[LOCAL_LEN];

	if ((long long)m->local + LOCAL_LEN > cd_off ||
	    read_at(fd, h, LOCAL_LEN, m->local) || le32(h) != LOCAL_SIG) {
		snprintf(why, whyn, "member '%s': no zip local header at byte "
			 "%u", m->name, (unsigned)m->local);
		return -1;
	}
	*start = (long long)m->local + LOCAL_LEN + le16(h + 26) + le16(h + 28);
	if (*start + m->csize > cd_off) {
		snprintf(why, whyn, "member '%s': %u bytes at %lld run past "
			 "the zip directory", m->name, (unsigned)m->csize,
			 *start);
		return -1;
	}
	return 0;
}

/* One member: a NAME.npy, stored or deflated; a stored one's header
 * checked, its first dimension into *n (all stored members agree). */
static int member(int fd, const struct member *m, uint32_t cd_off,
		  uint64_t *n, const char **first, char *why, size_t whyn)
{
	size_t l = strlen(m->name);
	struct calib_npy in;
	char inner[512];
	long long start;

	if (l < 5 || strcmp(m->name + l - 4, ".npy")) {
		snprintf(why, whyn, "member '%s' is not a NAME.npy (numpy.savez "
			 "writes one per array)", m->name);
		return -1;
	}
	if (m->flags & 1) {
		snprintf(why, whyn, "member '%s' is encrypted", m->name);
		return -1;
	}
	if (m->method != 0 && m->method != 8) {
		snprintf(why, whyn, "member '%s' uses zip method %u; numpy.savez "
			 "stores (0), savez_compressed deflates (8)", m->name,
			 m->method);
		return -1;
	}
	if (data_start(fd, m, cd_off, &start, why, whyn))
		return -1;
	if (m->method == 8) {
		if (m->usize > CALIB_SAMPLE_MAX_BYTES) {
			snprintf(why, whyn, "member '%s' inflates to %u bytes; "
				 "at most %lld are read", m->name,
				 (unsigned)m->usize, CALIB_SAMPLE_MAX_BYTES);
			return -1;
		}
		return 0;	/* the script inflates and checks it */
	}
	if (m->csize != m->usize) {
		snprintf(why, whyn, "member '%s' is stored with %u bytes but "
			 "claims %u", m->name, (unsigned)m->csize,
			 (unsigned)m->usize);
		return -1;
	}
	if (calib_npy_check_at(fd, start, m->csize, &in, inner,
			       sizeof(inner))) {
		snprintf(why, whyn, "member '%s': %s", m->name, inner);
		return -1;
	}
	if (in.rank < 1) {
		snprintf(why, whyn, "member '%s' has shape (): no sample axis "
			 "(an array per input, [N, *input shape])", m->name);
		return -1;
	}
	if (*first && in.dim0 != *n) {
		snprintf(why, whyn, "members '%s' and '%s' hold %llu and %llu "
			 "samples (the first axis); each input needs one per "
			 "sample", *first, m->name, (unsigned long long)*n,
			 (unsigned long long)in.dim0);
		return -1;
	}
	*n = in.dim0;
	*first = m->name;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct member *)a)->name,
		      ((const struct member *)b)->name);
}

int calib_npz_check(int fd, long long size, uint64_t *n, char *why,
		    size_t whyn)
{
	uint32_t cd_off, cd_len;
	unsigned count, k;
	unsigned char *cd = NULL;
	struct member *ms = NULL;
	const char *first = NULL;
	size_t at = 0;
	int rc = -1;

	*n = 0;
	if (end_record(fd, size, &cd_off, &cd_len, &count, why, whyn))
		return -1;
	if (!count) {
		snprintf(why, whyn, "the .npz holds no array");
		return -1;
	}
	cd = malloc(cd_len ? cd_len : 1);
	ms = calloc(count, sizeof(*ms));
	if (!cd || !ms || read_at(fd, cd, cd_len, cd_off)) {
		snprintf(why, whyn, "cannot read the zip directory: %s",
			 cd && ms ? strerror(errno) : "out of memory");
		goto out;
	}
	for (k = 0; k < count; k++)
		if (entry(cd, cd_len, &at, &ms[k], why, whyn) ||
		    member(fd, &ms[k], cd_off, n, &first, why, whyn))
			goto out;
	if (!first)
		*n = UINT64_MAX;	/* all deflated: the script counts */
	/* first points into ms: not used past here, ms is reordered */
	qsort(ms, count, sizeof(*ms), by_name);
	for (k = 1; k < count; k++)
		if (!strcmp(ms[k].name, ms[k - 1].name)) {
			snprintf(why, whyn, "member '%s' given twice", ms[k].name);
			goto out;
		}
	rc = 0;
out:
	free(cd);
	free(ms);
	return rc;
}
