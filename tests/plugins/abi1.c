/*
 * tests/plugins/abi1.c - a plugin as ABI 1 built it: its own copy of the
 * ABI 1 plugin table (abi_version 1 and no size fields), as if compiled
 * against the headers of the previous release.
 */
#include <stddef.h>
#include <stdint.h>

/* Not <qopt/qopt.h>: that declares today's qopt_plugin_entry. */
typedef struct qopt_ctx qopt_ctx;
typedef struct qir_model qir_model;

struct abi1_pass_info {
	const char *name;
	const char *summary;
	const void *options;
	int (*run)(qopt_ctx *ctx, qir_model *m, int *changed);
	unsigned flags;
};

struct abi1_plugin_info {
	uint32_t abi_version;
	const char *name;
	const char *version;
	const struct abi1_pass_info *passes;
};

static int run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	(void)ctx;
	(void)m;
	(void)changed;
	return 0;
}

static const struct abi1_pass_info passes[] = {
	{ "t-abi1", "from the previous release", NULL, run, 0 },
	{ 0 }
};

static const struct abi1_plugin_info info = { 1, "test-abi1", "1", passes };

__attribute__((visibility("default"))) const void *qopt_plugin_entry(void);
const void *qopt_plugin_entry(void)
{
	return &info;
}
