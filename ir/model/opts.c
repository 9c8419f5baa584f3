/*
 * ir/model/opts.c - caller-allocated structs that begin with their size
 * (qir_load_opts, qir_save_opts, qir_infer_opts, qir_upgrade_report).
 * The size says which fields the caller's build has: libqopt reads and
 * writes those and no more, and reads the rest as zero, so a field
 * appended in a minor release needs no major (docs/plugin-abi.md).
 */
#include <string.h>
#include "model/internal.h"

int ir_opts_read(void *dst, size_t dst_size, const void *src, size_t base,
		 const char *what, qir_error *err)
{
	uint32_t size;

	memset(dst, 0, dst_size);
	if (src) {
		memcpy(&size, src, sizeof(size));
		if (size == 0)
			size = (uint32_t)base;
		if (size < base)
			return qir_fail(err, QIR_EUSAGE,
					"%s.size is %u, below the %zu bytes of ABI 4.0's layout: start from its _INIT macro",
					what, (unsigned)size, base);
		memcpy(dst, src, size < dst_size ? size : dst_size);
	}
	size = (uint32_t)dst_size;
	memcpy(dst, &size, sizeof(size));
	return 0;
}

void ir_opts_write(void *dst, const void *src, size_t src_size, size_t base)
{
	uint32_t size;

	memcpy(&size, dst, sizeof(size));
	if (size == 0)
		size = (uint32_t)base;
	if (size > src_size)
		size = (uint32_t)src_size;
	/* The caller's size stays as it was. */
	if (size > sizeof(size))
		memcpy((char *)dst + sizeof(size), (const char *)src + sizeof(size),
		       size - sizeof(size));
}
