/*
 * tests/abi/loader.c - the plugin loader tells its failures apart by
 * code (qopt/status.h), one test plugin per class: what a caller
 * decides on. The messages users see are tests/abi/errors.sh's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <qopt/qopt.h>
#include "manager/registry.h"
#include "../lib/tap.h"

static char pl[4096];
/* The manager's state (messages, strictness) for every registry here. */
static pm_session *sess;

/* Loads plugin file NAME (in the test plugin folder) into a fresh
 * registry, after the files of `first`, if given; returns err.code. */
static qopt_status load(const char *name, const char *first, qir_error *err)
{
	struct pm_registry *r = pm_registry_new(sess);
	char path[4200];

	memset(err, 0, sizeof(*err));
	if (!r)
		return QOPT_ENOMEM;
	if (first) {
		snprintf(path, sizeof(path), "%s/%s", pl, first);
		if (pm_registry_load_file(r, path, err) < 0) {
			pm_registry_free(r);
			return -1;
		}
	}
	if (name[0] == '/')
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "%s/%s", pl, name);
	if (pm_registry_load_file(r, path, err) == 0 && err->code)
		err->code = -2;	/* success must leave no code */
	pm_registry_free(r);
	return err->code;
}

static void expect(const char *name, const char *first, qopt_status want,
		   const char *what)
{
	qir_error err;
	qopt_status got = load(name, first, &err);

	if (!tap_ok(got == want && (!want ||
				   QOPT_PRIMARY(got) == QOPT_PRIMARY(want)),
		    "%s: %s (%s)", name, what, qopt_status_str(want)))
		tap_diag("got %d (%s): %s", got, qopt_status_str(got), err.msg);
}

/* A file dlopen() cannot read at all, eagerly or lazily. */
static void not_elf(void)
{
	char path[] = "/tmp/qopt-abi-loader-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, "not ELF\n", 8) != 8) {
		tap_ok(0, "a temporary file");
		return;
	}
	close(fd);
	expect(path, NULL, QOPT_EPLUGIN_OPEN, "not a shared object");
	unlink(path);
}

/* A folder scan skips a shared object that is no plugin, by its code. */
static void folder_skip(void)
{
	char dir[] = "/tmp/qopt-abi-loader-XXXXXX", link[4200], target[4200];
	struct pm_registry *r = pm_registry_new(sess);
	qir_error err = { 0 };
	int rc = -1;

	if (r && mkdtemp(dir)) {
		snprintf(link, sizeof(link), "%s/helper.so", dir);
		snprintf(target, sizeof(target), "%s/no-entry.so", pl);
		if (symlink(target, link) == 0)
			rc = pm_registry_load_dir(r, dir, &err);
		unlink(link);
		rmdir(dir);
	}
	tap_ok(rc == 0 && r && r->npasses == 0,
	       "a folder's shared object without the entry symbol is skipped, not an error");
	pm_registry_free(r);
}

int main(void)
{
	const char *top = getenv("top_builddir");

	snprintf(pl, sizeof(pl), "%s/tests/plugins/.libs", top ? top : ".");
	sess = pm_session_new();
	if (!sess)
		return 1;
	expect("good.so", NULL, QOPT_OK, "loads");
	expect("no-entry.so", NULL, QOPT_EPLUGIN_NOENTRY, "not a plugin");
	expect("needs-symbol.so", NULL, QOPT_EPLUGIN_SYMBOL,
	       "needs a function no libqopt has");
	expect("needs-newer.so", NULL, QOPT_EPLUGIN_ABI,
	       "newer minor that needs a function: the version decides");
	expect("abi2.so", NULL, QOPT_EPLUGIN_ABI, "ABI 2.4 plugin, another major");
	expect("abi1.so", NULL, QOPT_EPLUGIN_ABI, "ABI 1 plugin");
	expect("bad-abi.so", NULL, QOPT_EPLUGIN_ABI, "a later major");
	expect("newer-minor.so", NULL, QOPT_OK,
	       "a newer minor that uses nothing new loads");
	expect("newer-field.so", NULL, QOPT_EPLUGIN_ABI,
	       "a newer minor that sets a field this ABI lacks");
	expect("malformed.so", NULL, QOPT_EPLUGIN_TABLE, "pass without run()");
	expect("big-entry.so", NULL, QOPT_EPLUGIN_TABLE,
	       "entries larger than the loader's");
	expect("bad-enum.so", NULL, QOPT_EPLUGIN_TABLE, "enum without words");
	expect("dup.so", "good.so", QOPT_EPLUGIN_DUPLICATE,
	       "a pass name already registered");
	expect("no-such-plugin.so", NULL, QOPT_ENOTFOUND, "missing file");
	expect("..", NULL, QOPT_EPLUGIN_OPEN, "a folder");
	not_elf();
	folder_skip();
	pm_session_free(sess);
	return tap_done();
}
