/* job.h - the command line's side of a distributed run (docs/distributed.md): joining the job when
 * an MPI launcher started fsmix (or --mpi asks), the agreements between the steps of a command so
 * that a failure anywhere ends every rank with the same status and one message, and the
 * per-rank adjustments of the options. Only rank 0 writes to stdout and stderr: the other ranks'
 * descriptors 1 and 2 go to /dev/null once they have joined, and their failures reach the user
 * through the agreements, as "rank R on HOST: message" printed by rank 0. */
#ifndef FSMIX_CLI_JOB_H
#define FSMIX_CLI_JOB_H

#include <stdbool.h>
#include <stddef.h>

#include "dist.h"
#include "distrun.h"
#include "plan.h"

struct job {
	struct dist d;
	struct distrun run;
	int locks[64]; /* rank 0: the locations' locks (tree_lock_location), 0: none */
	size_t n_locks;
};

/* job_start - join the job when launched by an MPI launcher or when argv has --mpi (before the
 * options are parsed: MPI_Init may take its own arguments out of argv). Returns -1 to go on, or an
 * exit status (3: --mpi without MPI support or MPI_Init failed). */
int job_start(struct job *j, int *argc, char ***argv);

/* job_on - a distributed run (MPI_Init done). */
bool job_on(const struct job *j);

/* job_rank - this process's rank (0 for a single process). */
int job_rank(const struct job *j);

/* job_agree - every rank brings its status (exit status, 0 ok) and message; returns the job's
 * status on every rank. Rank 0 prints "fsmix: rank R on HOST: message<suffix>" when the failure
 * is another rank's (its own it has printed). A single process gets its own status back. */
int job_agree(struct job *j, int status, const char *msg, const char *suffix);

/* job_lock_locations - rank 0 takes every location's lock for the whole command (the other ranks
 * take none: tree/instance.h); 0, or an exit status with the message in err. */
int job_lock_locations(struct job *j, const struct plan *pl, char *err, size_t errlen);

/* job_end - drop the locks, leave the job (MPI_Finalize). */
void job_end(struct job *j);

#endif
