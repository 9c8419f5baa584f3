/*
 * core/api/status.c - the names of the status codes (qopt/status.h).
 */
#include <qopt/status.h>

const char *qopt_status_str(qopt_status s)
{
	static const char *const primary[] = {
		"ok", "I/O error", "parse error", "invalid argument",
		"out of memory", "unsafe", "usage error", "verification failed",
		"unsupported", "device error", "plugin error",
		"forbidden by the pipeline's policy", "skipped by bisect",
		"warnings under --strict", "interrupted", "not found",
		"pass failed",
	};
	unsigned p = (unsigned)QOPT_PRIMARY(s);

	switch (s) {
	case QOPT_EINVALID_BLOCK:
		return "axis not a multiple of the block";
	case QOPT_EINVALID_NONFINITE:
		return "Inf or NaN where finite values are needed";
	case QOPT_EUNSUPPORTED_DTYPE:
		return "unsupported data type";
	case QOPT_EDEVICE_UNAVAILABLE:
		return "device unavailable";
	case QOPT_EPLUGIN_NOENTRY:
		return "not a qopt plugin";
	case QOPT_EPLUGIN_ABI:
		return "plugin built for another ABI";
	case QOPT_EPLUGIN_DUPLICATE:
		return "name already registered";
	default:
		break;
	}
	return p < sizeof(primary) / sizeof(primary[0]) ? primary[p] :
	       "unknown status";
}
