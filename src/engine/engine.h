/* engine.h - the run engine: file trees, workers and the timed run of a plan. It fills a
 * struct results (results.h) and calls no report: the caller prints or writes the results
 * between and after the phases.
 *
 * Phases (the command line calls them in this order, with its reports in between; engine_run
 * calls them all for callers without reports, such as sweeps):
 *   engine_open        the engine and the results made, the signal watcher started;
 *                      [the caller prints the configuration: results.fs[].start_util is set]
 *   engine_latlog_open --lat-log FILE opened (its header written) before anything is built;
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

/* A filesystem while running: its tree on disk and the shared pools. */
struct engine_fs {
	const struct plan_fs *pf;
	struct tree tree;
	struct pool files;       /* data files (f<id>): the benchmark's file set */
	struct pool aged;        /* agefs=1: the aged files, f<ENGINE_AGED_ID_BASE + id>, a set of
	                          * their own (as FFSB's fill files): no benchmark op picks them */
	struct pool meta;        /* metaop directories (m<id>); gen bit kept in the size field */
	struct pick_table sizes; /* size_weight choice; n == 0: uniform min..max */
	struct rankperm rank;    /* file_popularity: rank -> file id, over the initial set */
	uint64_t spec_hash;      /* what the reuse manifest must match */
	bool reused;             /* the tree came from a manifest */
	bool modified;           /* some group may change it: the manifest is invalidated */
	double setup_s;          /* build or reuse time, seconds */
	double start_util;       /* used fraction of the location's filesystem before setup (FFSB's
	                          * "current utilization"), 0 when it cannot be read */
	uint64_t built_files, built_bytes;
	int lock; /* tree_lock_location handle of the location, taken before any build; 0: none */
	struct devstat_dev dev;          /* the mount and block device under the location */
	struct devstat_sample dev_delta; /* device counters of the run phase (valid: measured) */
	/* createdir: directories beyond num_dirs get indices from next_dir; dir_ready[i - num_dirs]
	 * becomes 1 once data/d<i> exists, so a create never targets a directory in the making. */
	alignas(CACHELINE) _Atomic uint32_t next_dir;
	_Atomic uint8_t *dir_ready;
	uint32_t dir_ready_cap;
};

/* The content key of file `disk_id` (its name's number) of fs: the tree's own seed (its id in
 * the marker, kept across rebuilds and runs, whatever --seed), so a reused tree is checked with
 * the key it was written with. */
static inline struct content_key engine_content_key(const struct engine_fs *fs, uint32_t disk_id)
{
	return (struct content_key){.seed = fs->tree.tree_id, .fs = fs->pf->index, .file = disk_id};
}

/* Aged file k is named f<ENGINE_AGED_ID_BASE + k>: above every id the benchmark's pool can
 * hand out (its capacity, populate.c), so the two sets never share a name. */
#define ENGINE_AGED_ID_BASE  (1u << 26)
#define ENGINE_AGED_CAPACITY (1u << 24)

struct engine;
struct ival_log;

/* Everything one worker thread writes, in one cache-aligned allocation. */
struct worker {
	alignas(CACHELINE) struct engine *eng;
	const struct plan_group *g;
	const struct pick_table *ops; /* the group's op choice */
	struct engine_fs *only_fs;    /* aging workers: their filesystem; NULL: bindfs or random */
	bool aging;                   /* an aging worker: works on only_fs->aged */
	int64_t age_bytes[OP_COUNT];  /* aging: bytes an op may add to the filesystem at most (its
	                               * reservation from engine.age_credit), 0: it adds none */
	struct ival_log *ival;        /* per-interval rows (--interval, progress), NULL: off */
	unsigned index;               /* global worker index: RNG stream */
	unsigned group;               /* index into plan.groups */
	struct rng rng;
	struct popcache popc; /* file_popularity: this thread's sampler cache */
	char *buf;            /* I/O buffer, 4 KiB aligned (O_DIRECT), buf_len bytes */
	size_t buf_len;
	bool timed[SYS_COUNT];  /* time this syscall (enable_stats and not ignored) */
	bool time_ops;          /* record whole-operation latency */
	bool shared_clock;      /* every syscall is timed: op latency = first start .. last end */
	uint64_t op_t0;         /* start of the current op's first timed syscall, 0: none yet */
	uint64_t last_ts;       /* end of the last timed syscall */
	uint64_t op_sync_ns;    /* time the current op spent in sync calls (--lat-log) */
	uint64_t stride_off;    /* write_stride: where this thread's next write starts */
	bool verify;            /* verify=1: every read is checked (content_check) */
	uint64_t verify_bad;    /* reads whose content did not check (mismatches) */
	struct latlog_buf *ll;  /* --lat-log buffer, NULL: off */
	struct durlog_ring *dl; /* --durability-log ring, NULL: off (durhook.h) */
	uint64_t dl_t0, dl_t1;  /* the last sync call's start and end, when dl is on */
	struct thread_stats st;
	uint64_t skipped[OP_COUNT];  /* ops that found no file to work on */
	uint64_t failed_after_crash; /* ops that failed once the filesystems were shut down */
	bool err_set;                /* err holds the worker's first failure */
	struct results_error err;    /* what, where and when (worker and group set by worker_new) */
	uint64_t t_start, t_end;     /* CLOCK_MONOTONIC ns */
	pthread_t thread;
	/* Progress the main thread may read while the run goes on (engine_progress: a distributed
	 * run's stonewall snapshot): the operations done (as st.ops counts them) and their
	 * transactions. Only this worker writes them, with a relaxed store per operation (no
	 * read-modify-write), on a cache line of their own; the two may be one operation apart. */
	alignas(CACHELINE) _Atomic uint64_t done_ops;
	_Atomic uint64_t done_trans;
};

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

struct engine_opts {
	bool continue_on_error;           /* count errors and go on instead of stopping the run */
	bool cleanup;                     /* remove fsmix's trees after the run */
	unsigned build_threads;           /* 0: automatic */
	FILE *log;                        /* progress and diagnostics (stderr) */
	double interval_s;                /* --interval S: per-interval rows, 0: none */
	bool keep_manifest;               /* write the reuse manifest even with reuse=0 (sweeps) */
	const char *lat_log_path;         /* --lat-log FILE: one line per operation, NULL: none */
	const char *durability_log_path;  /* --durability-log FILE: the journal of promises */
	const struct engine_hooks *hooks; /* one process of a job (MPI), NULL: a single process */
	uint64_t seed_offset; /* added to a given seed: rank R of a job runs seed + R, so the ranks'
	                       * random streams differ and the job is still reproducible */
	/* --crash-after [random:]S (crash.c): shut the tested filesystems down S seconds into the
	 * run phase, or at a moment drawn from [0, S) with the run's seed */
	bool crash, crash_random;
	double crash_after_s;
};

/* engine_tree_rank - the rank in the names of o's trees: TREE_NO_RANK for a single process. */
static inline int engine_tree_rank(const struct engine_opts *o)
{
	return o->hooks ? o->hooks->rank : TREE_NO_RANK;
}

/* engine_takes_locks - whether a run with o takes its locations' locks: a single process does,
 * and in a job the process the MPI layer says (rank 0). */
static inline bool engine_takes_locks(const struct engine_opts *o)
{
	return !o->hooks || o->hooks->takes_locks;
}

struct sigwatch;

struct engine {
	const struct plan *plan;
	const struct engine_opts *opts;
	struct engine_fs *fs;
	size_t n_fs;
	struct pick_table *group_ops;      /* per plan group */
	struct range_table **group_ranges; /* per plan group, NULL when no msec_range counting */
	struct worker **workers;
	size_t n_workers;
	uint64_t seed;
	alignas(CACHELINE) _Atomic int stop; /* enum stop_reason; relaxed loads in the loop */
	/* ramp_time: the end of the ramp, t_base + ramp_time (written before the gate opens; 0: no
	 * ramp). On stop's cache line, which every worker reads after every operation, so a
	 * ramping worker's check costs no other line. */
	uint64_t ramp_end_ns;
	uint64_t t_count; /* when counting started: ramp_end_ns once the ramp is over, else 0 */
	pthread_mutex_t sleep_lock; /* op_delay sleepers wait here for stop */
	pthread_cond_t sleep_cond;
	struct start_gate gate; /* workers wait here until all of them can start */
	bool gate_ready;        /* gate initialised */
	uint64_t t0;            /* run start (main thread, after the gate opened) */
	uint64_t t_base;        /* written before the gate opens: interval rows count from here */
	uint64_t run_end_ns;    /* the last worker's end */
	uint64_t ival_len_ns;   /* interval length, when rows are recorded */
	uint64_t crash_ns;      /* --crash-after: the shutdown, ns after t0 (engine_crash_check) */
	/* num_ops: workers of count-limited groups still running; the last one stops the run.
	 * Touched once per such worker, never per operation. */
	alignas(CACHELINE) _Atomic uint64_t counting;
	/* Aging (aging.c age_fs): bytes the aging workers may still add in this round, and bytes
	 * reserved by operations in flight. A worker reserves before an op that can grow the
	 * filesystem, so the total in flight never exceeds what the main thread granted. */
	alignas(CACHELINE) _Atomic int64_t age_credit;
	_Atomic int64_t age_inflight;
	int64_t age_min; /* the smallest reservation of the aging group's ops (set before start) */
	struct latlog latlog; /* --lat-log */
	bool latlog_open;
	bool latlog_failed;   /* a write to the latency log failed: the run exits 1 */
	struct durlog durlog; /* --durability-log (durjournal.c) */
	bool durlog_open, durlog_running;
	bool durlog_failed;        /* writing the durability log failed: the run exits 1 */
	bool progress;             /* draw the live status line (stderr is a terminal) */
	_Atomic int signal_seen;   /* the first stop signal received (watcher), 0: none */
	struct sigwatch *sw;       /* the signal watcher, NULL: not running */
	bool interrupted;          /* stopped by SIGINT/SIGTERM during setup or the run */
	char cleanup_err[MSG_MAX]; /* --cleanup's first failure */
	unsigned cleanup_signals;  /* stopsig_count() when the run phase was over (engine_finish):
	                            * one counted since stops --cleanup */
	struct results *res;       /* what the run fills (the caller's, outlives the engine) */
	bool job_agreed;           /* engine_job_ready was called (once per run) */
	bool job_went;             /* ... and every process is to run: engine_job_done merges */
};

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

/* engine_run - every phase, without reports: r gets the results (results_free it). Returns the
 * run's failure, as the phases above. */
enum failure engine_run(const struct plan *pl, const struct engine_opts *o, struct results *r);

/* engine_clean - remove the trees the plan's filesystems would use (only what fsmix made; see
 * tree_remove). Returns FAIL_NONE; FAIL_INPUT when a location is in use by another process or
 * holds a directory of fsmix's name that is not fsmix's; else FAIL_IO (the worst one wins). */
enum failure engine_clean(const struct plan *pl, const struct engine_opts *o);

/* engine_fs_spec_hash - the hash of the settings that decide which files a filesystem's tree
 * holds (the reuse manifest's, and the durability log's header). */
uint64_t engine_fs_spec_hash(const struct plan_fs *f, enum fidelity fidelity);

/* engine_verify - `fsmix verify`: check every promise of the durability log at log_path
 * against the trees of plan pl, read-only (durmodel.h; nothing is written, locked or removed).
 * FAIL_NONE with rep filled (rep->broken says whether a promise was broken); FAIL_INPUT when
 * the log cannot be read, is not one, or belongs to other trees; FAIL_IO when a file cannot be
 * read. Messages on log. */
struct dm_report;
enum failure engine_verify(const struct plan *pl, const char *log_path, int model,
                           struct dm_report *rep, FILE *log);

/* engine_stop - ask every worker to stop (any thread; idempotent: the first reason wins). */
void engine_stop(struct engine *e, enum stop_reason why);

static inline bool engine_stopping(const struct engine *e)
{
	return atomic_load_explicit(&e->stop, memory_order_relaxed) != STOP_NONE;
}

/* engine_crashed - --crash-after shut the filesystems down (the failures that follow are not
 * errors). Read on a failure only, never per operation. */
static inline bool engine_crashed(const struct engine *e)
{
	return atomic_load_explicit(&e->stop, memory_order_acquire) == STOP_CRASH;
}

/* engine_progress - the operations and transactions every worker has done so far (their
 * done_ops, done_trans, summed with relaxed loads: any thread, while the run goes on) and the
 * seconds since the run phase's start gate opened (0 before). Lock-free; the workers are not
 * slowed. */
struct engine_count {
	uint64_t ops, trans;
	double at_s;
};
static inline struct engine_count engine_progress(const struct engine *e, uint64_t now)
{
	struct engine_count c = {0, 0, 0};
	for (size_t i = 0; e->workers && i < e->n_workers; i++) {
		c.ops += atomic_load_explicit(&e->workers[i]->done_ops, memory_order_relaxed);
		c.trans += atomic_load_explicit(&e->workers[i]->done_trans, memory_order_relaxed);
	}
	c.at_s = e->t_base && now > e->t_base ? (double)(now - e->t_base) / 1e9 : 0;
	return c;
}

/* engine_sleep_ms - sleep up to ms milliseconds, returning early when the run stops. */
void engine_sleep_ms(struct engine *e, uint32_t ms);

/* engine_ffsb_size - FFSB 6.0's size for a file of a filesystem without size_weight:
 * min_filesize + getrandom(max - min), the range cut to 32 bits and max itself never reached
 * (fileops.c:446-450, ffsb_fs.c:131, rand.c:174); fidelity=ffsb6. */
static inline uint64_t engine_ffsb_size(const struct plan_fs *pf, struct rng *r)
{
	return pf->min_filesize + pick_ffsb_mod(r, (uint32_t)(pf->max_filesize - pf->min_filesize));
}

/* ops: perform op `op` once for worker w on filesystem fs (opexec.c). */
struct op_result {
	uint64_t trans;         /* FFSB transactions */
	uint64_t bytes_read;    /* bytes */
	uint64_t bytes_written; /* bytes */
	uint64_t ffsb_written;  /* bytes FFSB 6.0 counted, where that differs (write: the whole
	                         * file's size), else 0 */
	uint64_t ffsb_read;     /* bytes FFSB 6.0 counted, where that differs (read: read_size,
	                         * also the tail read_random never reads), else 0 */
};
/* Returns 0, OP_SKIPPED (no file to work on: not an error), or -errno after latching the
 * worker's first error. */
#define OP_SKIPPED 1
int op_execute(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);

/* op_probe_directio - 0 if files of this tree can be opened with O_DIRECT, else -errno. */
int op_probe_directio(struct engine_fs *fs, char *err, size_t errlen);

#endif
