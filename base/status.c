/*
 * base/status.c - the names of the qopt_status codes (qopt/status.h).
 */
#include <stddef.h>
#include <qopt/status.h>

static const char *primary_str(qopt_status s)
{
	switch (s) {
	case QOPT_OK:
		return "success";
	case QOPT_EIO:
		return "input/output error";
	case QOPT_EPARSE:
		return "malformed or truncated file";
	case QOPT_EINVALID:
		return "invalid content";
	case QOPT_ENOMEM:
		return "out of memory";
	case QOPT_EUNSAFE:
		return "path escapes the model folder";
	case QOPT_EUSAGE:
		return "API misuse";
	case QOPT_EVERIFY:
		return "the model does not verify";
	case QOPT_EUNSUPPORTED:
		return "not supported";
	case QOPT_EDEVICE:
		return "device error";
	case QOPT_EPLUGIN:
		return "plugin error";
	case QOPT_EPOLICY:
		return "forbidden by the pipeline policy";
	case QOPT_ESKIPPED:
		return "skipped by bisect";
	case QOPT_ESTRICT:
		return "warnings under --strict";
	case QOPT_EINTERRUPTED:
		return "interrupted";
	case QOPT_ENOTFOUND:
		return "not found";
	case QOPT_EPASS:
		return "pass failed";
	}
	return NULL;
}

static const char *extended_str(qopt_status s)
{
	switch (s) {
	case QOPT_EINVALID_ARG:
		return "invalid argument";
	case QOPT_EINVALID_BLOCK:
		return "axis length is not a multiple of the block";
	case QOPT_EINVALID_NONFINITE:
		return "infinite or NaN value where a finite one is needed";
	case QOPT_EUNSUPPORTED_DTYPE:
		return "element type not supported";
	case QOPT_EDEVICE_UNAVAILABLE:
		return "CUDA requested but unusable";
	case QOPT_EDEVICE_CALL:
		return "a CUDA call or copy failed";
	case QOPT_EPLUGIN_OPEN:
		return "cannot open plugin";
	case QOPT_EPLUGIN_NOENTRY:
		return "not a qopt plugin";
	case QOPT_EPLUGIN_ABI:
		return "plugin built for another plugin ABI";
	case QOPT_EPLUGIN_TABLE:
		return "malformed plugin table";
	case QOPT_EPLUGIN_SYMBOL:
		return "plugin needs a function this libqopt lacks";
	case QOPT_EPLUGIN_DUPLICATE:
		return "pass or pipeline name already registered";
	}
	return NULL;
}

const char *qopt_status_str(qopt_status s)
{
	const char *str;

	/* Success has no extended codes: 256 is not a kind of success, and a
	 * pass returning it must not read as one. */
	if (s < 0 || (s != QOPT_OK && QOPT_PRIMARY(s) == QOPT_OK))
		return "unknown status";
	str = extended_str(s);
	if (!str)
		str = primary_str(QOPT_PRIMARY(s));
	return str ? str : "unknown status";
}
