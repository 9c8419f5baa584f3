/* tests/plugins/newer-field.c - a plugin built against a later minor
 * whose pass entries carry a field this ABI lacks, and set it: what it
 * uses is that minor, so the loader must refuse it (newer-minor.c, the
 * same minor using nothing new, loads). */
#include <stdint.h>
#include <qopt/qopt.h>

static int run(qopt_ctx *ctx, qir_model *m, int *changed)
{
	(void)ctx;
	(void)m;
	*changed = 0;
	return 0;
}

/* A pass entry as a later minor may have it: this ABI's, then a field
 * appended at the end. */
struct later_pass {
	qopt_pass_info info;
	uint64_t later_field;
};

static const struct later_pass passes[] = {
	{ { .name = "t-newer-field", .summary = "sets a later minor's field",
	    .options = NULL, .run = run, .flags = 0 }, 1 },
	{ { 0 }, 0 }
};

static const qopt_plugin_info info = {
	QOPT_ABI_MAJOR, QOPT_ABI_MINOR + 1, sizeof(qopt_plugin_info),
	sizeof(struct later_pass), sizeof(qopt_option_spec),
	"test-newer-field", "1", (const qopt_pass_info *)(const void *)passes,
	sizeof(qopt_pipeline_info), sizeof(qopt_pipeline_step), NULL
};

QOPT_EXPORT const qopt_plugin_info *qopt_plugin_entry(void)
{
	return &info;
}
