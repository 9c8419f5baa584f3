/*
 * core/manager/guard.c - what happens when the process ends in the middle.
 *
 * SIGINT, SIGTERM and SIGHUP remove the temporary files being written
 * (a save can be gigabytes) and then end the process as the signal
 * would have. A pass that crashes (SIGSEGV, SIGBUS, SIGILL, SIGFPE,
 * SIGABRT) is named on stderr before the signal is re-raised; one that
 * calls exit() is named by an atexit handler, which ends the process
 * with status 1 (no output was written). The handlers only write,
 * unlink and re-raise: nothing else is safe there.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "manager/core.h"
#include <qopt/file.h>

static const char *volatile running_pass;
static volatile sig_atomic_t guarded;

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

static void on_stop(int sig)
{
	qir_outfile_remove_all();
	reraise(sig);
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

int pm_guard_install(void)
{
	static const int stops[] = { SIGINT, SIGTERM, SIGHUP };
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
	/* A stack overflow leaves no stack to run the handler on. */
	static char altstack[64 * 1024];
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	struct sigaction sa;
	size_t i;

	if (guarded)
		return 0;
	guarded = 1;
	sigaltstack(&ss, NULL);
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
	sa.sa_handler = on_fatal;
	sa.sa_flags = SA_ONSTACK;
	for (i = 0; i < sizeof(fatal) / sizeof(*fatal); i++)
		sigaction(fatal[i], &sa, NULL);
	return atexit(on_exit_call);
}
