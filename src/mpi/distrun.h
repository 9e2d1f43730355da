/* distrun.h - one engine run as one rank of a job (engine_hooks, engine.h): the ranks agree
 * before the measured phase and start together, a rank that stops early tells the others, the
 * ranks agree on the outcome, and rank 0 merges every rank's results into its own
 * (results_merge) and describes the job (results.job, jobsum.h), so that its reports are the
 * job's. Sweeps and repeats run one engine per point: the same hooks serve every point, in step
 * on every rank. The job's failure is the lowest failing rank's, on every rank, with
 * "rank R on HOST: message". */
#ifndef FSMIX_DISTRUN_H
#define FSMIX_DISTRUN_H

#include <stdbool.h>
#include <stdint.h>

#include "dist.h"
#include "engine.h"
#include "failure.h"
#include "results.h"

/* This rank's stonewall snapshot of a run phase: what its workers had done when it learned that
 * the job's first rank had ended its run phase (an end message, polled every 100 ms), or, when
 * it ended before hearing one, its own final count at its own end. */
struct distrun_snap {
	bool taken; /* this run phase's snapshot is in ops, trans, at_s */
	bool heard; /* taken on hearing another rank's end (else: at its own end) */
	struct engine_count c;
};

struct distrun {
	struct dist *d;
	struct engine_hooks hooks; /* for engine_opts.hooks; ctx is this struct */
	struct distrun_snap snap;  /* the current point's; reset once its results are sent */
	uint64_t ended_ns;         /* CLOCK_MONOTONIC when the last rank's run phase had ended (its
	                            * stop watch drained), 0: no run phase yet */
};

/* distrun_init - hooks for rank d->rank of the job d. */
void distrun_init(struct distrun *r, struct dist *d);

/* distrun_since_end - seconds from the end of the last rank's run phase (ended_ns) to now: after
 * a run, how long the merge and the reports took; negative when no run phase ended. */
double distrun_since_end(const struct distrun *r);

/* distrun_free - nothing left to release today (kept for the command line's symmetry). */
void distrun_free(struct distrun *r);

#endif
