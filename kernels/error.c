/*
 * kernels/error.c - names of the QK_E* codes.
 */
#include "internal.h"

const char *qk_strerror(int code)
{
	switch (code) {
	case QK_OK:
		return "success";
	case QK_EINVAL:
		return "invalid argument";
	case QK_EDTYPE:
		return "element type not supported by this kernel";
	case QK_EBLOCK:
		return "axis length is not a multiple of the block";
	case QK_ENOMEM:
		return "out of memory";
	case QK_EDEVICE:
		return "CUDA requested but unusable";
	default:
		return "unknown kernel error";
	}
}
