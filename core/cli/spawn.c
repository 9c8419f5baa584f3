/*
 * core/cli/spawn.c - running a child program with a bounded wait
 * (spawn.h).
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "cli/cli.h"
#include "cli/ort-child.h"
#include "cli/spawn.h"

static void child(const char *who, const char *const *argv, const char *log,
		  const char *tmp, int group)
{
	if (group)
		setpgid(0, 0);
	if (log) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(127);
		close(fd);
	}
	if (tmp && setenv("TMPDIR", tmp, 1) < 0)
		_exit(127);
	execvp(argv[0], (char *const *)argv);
	fprintf(stderr, "%s: error: cannot run %s: %s\n", who, argv[0],
		strerror(errno));
	_exit(127);
}

int cli_spawn(qm_session *s, const char *who, const char *const *argv,
	      const char *log, const char *tmp, long timeout)
{
	int group = timeout > 0;
	pid_t pid;
	int st = 0, k;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		qm_say(s, QOPT_LOG_ERROR, "%s: error: fork for %s: %s\n", who,
		       argv[0], strerror(errno));
		return -1;
	}
	if (!pid)
		child(who, argv, log, tmp, group);
	if (group)
		setpgid(pid, pid);
	qm_guard_child(pid, group);
	k = cli_child_wait(pid, group, timeout, &st);
	qm_guard_child(0, group);
	if (k)
		return k > 0 ? -2 : -1;
	if (WIFSIGNALED(st)) {
		/* ^C: qopt ends as the child did, by its guard's handler
		 * (the temporary folders removed), which re-raises */
		if (WTERMSIG(st) == SIGINT)
			raise(SIGINT);
		return 128 + WTERMSIG(st);
	}
	return WEXITSTATUS(st);
}

int cli_self_path(char *buf, size_t n)
{
	ssize_t k = readlink("/proc/self/exe", buf, n - 1);

	if (k <= 0)
		return -1;
	buf[k] = 0;
	return 0;
}

char *cli_launcher_path(const char *env, const char *name)
{
	const char *set = getenv(env);
	char exe[4096], *slash, *path = NULL;

	if (set && *set)
		return strdup(set);
	if (cli_self_path(exe, sizeof(exe) - strlen(name) - 1) == 0 &&
	    (slash = strrchr(exe, '/'))) {
		strcpy(slash + 1, name);
		if (access(exe, R_OK) == 0)
			return strdup(exe);
	}
	/* an uninstalled qopt: the build tree's copy */
	if (asprintf(&path, "%s/tools/%s",
		     cli_build_tree() ? cli_build_tree() : ".", name) < 0)
		return NULL;
	return path;
}
