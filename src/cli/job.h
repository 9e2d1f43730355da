/* job.h - the command line's side of a distributed run (docs/distributed.md): joining the job when
 * an MPI launcher started fsmix (or --mpi asks), the agreements between the steps of a command so
 * that a failure anywhere ends every rank with the same status and one message, and the
 * per-rank adjustments of the options. Only rank 0 writes to stdout and stderr: the other ranks'
 * descriptors 1 and 2 go to /dev/null once they have joined, and their failures reach the user
 * through the agreements, as "rank R on HOST: message" printed by rank 0.
 *
 * The process has one job (a single process: none); every function is harmless without one:
 * job_agree and job_locations then give back their own outcome. */
#ifndef FSMIX_CLI_JOB_H
#define FSMIX_CLI_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli.h"
#include "diag.h"
#include "engine.h"
#include "failure.h"
#include "plan.h"

/* job_start - join the job when launched by an MPI launcher or when argv has --mpi (before the
 * options are parsed: MPI_Init may take its own arguments out of argv). FAIL_NONE (a job or a
 * single process), or FAIL_UNSUPPORTED with the message printed (--mpi or a launcher without
 * MPI support, MPI_Init failed). */
enum failure job_start(int *argc, char ***argv);

/* job_on - a distributed run (MPI_Init done); job_rank - this process's rank (0 alone). */
bool job_on(void);
int job_rank(void);

/* job_options - what differs per rank once argv is parsed (the options as given are kept first,
 * for job_parsed): --lat-log FILE becomes FILE.r<RANK>,
 * ranks other than 0 write no --json, --csv or --plot; --interval and --lat-log - are refused
 * (FAIL_INPUT with err, on every rank alike). */
enum failure job_options(struct cli *c, char *err, size_t errlen);

/* job_describe - the options of c that every rank must give alike, one "--NAME=VALUE" line each
 * (a flag's value "on"), to f: what job_parsed compares between the ranks, taken before the
 * per-rank changes of job_options. */
void job_describe(const struct cli *c, FILE *f);

/* job_plan_text - the text job_parsed compares between the ranks (malloc'd, *len bytes, NULL
 * when out of memory): c's resolved profile, then the options (job_describe); and
 * job_same_plan - that comparison (FAIL_NONE: every rank has the same). Without a job there is
 * no other rank: FAIL_NONE. For job_parsed and the tests. */
char *job_plan_text(const struct cli *c, size_t *len);
enum failure job_same_plan(const struct cli *c);

/* job_parsed - once every rank has parsed its command line (f: its outcome, err: its message,
 * printed by itself), before any command runs: the ranks agree that every one could, then that
 * all were given the same resolved profile (with the command line's overrides) and the same
 * options, compared by a hash of their text (dist_differ); what fsmix itself makes differ per
 * rank (the seed offset, --lat-log FILE.rR) is not in it. The job's outcome: FAIL_INPUT when a
 * rank could not parse its command line (rank 0 prints "rank R on HOST: message") or when a
 * rank differs (rank 0 names the ranks and the first differing key). Without a job: f. */
enum failure job_parsed(const struct cli *c, enum failure f, const char *err);

/* job_agree - every rank brings its outcome and message; returns the job's on every rank. Rank 0
 * prints "fsmix: rank R on HOST: message<suffix>" when the failure is another rank's (its own it
 * has printed). */
enum failure job_agree(enum failure mine, const char *msg, const char *suffix);

/* job_profile - after every rank loaded the profile (f its outcome, d its messages, printed by
 * rank 0 only): the job's outcome. */
enum failure job_profile(enum failure f, const struct diag *d);

/* job_locations - before anything is created: every location passes preflight (check) and
 * rank 0 holds every location's lock for the rest of the command; the job's outcome, the
 * messages printed. Without a job: preflight_locations alone (check) or nothing. */
enum failure job_locations(const struct plan *pl, bool check);

/* job_hooks - the engine's hooks of this rank (engine_opts.hooks), NULL without a job. */
const struct engine_hooks *job_hooks(void);

/* job_rank0_says - rank 0's value of a decision, on every rank (a sweep's --repeat until:
 * only rank 0 has the merged results); without a job, mine. */
bool job_rank0_says(bool mine);

/* job_said_report_time - rank 0, after a run: says how long after the last rank's end the merged
 * report was written (docs/distributed.md, bench_mpi.sh). */
void job_said_report_time(void);

/* job_end - drop the locks, leave the job (MPI_Finalize). */
void job_end(void);

#endif
