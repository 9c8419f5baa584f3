/*
 * core/calib/calib-samples.h - the sample files of `qopt calibrate
 * --data`, checked before the node script reads them.
 */
#ifndef QOPT_CALIB_SAMPLES_H
#define QOPT_CALIB_SAMPLES_H

#include <stddef.h>
#include <stdint.h>

/* The largest sample file read (node's buffers stop at 2 GiB). */
#define CALIB_SAMPLE_MAX_BYTES 0x7fffffffLL

/* The files the script will read under data (input_N.pb and *.npy in
 * each sample folder, as tools/qopt-calibrate.js picks them). */
struct calib_samples {
	char **files;	/* owned */
	size_t n;
};

/* Checks every sample file: a regular file (a symlink to one is fine;
 * a FIFO, a device, or a link to one is not), at most
 * CALIB_SAMPLE_MAX_BYTES, and a .npy one with a header numpy would
 * write (version 1.0, 2.0 or 3.0; exactly the keys descr,
 * fortran_order, shape; a shape of non-negative integers; as many data
 * bytes as the shape needs). Returns 0, or -1 with why naming the file
 * and what is wrong. s is filled either way; free it with
 * calib_samples_free. */
int calib_samples_check(const char *data, struct calib_samples *s,
			char *why, size_t whyn);
void calib_samples_free(struct calib_samples *s);

/* calib-npy.c: checks the .npy file open at fd (size bytes); -1 with
 * why (without the file name). */
int calib_npy_check(int fd, long long size, char *why, size_t whyn);

/* What a .npy header says. */
struct calib_npy {
	char descr[64], shape[256];	/* shape as text: "3,2" */
	int fortran, rank;
	uint64_t count, dim0;		/* elements; the first dimension */
};

/* The same for a .npy of size bytes at offset base of fd (a member of
 * an .npz); *info filled when it is good. */
int calib_npy_check_at(int fd, long long base, long long size,
		       struct calib_npy *info, char *why, size_t whyn);

/* calib-npz.c: the .npz (a zip of NAME.npy, as numpy.savez writes it)
 * open at fd: each member stored (numpy.savez: its header checked as a
 * .npy) or deflated (numpy.savez_compressed: the script inflates it and
 * checks it), every stored array with rank >= 1 and one first
 * dimension, the sample count (*n; UINT64_MAX when no member is
 * stored). -1 with why (without the file name). */
int calib_npz_check(int fd, long long size, uint64_t *n, char *why,
		    size_t whyn);

#endif
