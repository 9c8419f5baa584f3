/*
 * core/api/status.c - qopt_status_str(): the name of a status code.
 */
#include <qopt/status.h>

const char *qopt_status_str(qopt_status s)
{
	switch (s) {
	case QOPT_OK: return "ok";
	case QOPT_EIO: return "I/O error";
	case QOPT_EPARSE: return "parse error";
	case QOPT_EINVALID: return "invalid";
	case QOPT_ENOMEM: return "out of memory";
	case QOPT_EUNSAFE: return "unsafe";
	case QOPT_EUSAGE: return "usage error";
	case QOPT_EVERIFY: return "does not verify";
	case QOPT_EUNSUPPORTED: return "unsupported";
	case QOPT_EDEVICE: return "device error";
	case QOPT_EPLUGIN: return "plugin error";
	case QOPT_EPOLICY: return "forbidden by the pipeline's policy";
	case QOPT_ESKIPPED: return "skipped";
	case QOPT_ESTRICT: return "warnings under --strict";
	case QOPT_EINTERRUPTED: return "interrupted";
	case QOPT_ENOTFOUND: return "not found";
	case QOPT_EPASS: return "pass failed";
	case QOPT_EINVALID_ARG: return "invalid argument";
	case QOPT_EINVALID_BLOCK: return "axis not a multiple of the block";
	case QOPT_EINVALID_NONFINITE: return "not finite";
	case QOPT_EUNSUPPORTED_DTYPE: return "unsupported element type";
	case QOPT_EDEVICE_UNAVAILABLE: return "device unavailable";
	case QOPT_EDEVICE_CALL: return "device call failed";
	case QOPT_EPLUGIN_OPEN: return "plugin cannot be opened";
	case QOPT_EPLUGIN_NOENTRY: return "not a qopt plugin";
	case QOPT_EPLUGIN_ABI: return "plugin ABI mismatch";
	case QOPT_EPLUGIN_TABLE: return "malformed plugin table";
	case QOPT_EPLUGIN_SYMBOL: return "plugin needs a missing function";
	case QOPT_EPLUGIN_DUPLICATE: return "name already registered";
	}
	return "unknown status";
}
