/* jobpolicy.h - what one process of a distributed run (MPI) does differently from a single
 * process, decided here and nowhere else (docs/distributed.md):
 *   - outputs: --lat-log FILE is per rank (rank R writes FILE.rR; "-" is refused), only rank 0
 *     writes the job's documents (--json, --csv, --plot), and --interval, --crash-after and
 *     --durability-log are refused;
 *   - locks: rank 0 takes every location's lock for the whole command, before any rank
 *     creates anything; the other ranks take none (tree/instance.h);
 *   - trees and ranks: rank R's trees are fsmix.fsN.rR, which the engine learns from the
 *     hooks distrun_init fills (engine_hooks: rank, ranks, takes_locks).
 * Nothing here is process-wide state: the rank is the struct dist passed in. */
#ifndef FSMIX_JOBPOLICY_H
#define FSMIX_JOBPOLICY_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "compiler.h"
#include "dist.h"
#include "failure.h"
#include "plan.h"
#include "tree.h"

/* The command line's outputs as a rank of a job writes them (jobpolicy_outputs). */
struct jobpolicy_outputs {
	bool run;                   /* the run command (a sweep's --lat-log is refused elsewhere) */
	double interval_s;          /* --interval, 0: none */
	bool crash_after;           /* --crash-after given */
	const char *durability;     /* --durability-log, NULL: none */
	const char *lat_log;        /* --lat-log, NULL: none; in: as given, out: this rank's */
	const char *json, *csv;     /* NULL: none; out: NULL on every rank but 0 */
	const char *plot;           /* NULL: none; out: NULL on every rank but 0 */
	char lat_log_buf[PATH_MAX]; /* this rank's FILE.rR (lat_log points here) */
};

/* jobpolicy_outputs - o's outputs for rank d->rank of the job (nothing changes without a job,
 * d->on false). FAIL_NONE, or FAIL_INPUT with the message in err (--interval,
 * --crash-after, --durability-log, --lat-log -, a FILE.rR too long). */
MUST_CHECK enum failure jobpolicy_outputs(const struct dist *d, struct jobpolicy_outputs *o,
                                          char *err, size_t errlen);

/* The locations' locks rank 0 holds for the job, each location once. */
struct jobpolicy_locks {
	int h[TREE_MAX_LOCKS];
	size_t n;
};

/* jobpolicy_lock - on rank 0 of a job, take every location's lock of pl (tree_lock_location),
 * each location once (a location of several filesystems is one handle); nothing on the other
 * ranks or without a job. More distinct locations than TREE_MAX_LOCKS is an error, never a
 * location left unlocked. FAIL_NONE, FAIL_INPUT (another process holds one, -EBUSY, or a bad
 * location) or FAIL_IO (more than TREE_MAX_LOCKS, other errors), with the message in err;
 * the locks taken so far stay in l for jobpolicy_unlock. */
MUST_CHECK enum failure jobpolicy_lock(const struct dist *d, struct jobpolicy_locks *l,
                                       const struct plan *pl, char *err, size_t errlen);

/* jobpolicy_unlock - drop every lock in l. */
void jobpolicy_unlock(struct jobpolicy_locks *l);

#endif
