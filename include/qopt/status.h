/*
 * qopt/status.h - one status type for libqopt, the kernels and the pass
 * API (ABI 3.0). Minimal version: the full header, documented in
 * docs/plugin-abi.md, comes with the error convention.
 */
#ifndef QOPT_STATUS_H
#define QOPT_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef int qopt_status;          /* 0 = QOPT_OK; else primary | (detail << 8) */
#define QOPT_PRIMARY(s) ((s) & 0xff)

enum qopt_status_code {
	/* primary codes (the values of the old QIR_E* are kept) */
	QOPT_OK = 0, QOPT_EIO = 1, QOPT_EPARSE = 2, QOPT_EINVALID = 3, QOPT_ENOMEM = 4,
	QOPT_EUNSAFE = 5, QOPT_EUSAGE = 6, QOPT_EVERIFY = 7, QOPT_EUNSUPPORTED = 8,
	QOPT_EDEVICE = 9,       /* CUDA requested but unusable, or a device call failed */
	QOPT_EPLUGIN = 10,      /* a plugin cannot be loaded or used */
	QOPT_EPOLICY = 11,      /* the pipeline's policy ([qopt] settings) forbids it */
	QOPT_ESKIPPED = 12,     /* the bisect gate declined a rewrite (not an error for a pass) */
	QOPT_ESTRICT = 13,      /* warnings under --strict */
	QOPT_EINTERRUPTED = 14, /* SIGINT/SIGTERM */
	QOPT_ENOTFOUND = 15,    /* a named pass, option, file, tensor or node does not exist */
	QOPT_EPASS = 16,        /* a pass failed; its messages say why */
	/* extended codes (primary | n << 8) */
	QOPT_EINVALID_ARG     = QOPT_EINVALID | 1 << 8,   /* kernel: bad argument (was QK_EINVAL) */
	QOPT_EINVALID_BLOCK   = QOPT_EINVALID | 2 << 8,   /* axis not a multiple of the block (QK_EBLOCK) */
	QOPT_EINVALID_NONFINITE = QOPT_EINVALID | 3 << 8, /* Inf/NaN where finite values are needed */
	QOPT_EUNSUPPORTED_DTYPE = QOPT_EUNSUPPORTED | 1 << 8, /* (QK_EDTYPE) */
	QOPT_EDEVICE_UNAVAILABLE = QOPT_EDEVICE | 1 << 8, /* (QK_EDEVICE) */
	QOPT_EDEVICE_CALL     = QOPT_EDEVICE | 2 << 8,   /* a CUDA call or copy failed */
	QOPT_EPLUGIN_OPEN     = QOPT_EPLUGIN | 1 << 8,   /* dlopen failed */
	QOPT_EPLUGIN_NOENTRY  = QOPT_EPLUGIN | 2 << 8,   /* no qopt_plugin_entry: not a qopt plugin */
	QOPT_EPLUGIN_ABI      = QOPT_EPLUGIN | 3 << 8,   /* other ABI major or newer minor */
	QOPT_EPLUGIN_TABLE    = QOPT_EPLUGIN | 4 << 8,   /* malformed tables (sizes, names, options) */
	QOPT_EPLUGIN_SYMBOL   = QOPT_EPLUGIN | 5 << 8,   /* needs a function this libqopt lacks */
	QOPT_EPLUGIN_DUPLICATE= QOPT_EPLUGIN | 6 << 8,   /* a pass or pipeline name already registered */
};

/* static text naming the code ("invalid argument"), never NULL */
const char *qopt_status_str(qopt_status s);

#ifdef __cplusplus
}
#endif
#endif /* QOPT_STATUS_H */
