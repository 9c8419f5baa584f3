/*
 * ir/file/stops.c - a stop signal that arrives while a file is being
 * created or two files are being renamed waits until the step is done:
 * its handler then sees a consistent state (every temporary file
 * listed, or the model and its data file from one run).
 */
#include <pthread.h>
#include "file/stops.h"

void fio_stops_hold(sigset_t *old)
{
	sigset_t stops;

	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigaddset(&stops, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stops, old);
}

void fio_stops_release(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}
