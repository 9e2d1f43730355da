/* engine.h - the run engine: file trees, workers and the timed run of a plan. It fills a
 * struct results (results.h) and calls no report: the caller prints or writes the results
 * between and after the phases.
 *
 * Phases (the command line calls them in this order, with its reports in between; engine_run
 * calls them all for callers without reports, such as sweeps):
 *   engine_open        the engine and the results made, the signal watcher started;
 *                      [the caller prints the configuration: results.fs[].start_util is set]
 *   engine_latlog_open --lat-log FILE opened (its header written) before anything is built
 *                      (engine_run checks --crash-after's place and moment first, crash.c);
 *   engine_setup       every filesystem's own tree (<location>/fsmix.fsN) reused through its
 *                      manifest or rebuilt by several builder threads, aged if asked; syncfs
 *                      each; [the caller prints "fs setup took"];
 *   engine_callout     the profile's callout;
 *   engine_job_ready   one process of an MPI job (opts.hooks): the barrier; every process
 *                      has set up, none has started (called on every path, also after a
 *                      failure, so no process waits for one that failed);
 *                      engine_measure then starts the workers at once
 *   engine_measure     every worker created (buffers, statistics, RNG: all allocated here),
 *                      started at one gate and released at once; the main thread sleeps until
 *                      `time` is over, the counted groups are done, a worker fails or a stop
 *                      signal comes; join; each worker's statistics merged into its group and
 *                      the total in the results (no lock or shared counter was touched while
 *                      running);
 *   engine_finish      the latency log committed, the run's kind of failure decided, the
 *                      results completed;
 *   engine_job_done    one process of an MPI job: the outcome agreed, rank 0's results
 *                      become the job's (every process's merged); [the caller prints them];
 *   engine_close       --cleanup; [the caller writes --json and --csv];
 *   engine_free        the signal watcher stopped (it ends the wait for a FIFO's reader while
 *                      the documents are written), everything freed. The results stay.
 * Each phase returns an enum failure (failure.h) and prints its problems (file, operation,
 * syscall, path, errno) on opts.log; after a failure the caller skips to engine_finish.
 * Workers share only read-only data (the plan, pick tables, trees) and the lock-free file pools
 * (pool.h). The measured interval is from the barrier to the last worker's end.
 *
 * struct engine is opaque here: its layout, the workers' and the filesystems' (atomics, locks,
 * cache lines) and the operations are engine_int.h's, which only src/engine sees. The layers
 * above read a running engine through functions (engine_progress, engine_is_stopping).
 */
#ifndef FSMIX_ENGINE_H
#define FSMIX_ENGINE_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "compiler.h"
#include "content.h"
#include "devstat.h"
#include "durlog.h"
#include "latlog.h"
#include "ops.h"
#include "pick.h"
#include "plan.h"
#include "pool.h"
#include "results.h"
#include "rng.h"
#include "popularity.h"
#include "stats.h"
#include "instance.h"
#include "threads.h"
#include "tree.h"

struct engine;

/* A run that is one process of several (MPI ranks, src/mpi): every process passes the same
 * points in the same order whatever fails where; called on the main thread.
 *   agree    the job's failure from each process's f (and message in err): the barrier before
 *            the run phase (engine_job_ready), and a sweep's check of its points;
 *   done     after engine_finish, when every process ran: they agree on the outcome, and rank
 *            0 merges every process's results into r (its reports are the job's);
 *   poll     every 100 ms while the run phase waits: true when another process stopped the
 *            job (an error or signal there): this one stops too (stop reason "error"); it may
 *            read e's progress (engine_progress);
 *   run_end  after the run phase's join (e's workers are done); failed: this process stopped
 *            on its own error or signal (the others are told).
 * And who this process is, which the MPI layer decides (distrun_init), passed explicitly: its
 * trees are fsmix.fsN.r<rank> (instance.h), and only rank 0 takes the locations' locks. */
struct engine_hooks {
	int rank, ranks;  /* this process's rank, and the job's ranks */
	bool takes_locks; /* this process takes the locations' locks (rank 0 for the job) */
	void *ctx;
	enum failure (*agree)(void *ctx, enum failure f, char *err, size_t errlen);
	enum failure (*done)(void *ctx, const struct plan *pl, struct results *r, enum failure f);
	bool (*poll)(void *ctx, const struct engine *e);
	void (*run_end)(void *ctx, const struct engine *e, bool failed);
};

/* What a caller sees of a run between its phases: the one phase sequence (engine_run) calls
 * each member that is not NULL, on the main thread. The run command prints its text report and
 * writes its documents from here (cli/run_report.c); a sweep runs without one; an MPI job's
 * own steps are engine_hooks, which the same sequence calls.
 *   on_plan     after engine_open succeeded, before anything is opened or built: the
 *               configuration (r->fs[].start_util is set);
 *   on_setup    after every filesystem was set up;
 *   on_results  after engine_finish and engine_job_done (a job's merged results on rank 0);
 *   on_closed   after engine_close (--cleanup), before engine_free: the signal watcher still
 *               runs, so a stop signal ends a wait for a FIFO's reader; returns f with the
 *               failures of what it did added (failure_first). */
struct engine_observer {
	void *ctx;
	void (*on_plan)(void *ctx, const struct plan *pl, const struct results *r);
	void (*on_setup)(void *ctx, const struct plan *pl, const struct results *r);
	void (*on_results)(void *ctx, const struct results *r);
	enum failure (*on_closed)(void *ctx, struct results *r, enum failure f);
};

struct engine_opts {
	bool continue_on_error; /* count errors and go on instead of stopping the run */
	bool cleanup;           /* remove fsmix's trees after the run */
	unsigned build_threads; /* 0: automatic */
	FILE *log;              /* progress and diagnostics (stderr) */
	double interval_s;      /* --interval S: per-interval rows, 0: none */
	bool keep_manifest;     /* write the reuse manifest even with reuse=0 (sweeps) */
	bool shared_tree; /* a job's ranks share one tree fsmix.fsN (docs/distributed.md): rank 0
	                   * builds it, the others attach, each creates and deletes its own ids */
	const char *lat_log_path;         /* --lat-log FILE: one line per operation, NULL: none */
	const char *durability_log_path;  /* --durability-log FILE: the journal of promises */
	const struct engine_hooks *hooks; /* one process of a job (MPI), NULL: a single process */
	const struct engine_observer *observer; /* the caller's view of the phases, NULL: none */
	uint64_t seed_offset; /* added to a given seed: rank R of a job runs seed + R, so the ranks'
	                       * random streams differ and the job is still reproducible */
	/* --crash-after [random:]S (crash.c): shut the tested filesystems down S seconds into the
	 * run phase, or at a moment drawn from [0, S) with the run's seed */
	bool crash, crash_random;
	double crash_after_s;
	/* the run's reports, written after it (--json, --csv, --plot; NULL: none, "-": stdout):
	 * --crash-after refuses a filesystem that holds one (crash_place.c) */
	const char *json_path, *csv_path, *plot_path;
};

/* engine_tree_rank - the rank in the names of o's trees: TREE_NO_RANK for a single process. */
static inline int engine_tree_rank(const struct engine_opts *o)
{
	return o->hooks && !o->shared_tree ? o->hooks->rank : TREE_NO_RANK;
}

/* engine_attaches - this process of a job uses the shared tree another (rank 0) built: it never
 * builds, rebuilds, ages or removes it (--shared-tree on a rank other than 0). */
static inline bool engine_attaches(const struct engine_opts *o)
{
	return o->hooks && o->shared_tree && o->hooks->rank != 0;
}

/* engine_shares - a job's ranks share one tree (--shared-tree under MPI). */
static inline bool engine_shares(const struct engine_opts *o)
{
	return o->hooks && o->shared_tree && o->hooks->ranks > 1;
}

/* engine_takes_locks - whether a run with o takes its locations' locks: a single process does,
 * and in a job the process the MPI layer says (rank 0). */
static inline bool engine_takes_locks(const struct engine_opts *o)
{
	return !o->hooks || o->hooks->takes_locks;
}

/* engine_open - make the engine of plan pl and its results r (results_init: r is valid for
 * results_free whatever happens). NULL when it cannot even start (out of memory, printed):
 * *f is FAIL_IO and there is nothing to report. Else *f is FAIL_NONE, or FAIL_IO when the signal
 * watcher could not be started (printed; r says so): skip to engine_finish. */
struct engine *engine_open(const struct plan *pl, const struct engine_opts *o, struct results *r,
                           enum failure *f);

/* engine_latlog_open - open --lat-log FILE and --durability-log FILE (nothing when none).
 * FAIL_INPUT when one cannot be written, or the durability log is on a tested filesystem
 * (printed), FAIL_INTERRUPTED when a stop signal ended the wait for a FIFO's reader: nothing
 * was built and nothing is to be reported; engine_free. */
enum failure engine_latlog_open(struct engine *e);

/* engine_setup - set up every filesystem (see above). FAIL_INPUT (a location in use, on
 * another filesystem, ...), FAIL_UNSUPPORTED (O_DIRECT refused), FAIL_IO, or FAIL_INTERRUPTED
 * when a stop signal came. */
enum failure engine_setup(struct engine *e);

/* engine_callout - run the profile's callout, if any (its failure is only a warning);
 * FAIL_INTERRUPTED when a stop signal came meanwhile. */
enum failure engine_callout(struct engine *e);

/* engine_measure - the run phase (nothing for a plan without time and counted groups: only
 * the trees were built). FAIL_IO when it could not run (threads, memory; printed). The run's
 * own outcome (worker errors, a signal) is decided by engine_finish. */
enum failure engine_measure(struct engine *e);

/* engine_finish - after the last phase that ran, given its failure f: commit the latency log
 * and complete the results (the run's figures, errors, stop reason, signal, failure message).
 * After a measured run the failure is the run's: FAIL_INTERRUPTED (a stop signal), FAIL_IO (a
 * worker's error, the latency log), else FAIL_NONE. Returns the failure. */
enum failure engine_finish(struct engine *e, enum failure f);

/* engine_close - --cleanup (when asked); returns f, or FAIL_IO when a tree could not be
 * removed and f was FAIL_NONE (the results' failure message says so). */
enum failure engine_close(struct engine *e, enum failure f);

/* engine_free - stop the signal watcher and free e (NULL is fine). */
void engine_free(struct engine *e);

/* engine_job_ready - one process of a job (o->hooks; nothing without): the barrier between
 * engine_callout and engine_measure, reached on every path after engine_open (e NULL when it
 * made no engine): every process brings its failure so far, all get the job's (FAIL_NONE: every
 * one is ready: they start together). Once per run. */
enum failure engine_job_ready(struct engine *e, const struct engine_opts *o, enum failure f);

/* engine_job_done - after engine_finish, when engine_job_ready returned FAIL_NONE: the job's
 * outcome; rank 0's results become the job's (merged). Else f. */
enum failure engine_job_done(struct engine *e, enum failure f);

/* engine_run - every phase, in the one order above (with o->hooks' steps of a job, and
 * o->observer's calls between them): r gets the results (results_free it). Returns the run's
 * failure, as the phases above, with the observer's on_closed added. */
enum failure engine_run(const struct plan *pl, const struct engine_opts *o, struct results *r);

/* engine_clean - remove the trees the plan's filesystems would use (only what fsmix made; see
 * tree_remove). Returns FAIL_NONE; FAIL_INPUT when a location is in use by another process or
 * holds a directory of fsmix's name that is not fsmix's; else FAIL_IO (the worst one wins). */
enum failure engine_clean(const struct plan *pl, const struct engine_opts *o);

/* engine_fs_bounds - what any run can name on the filesystem pf, whatever its groups and the
 * overrides it ran with (what fsmix verify checks a log's records against; num_dirs is in the
 * spec hash the log records): file ids below *files (no file pool is larger) and directory
 * indexes below *dirs (num_dirs and what createdir can add). */
void engine_fs_bounds(const struct plan_fs *pf, uint64_t *files, uint64_t *dirs);
/* engine_fs_spec_hash - the hash of the settings that decide which files a filesystem's tree
 * holds (the reuse manifest's, and the durability log's header). */
uint64_t engine_fs_spec_hash(const struct plan_fs *f, enum fidelity fidelity);
/* engine_fs_layout - the shape of pf's data directories (dir_depth, dir_fanout; dirlayout.h):
 * its leaves, pf->data_dirs, are the directory ids of the pool, the logs and verify. */
struct dirlayout engine_fs_layout(const struct plan_fs *pf);

/* engine_verify - `fsmix verify`: check every promise of the durability log at log_path
 * against the trees of plan pl, read-only (durmodel.h; nothing is written, locked or removed).
 * FAIL_NONE with rep filled (rep->broken says whether a promise was broken); FAIL_INPUT when
 * the log cannot be read, is not one, or belongs to other trees; FAIL_IO when a file cannot be
 * read. Messages on log. */
struct dm_report;
enum failure engine_verify(const struct plan *pl, const char *log_path, int model,
                           struct dm_report *rep, FILE *log);
/* engine_verify_cut - engine_verify of the log cut where a crash state puts it (fsmix
 * crashtest): only the records acknowledged (t_end, CLOCK_MONOTONIC ns) before acked_before_ns
 * are kept, and the rest is checked as a lost tail (a log without its end record). 0: the
 * whole log, as engine_verify. */
enum failure engine_verify_cut(const struct plan *pl, const char *log_path, int model,
                               uint64_t acked_before_ns, struct dm_report *rep, FILE *log);

/* engine_stop - ask every worker to stop (any thread; idempotent: the first reason wins). */
void engine_stop(struct engine *e, enum stop_reason why);

/* engine_is_stopping - the run is stopping (engine_stop was called): for the layers above, on
 * the main thread (the engine's own loop reads it inline, engine_int.h). */
bool engine_is_stopping(const struct engine *e);

/* engine_progress - the operations and transactions every worker has done so far (their
 * done_ops, done_trans, summed with relaxed loads: any thread, while the run goes on) and the
 * seconds since the run phase's start gate opened (0 before). Lock-free; the workers are not
 * slowed. */
struct engine_count {
	uint64_t ops, trans;
	double at_s;
};
struct engine_count engine_progress(const struct engine *e, uint64_t now);

/* engine_sleep_ms - sleep up to ms milliseconds, returning early when the run stops. */
void engine_sleep_ms(struct engine *e, uint32_t ms);

#endif
