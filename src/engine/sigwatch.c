/* sigwatch.c - the signal watcher: the thread that turns SIGINT, SIGTERM and SIGHUP into a stop of
 * the run (see the comment below for how signals are blocked and read). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "engine.h"
#include "engine_int.h"
#include "stopsig.h"
#include "threads.h"

/* ---- signals ----
 * SIGINT, SIGTERM and SIGHUP (stopsig.h) stop a run; they are blocked in every thread (the mask is
 * set before any thread is made, and threads inherit it) and one watcher thread reads them from a
 * signalfd. Only the run itself ends the watcher, through an eventfd of its own: no signal an
 * outside process can send is taken for "the run is over". SIGUSR1 (which once ended the
 * watcher) is read and ignored, so a stray one neither kills a run nor ends the watcher; outside
 * a run, stopsig_ignore_usr1's handler ignores it with the same message. */

static const int ignored_signals[] = {SIGUSR1};

static void *sigwatch_main(void *arg)
{
	struct sigwatch *sw = arg;
	struct pollfd p[2] = {{.fd = sw->sigfd, .events = POLLIN},
	                      {.fd = sw->quitfd, .events = POLLIN}};
	for (;;) {
		if (poll(p, 2, -1) < 0)
			continue; /* EINTR (SIGSTOP/SIGCONT) */
		if (p[1].revents)
			return NULL;
		struct signalfd_siginfo si;
		if (!(p[0].revents & POLLIN) || read(sw->sigfd, &si, sizeof(si)) != sizeof(si))
			continue;
		if (si.ssi_signo == SIGUSR1) { /* the line every command prints (stopsig.h) */
			char msg[STOPSIG_USR1_MSG_MAX];
			size_t n = stopsig_usr1_message(msg, si.ssi_pid);
			fprintf(sw->e->opts->log, "%.*s", (int)n, msg);
			continue;
		}
		/* The first signal is kept even when the run is already stopping for another
		 * reason (aging's end clears that reason and must still see it). */
		int none = 0;
		bool first =
		    atomic_compare_exchange_strong(&sw->e->signal_seen, &none, (int)si.ssi_signo);
		stopsig_note(); /* after: whoever sees the count also sees the signal (--cleanup) */
		engine_stop(sw->e, STOP_SIGNAL);
		if (first) /* after the stop: a test may wait for this line */
			fprintf(sw->e->opts->log, "fsmix: SIG%s received: stopping\n",
			        sigabbrev_np((int)si.ssi_signo));
	}
}

/* The signals the watcher reads: the stop signals (stopsig.h) and the ignored ones. */
static void stop_signal_set(sigset_t *set)
{
	sigemptyset(set);
	stopsig_fill(set);
	for (size_t i = 0; i < ARRAY_SIZE(ignored_signals); i++)
		sigaddset(set, ignored_signals[i]);
}

/* Blocks the stop signals in the calling thread and so in every thread it makes afterwards
 * (first thing in a run: from then on a signal waits for the watcher). They stay blocked:
 * between the runs of a sweep a signal waits for the next run's watcher. */
void sigwatch_block_signals(void)
{
	sigset_t set;
	stop_signal_set(&set);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

/* Starts the watcher of the blocked stop signals; a signal that came while they were blocked
 * is read at once. */
int sigwatch_start(struct sigwatch *sw, struct engine *e, char *err, size_t errlen)
{
	sigset_t set;
	stop_signal_set(&set);
	sw->e = e;
	sw->sigfd = signalfd(-1, &set, SFD_CLOEXEC);
	sw->quitfd = eventfd(0, EFD_CLOEXEC);
	int rc = sw->sigfd < 0 || sw->quitfd < 0 ? errno : 0;
	if (!rc && (rc = pthread_create(&sw->thread, NULL, sigwatch_main, sw)) != 0) {
		char limit[512];
		thread_limit_describe(limit, sizeof(limit));
		snprintf(err, errlen, "cannot start the signal watcher thread: %s; %s",
		         strerror(rc), limit);
	} else if (rc) {
		snprintf(err, errlen, "cannot watch for signals: %s", strerror(rc));
	}
	if (rc) {
		if (sw->sigfd >= 0)
			close(sw->sigfd);
		if (sw->quitfd >= 0)
			close(sw->quitfd);
		return -1;
	}
	return 0;
}

void sigwatch_stop(struct sigwatch *sw)
{
	uint64_t one = 1;
	while (write(sw->quitfd, &one, sizeof(one)) < 0 && errno == EINTR)
		;
	pthread_join(sw->thread, NULL);
	close(sw->sigfd);
	close(sw->quitfd);
}
