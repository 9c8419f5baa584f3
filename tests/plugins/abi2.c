/*
 * tests/plugins/abi2.c - a plugin as ABI 2.4 built it: its own copy of
 * the 2.x tables (abi_major 2, minor 4, 2.4's entry sizes), as if
 * compiled against the previous release's headers. ABI 3.0 is another
 * major (kernel codes and run()'s return changed meaning): refused.
 */
#include <stddef.h>
#include <stdint.h>

/* Not <qopt/qopt.h>: that declares today's qopt_plugin_entry. */
typedef struct qopt_ctx qopt_ctx;
typedef struct qir_model qir_model;

struct abi2_option_spec {
	const char *name;
	int type;
	const char *default_value;
	const char *help;
	const char *const *choices;
	unsigned flags;
	double min, max;
};

struct abi2_pass_info {
	const char *name;
	const char *summary;
	const struct abi2_option_spec *options;
	int (*run)(qopt_ctx *ctx, qir_model *m, int *changed);
	unsigned flags;
};

struct abi2_plugin_info {
	uint32_t abi_major, abi_minor, info_size, pass_size, option_size;
	const char *name;
	const char *version;
	const struct abi2_pass_info *passes;
};

/* ABI 2: 0 or -1. */
static int run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	(void)ctx;
	(void)m;
	(void)changed;
	return -1;
}

static const struct abi2_pass_info passes[] = {
	{ "t-abi2", "from the ABI 2 releases", NULL, run, 0 },
	{ 0 }
};

static const struct abi2_plugin_info info = {
	2, 4, sizeof(struct abi2_plugin_info), sizeof(struct abi2_pass_info),
	sizeof(struct abi2_option_spec), "test-abi2", "1", passes
};

__attribute__((visibility("default"))) const void *qopt_plugin_entry(void);
const void *qopt_plugin_entry(void)
{
	return &info;
}
