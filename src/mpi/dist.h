/* dist.h - the processes of a distributed run (MPI ranks over one or more hosts): start and end,
 * who is who, and the few collectives the run needs, each of which every rank reaches.
 *
 * One binary: fsmix calls MPI_Init only when an MPI launcher started it (dist_launched: the
 * launcher's environment) or --mpi asks; otherwise it is the single process it always was and
 * nothing here touches MPI. A build without MPI (cmake -DFSMIX_MPI=OFF, or AUTO without an MPI
 * found) has the same functions; dist_init then fails with FAIL_UNSUPPORTED.
 *
 * No hang on a failed rank: a rank that fails never leaves the job's sequence of collectives.
 * It takes part in the next agreement (dist_agree) with its failure and message, and every rank
 * then learns "rank R on HOST: message" and ends with the same failure. A rank that dies (a
 * crash, SIGKILL) is the launcher's business: mpirun aborts the whole job when a rank exits
 * without MPI_Finalize. A rank that cannot continue calls dist_abort (MPI_Abort).
 *
 * Only the thread that called dist_init calls these functions (MPI_THREAD_FUNNELED); workers
 * never do. The ints and doubles sent are the same type on every rank: the job's ranks run the
 * same fsmix build on the same architecture (docs/distributed.md). */
#ifndef FSMIX_DIST_H
#define FSMIX_DIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler.h"
#include "failure.h"

#define DIST_HOST_MAX 256

struct dist {
	bool on;                  /* MPI_Init done: one rank of a job (also a job of size 1) */
	int rank, size;           /* 0 and 1 for a single process */
	char host[DIST_HOST_MAX]; /* gethostname */
	int host_index;      /* this rank's host among the job's distinct hosts, by first rank */
	int n_hosts;         /* distinct hosts of the job */
	int host_first_rank; /* the lowest rank on this rank's host (it reads device counters) */
	void *watch;         /* the stop watch's state (dist_watch_start), NULL: none */
	char (*hosts)[DIST_HOST_MAX]; /* [n_hosts]: the job's hosts in order of their lowest rank */
};

/* dist_launched - the environment says an MPI launcher started this process (OpenMPI's
 * OMPI_COMM_WORLD_SIZE, PMIx's PMIX_RANK, PMI's PMI_RANK / PMI_SIZE as MPICH's Hydra and Slurm
 * set them). */
bool dist_launched(void);

/* dist_single - a single process: rank 0 of 1, this host; nothing to start. */
void dist_single(struct dist *d);

/* dist_init - join the job (MPI_Init_thread, FUNNELED), learn rank, size and hosts. Blocks the
 * stop signals (SIGINT, SIGTERM, SIGHUP) and SIGUSR1 first, so that the threads MPI makes
 * inherit a mask that leaves them to fsmix's watcher. FAIL_NONE, or FAIL_UNSUPPORTED with the
 * reason in err (built without MPI, MPI_Init failed, no thread support). */
MUST_CHECK enum failure dist_init(struct dist *d, int *argc, char ***argv, char *err,
                                  size_t errlen);

/* dist_finalize - leave the job (MPI_Finalize); nothing for a single process. */
void dist_finalize(struct dist *d);

/* dist_abort - end every rank of the job at once with exit status `status` (MPI_Abort), for a
 * rank that cannot reach the next agreement; exit(status) for a single process. */
_Noreturn void dist_abort(const struct dist *d, int status);

/* dist_agree - every rank brings its own outcome (FAIL_NONE, or a failure with its message) and
 * all learn the job's: FAIL_NONE when every rank succeeded, else the failure of the lowest
 * failing rank, with "rank R on HOST: message" (plus "; N ranks failed" when several did) in
 * err on every rank. A single process gets its own failure and message back. */
MUST_CHECK enum failure dist_agree(const struct dist *d, enum failure mine, const char *msg,
                                   char *err, size_t errlen);

/* dist_gather - rank 0 receives every rank's buffer: *all (malloc'd, the buffers one after the
 * other in rank order) and lens[size] (malloc'd); the other ranks get NULLs. Each buffer is at
 * most INT_MAX bytes. 0, or -ENOMEM / -E2BIG on rank 0 (every rank still took part). */
MUST_CHECK int dist_gather(const struct dist *d, const void *buf, size_t len, char **all,
                           size_t **lens);

/* dist_differ - every rank brings a description of what it is about to run (text, len: its
 * resolved plan and options) and learns whether it differs from rank 0's: each compares the 64-bit
 * FNV-1a hash of its text with rank 0's (broadcast), and only the ranks whose hash differs send
 * their text to rank 0 (a gather of nothing when they all agree). *differs on every rank; on
 * rank 0 *all and lens[size] as dist_gather's (lens[r] > 0: rank r differs, its text is in *all
 * after those of the lower ranks; rank 0's own length is 0). A single process never differs.
 * 0, or -ENOMEM / -E2BIG on rank 0 (every rank still took part). */
MUST_CHECK int dist_differ(const struct dist *d, const char *text, size_t len, bool *differs,
                           char **all, size_t **lens);

/* dist_min_double - the smallest value over the ranks, on every rank. */
double dist_min_double(const struct dist *d, double v);

/* The watch of a run phase, point to point messages on one channel, drained at the end so none
 * is left in flight:
 *   - a stop: a rank that stops early on an error or a signal tells every other rank, which stop
 *     too, so the job ends within a poll interval instead of at its time limit;
 *   - an end: a rank whose run phase ended normally (its counted groups done, its time over)
 *     tells every other rank, unless it heard another's first: they learn when the first rank
 *     finished (the stonewall snapshot, distrun.h).
 *   dist_watch_start  listen (dist_watch_poll starts it when needed: a message sent before is
 *                     kept by MPI until it is received);
 *   dist_watch_poll   on the main thread while it waits, never blocking: true once another
 *                     rank said stop; *ended (when not NULL) true once another rank's end was
 *                     heard;
 *   dist_watch_end    after the run phase (every rank): tell = this rank stopped on its own
 *                     error or signal (a stop, unless it heard one), else an end (unless it
 *                     heard a stop or an end); then every rank learns how many messages were
 *                     sent to it and receives them all. */
void dist_watch_start(struct dist *d);
bool dist_watch_poll(struct dist *d, bool *ended);
void dist_watch_end(struct dist *d, bool tell);

/* dist_bcast - rank 0's len bytes at buf to every rank. */
void dist_bcast(const struct dist *d, void *buf, size_t len);

#endif
