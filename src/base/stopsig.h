/* stopsig.h - the signals that stop fsmix (SIGINT, SIGTERM, SIGHUP) and a process-wide count
 * of those received, for code that waits outside the engine's run (an output file waiting for
 * a FIFO's reader) and must give up when the user presses Ctrl-C.
 *
 * The stop signals are blocked in every thread once a run starts (sigwatch.c); while a run's
 * watcher thread reads them it calls stopsig_note() for each. Where no watcher runs (after
 * the last run of a sweep), a signal stays pending, and stopsig_arrived() sees that too. */
#ifndef FSMIX_STOPSIG_H
#define FSMIX_STOPSIG_H

#include <signal.h>
#include <stdbool.h>

/* stopsig_fill - add the stop signals to set. */
void stopsig_fill(sigset_t *set);

/* stopsig_block - block the stop signals in the calling thread (and the threads it makes):
 * from then on one that comes is pending, for stopsig_arrived, instead of killing fsmix. The
 * commands that wait for a helper (plot, compare) call it first, so that a Ctrl-C stops the
 * helper, removes their temporary files and exits 130. */
void stopsig_block(void);

/* stopsig_note - count one stop signal (called by the watcher for each one it reads). */
void stopsig_note(void);

/* stopsig_count - the number counted so far: a snapshot for stopsig_arrived. */
unsigned stopsig_count(void);

/* stopsig_arrived - true when a stop signal was counted after `snapshot` was taken, or one is
 * pending (blocked, with nobody reading it). */
bool stopsig_arrived(unsigned snapshot);

/* SIGUSR1 is no stop signal: every command ignores it and says so on standard error, with the
 * sender's pid. A run's watcher reads it (blocked, like the stop signals); elsewhere the handler
 * stopsig_ignore_usr1 installs does (SA_RESTART; the callout and gnuplot get the default action
 * back when they exec). */
#define STOPSIG_USR1_MSG_MAX 128

/* stopsig_usr1_message - the line both print, into buf (STOPSIG_USR1_MSG_MAX bytes);
 * async-signal-safe. Returns its length. */
size_t stopsig_usr1_message(char *buf, unsigned long pid);

/* stopsig_ignore_usr1 - install the handler (main(), before anything else). */
void stopsig_ignore_usr1(void);

#endif
