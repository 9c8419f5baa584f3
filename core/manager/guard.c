/*
 * core/manager/guard.c - what happens when the process ends in the middle.
 *
 * SIGINT, SIGTERM and SIGHUP remove the temporary files being written
 * (a save can be gigabytes) and then end the process as the signal
 * would have. A pass that crashes (SIGSEGV, SIGBUS, SIGILL, SIGFPE,
 * SIGABRT) is named on stderr before the signal is re-raised; one that
 * calls exit() is named by an atexit handler, which ends the process
 * with status 1 (no output was written). The handlers only write,
 * unlink, kill, wait and re-raise: nothing else is safe there.
 *
 * A SIGBUS in a file libqopt mapped (an input truncated under us, an
 * output page a full btrfs refused) is no crash: qir_map_fault puts a
 * zero page there, the access completes, and the save fails naming the
 * file. A child that must not outlive qopt (bisect's test command, with
 * its process group; calibrate's node script) is ended on a stop, and
 * the files it was given and their folder removed (or a whole flat
 * folder emptied: qopt plan's), before the signal is re-raised. The
 * qopt command asks for all this through core/manager/session-api.h
 * (qm_guard_*).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "manager/sys.h"
#include <qopt/file.h>

static const char *volatile running_pass;
static volatile sig_atomic_t guarded;

/* What a stop ends and removes besides the temporary outputs; written
 * with the stop signals blocked. */
#define STOP_FILES 10
static volatile pid_t stop_child;
static volatile sig_atomic_t stop_as_group;
static char stop_files[STOP_FILES][4200], stop_dir[4096];
/* A folder a stop empties (its files, not sub-folders) and removes:
 * qopt plan's, which holds a file per candidate model. */
static char stop_folder[4096];

void pm_guard_enter(const char *pass)
{
	running_pass = pass;
}

void pm_guard_leave(void)
{
	running_pass = NULL;
}

static void put(const char *s)
{
	size_t n = strlen(s);

	while (n) {
		ssize_t w = write(2, s, n);

		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static void put_int(int v)
{
	char buf[16], *p = buf + sizeof(buf) - 1;

	*p = 0;
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v && p > buf);
	put(p);
}

static const char *sig_name(int sig)
{
	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGILL: return "SIGILL";
	case SIGFPE: return "SIGFPE";
	case SIGABRT: return "SIGABRT";
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	case SIGHUP: return "SIGHUP";
	default: return "signal";
	}
}

static void reraise(int sig)
{
	signal(sig, SIG_DFL);
	raise(sig);
}

/* SIGTERM, then SIGKILL when the child is still there after a grace of
 * 5 s (a child deaf to SIGTERM, node spinning in ONNX Runtime, must not
 * hold the stop for ever); waitpid(WNOHANG) and nanosleep are
 * async-signal-safe. */
void pm_child_stop(pid_t pid, int group)
{
	struct timespec nap = { 0, 10000000 };
	pid_t target = group ? -pid : pid, r;
	int k;

	if (pid <= 0)
		return;
	kill(target, SIGTERM);
	for (k = 0; k < 500; k++) {
		r = waitpid(pid, NULL, WNOHANG);
		if (r == pid || (r < 0 && errno != EINTR))
			return;
		nanosleep(&nap, NULL);
	}
	kill(target, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* Every file of dir, then dir. getdents64 and unlinkat, not readdir
 * (which may allocate): only calls a handler may make. Removing while
 * reading may skip entries, so the folder is read again until a pass
 * removes nothing. */
static void empty_folder(const char *dir)
{
	char buf[4096];
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), again = 1;
	long n, off;

	for (int pass = 0; fd >= 0 && again && pass < 16; pass++) {
		again = 0;
		lseek(fd, 0, SEEK_SET);
		while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
			for (off = 0; off < n;) {
				/* struct linux_dirent64: ino, off, reclen,
				 * type, name */
				unsigned short len;
				const char *name = buf + off + 19;

				memcpy(&len, buf + off + 16, sizeof(len));
				if (strcmp(name, ".") && strcmp(name, "..") &&
				    unlinkat(fd, name, 0) == 0)
					again = 1;
				off += len;
			}
	}
	if (fd >= 0)
		close(fd);
	rmdir(dir);
}

static void on_stop(int sig)
{
	pm_child_stop(stop_child, stop_as_group);
	for (size_t i = 0; i < STOP_FILES; i++)
		if (stop_files[i][0])
			unlink(stop_files[i]);
	if (stop_dir[0])
		rmdir(stop_dir);
	if (stop_folder[0])
		empty_folder(stop_folder);
	qir_outfile_remove_all();
	reraise(sig);
}

static void hold_stops(sigset_t *old)
{
	sigset_t stops;

	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigaddset(&stops, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stops, old);
}

void qm_guard_child(pid_t pid, int group)
{
	sigset_t old;

	hold_stops(&old);
	stop_child = pid;
	stop_as_group = group;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* A path that does not fit is not removed (never a truncated one,
 * which could name another file). */
static int keep_path(char *buf, size_t size, const char *p)
{
	if (strlen(p) >= size) {
		buf[0] = 0;
		return -1;
	}
	snprintf(buf, size, "%s", p);
	return 0;
}

int qm_guard_files(const char *const *paths, size_t n, const char *dir)
{
	sigset_t old;
	int rc = 0;

	if (n > STOP_FILES)
		return -1;
	hold_stops(&old);
	for (size_t i = 0; i < STOP_FILES; i++)
		rc |= keep_path(stop_files[i], sizeof(stop_files[i]),
				i < n ? paths[i] : "");
	rc |= keep_path(stop_dir, sizeof(stop_dir), dir ? dir : "");
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

int qm_guard_folder(const char *dir)
{
	sigset_t old;
	int rc;

	hold_stops(&old);
	rc = keep_path(stop_folder, sizeof(stop_folder), dir ? dir : "");
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

static void on_fatal(int sig)
{
	const char *pass = running_pass;

	if (pass) {
		put("qopt: error: pass '");
		put(pass);
		put("' crashed (");
		put(sig_name(sig));
		put(", signal ");
		put_int(sig);
		put("); no output written\n");
	} else {
		put("qopt: error: crashed (");
		put(sig_name(sig));
		put("); no output written\n");
	}
	qir_outfile_remove_all();
	reraise(sig);
}

/* A fault in a mapping libqopt registered is the file's fault: the
 * page is replaced and the access resumes (see the top). */
static void on_bus(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (si && si->si_code == BUS_ADRERR && qir_map_fault(si->si_addr))
		return;
	on_fatal(sig);
}

static void on_exit_call(void)
{
	const char *pass = running_pass;

	if (!pass)
		return;
	put("qopt: error: pass '");
	put(pass);
	put("' ended the process (it called exit); no output written\n");
	qir_outfile_remove_all();
	_exit(1);
}

static void install_stops(void)
{
	static const int stops[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sigfillset(&sa.sa_mask);
	sa.sa_handler = on_stop;
	for (i = 0; i < sizeof(stops) / sizeof(*stops); i++) {
		struct sigaction old;

		/* A signal ignored by whoever started us stays ignored
		 * (nohup). */
		if (sigaction(stops[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		sigaction(stops[i], &sa, NULL);
	}
}

static int install_fatal(void)
{
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
	/* A stack overflow leaves no stack to run the handler on. */
	static char altstack[64 * 1024];
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	struct sigaction sa;
	size_t i;

	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof(sa));
	sigfillset(&sa.sa_mask);
	sa.sa_handler = on_fatal;
	sa.sa_flags = SA_ONSTACK;
	for (i = 0; i < sizeof(fatal) / sizeof(*fatal); i++)
		sigaction(fatal[i], &sa, NULL);
	sa.sa_flags = SA_ONSTACK | SA_SIGINFO;
	sa.sa_sigaction = on_bus;
	sigaction(SIGBUS, &sa, NULL);
	return atexit(on_exit_call);
}

/* The stop handlers, and with fatal_too the crash and exit() ones;
 * each set once. */
int qm_guard_install(int fatal_too)
{
	static volatile sig_atomic_t stops_set;

	if (!stops_set) {
		stops_set = 1;
		install_stops();
	}
	if (!fatal_too || guarded)
		return 0;
	guarded = 1;
	return install_fatal();
}
