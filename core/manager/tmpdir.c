/*
 * core/manager/tmpdir.c - removing a private temporary folder: its
 * files (flat: qopt's folders hold no sub-folders; ONNX Runtime's node
 * binding leaves its own files there), then the folder. One copy for
 * calibration, the plan and autocast-tune (session-api.h).
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "manager/session-api.h"

void qm_remove_folder(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[8400];

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
	rmdir(dir);
}
