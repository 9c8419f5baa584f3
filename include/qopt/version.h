/*
 * qopt/version.h - which qopt and which plugin ABI these headers are.
 *
 * The release version (QOPT_VERSION_*) says which qopt the headers come
 * from. The plugin ABI (QOPT_ABI_MAJOR.QOPT_ABI_MINOR) is the contract
 * a plugin is built against; the rules are in docs/plugin-abi.md:
 * a minor release only adds (functions, and fields at the end of the
 * plugin, pass and option tables and of the caller-allocated option
 * structs, which carry their size), so a plugin built against ABI 4.0
 * keeps loading under 4.1, 4.2...; a major release may change anything
 * and qopt refuses plugins of another major, naming both versions.
 * libqopt's soname is libqopt.so.QOPT_ABI_MAJOR.
 */
#ifndef QOPT_VERSION_H
#define QOPT_VERSION_H

#ifdef __cplusplus
extern "C" {
#endif

#define QOPT_VERSION_MAJOR 0
#define QOPT_VERSION_MINOR 6
#define QOPT_VERSION_PATCH 0
#define QOPT_VERSION_STRING "0.6.0"
/* Compare releases at compile time: QOPT_VERSION >= QOPT_VERSION_AT(0, 2, 0). */
#define QOPT_VERSION_AT(maj, min, pat) \
	((unsigned long)(maj) * 1000000ul + (unsigned long)(min) * 1000ul + \
	 (unsigned long)(pat))
#define QOPT_VERSION \
	QOPT_VERSION_AT(QOPT_VERSION_MAJOR, QOPT_VERSION_MINOR, \
			QOPT_VERSION_PATCH)

#define QOPT_ABI_MAJOR 4
#define QOPT_ABI_MINOR 4
/* The ABI major, under its ABI 1 name (qopt.pc's abi_version; configure
 * reads QOPT_ABI_MAJOR and QOPT_ABI_MINOR above for the soname). */
#define QOPT_ABI_VERSION QOPT_ABI_MAJOR

/* The running libqopt's release, "0.3.0" (static). A plugin can compare
 * it with the QOPT_VERSION_STRING it was built with. */
const char *qopt_version(void);
/* The running libqopt's plugin ABI: major in *major, minor in *minor
 * (either may be NULL). */
void qopt_abi_version(unsigned *major, unsigned *minor);

#ifdef __cplusplus
}
#endif
#endif /* QOPT_VERSION_H */
