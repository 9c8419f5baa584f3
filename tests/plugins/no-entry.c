/* tests/plugins/no-entry.c - a shared object without the entry symbol. */
#include <qopt/qopt.h>

QOPT_EXPORT int qopt_plugin_entry_misspelled(void);

QOPT_EXPORT int qopt_plugin_entry_misspelled(void)
{
	return 0;
}
