/*
 * ir/file/stops.h - holding stop signals back around steps a stop must
 * not split (ir/file/stops.c).
 */
#ifndef QOPT_IR_FILE_STOPS_H
#define QOPT_IR_FILE_STOPS_H

#include <signal.h>

/* Holds SIGINT, SIGTERM and SIGHUP back in the calling thread (old
 * receives the previous mask) until fio_stops_release: around steps
 * such as committing a model and its data file. */
void fio_stops_hold(sigset_t *old);
void fio_stops_release(const sigset_t *old);

#endif /* QOPT_IR_FILE_STOPS_H */
