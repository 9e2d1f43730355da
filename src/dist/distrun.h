/* distrun.h - one engine run as one rank of a job (engine_hooks, engine.h): the ranks agree
 * before the measured phase, release their workers together, agree on the outcome, and rank 0
 * merges every rank's statistics into its own engine and describes the job (jobsum.h), so that
 * its reports are the job's. Sweeps and repeats run one engine per point: the same hooks serve
 * every point, in step on every rank.
 *
 * Statuses are exit statuses (exitcode.h) as engine_run returns them today; the job's status is
 * the lowest failing rank's, on every rank, with "rank R on HOST: message". */
#ifndef FSMIX_DISTRUN_H
#define FSMIX_DISTRUN_H

#include "dist.h"
#include "engine.h"
#include "failure.h"
#include "jobsum.h"

struct distrun {
	struct dist *d;
	struct engine_hooks hooks; /* for engine_opts.hooks; ctx is this struct */
	struct jobsum job;         /* the last run's, on rank 0 */
	char failure[MSG_MAX];     /* the job's message, kept for engine.failure (reports) */
	uint64_t ended_ns;         /* CLOCK_MONOTONIC when the last rank's run phase had ended (its
	                            * stop watch drained), 0: no run phase yet */
};

/* distrun_init - hooks for rank d->rank of the job d. */
void distrun_init(struct distrun *r, struct dist *d);

/* distrun_since_end - seconds from the end of the last rank's run phase (ended_ns) to now: after
 * engine_run, how long the merge and the reports took; negative when no run phase ended. */
double distrun_since_end(const struct distrun *r);

/* distrun_free - release the last run's job summary. */
void distrun_free(struct distrun *r);

/* distrun_failure_of, distrun_status_of - an exit status (exitcode.h) as an enum failure and
 * back: 0 NONE, 1 IO, 2 INPUT, 3 UNSUPPORTED, 130 INTERRUPTED (any other status is IO). */
enum failure distrun_failure_of(int status);
int distrun_status_of(enum failure f);

#endif
