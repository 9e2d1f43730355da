/* engine_int.h - what the engine's own files share (not for other layers: engine.h is the
 * engine's interface): the state of a run (struct engine, its filesystems and workers, the
 * operations), then one file per job:
 *   stop.c      stopping a run, and the sleeps a stop cuts short
 *   sigwatch.c  the signal watcher thread
 *   worker.c    a worker thread's loop (the hot path), a group's op table, making and freeing
 *               workers
 *   worker_depth.c iodepth > 1: a worker's operations in flight, each on a fiber (fiber.c);
 *               with worker.c and worker_op.c it shares workerloop.h
 *   crew.c      starting workers together at the gate and joining them
 *   aging.c     agefs=1: ageing a filesystem before its files are built
 *   build.c     a filesystem's files built by builder threads (populate.c: reused or built)
 *   progress.c  interval rows merged over the workers: the status line, --interval rows
 *   durhook.c   --durability-log: the workers' records (durhook.h), dirsync=1
 *   durjournal.c --durability-log: the log, the tree as the run starts, the logger
 *   finish.c    after the run phase: figures into the results, errors, latency log, --cleanup
 *   run.c       the engine's life: init, setup, the run phase, engine_run (clean.c, which needs
 *               none of this, is engine_clean)
 *   phase.c     a run in phases (phase=N): each phase's workers after the last's, stonewalls
 *   crash.c     --crash-after: the filesystems shut down at a moment of the run phase
 *   crash_place.c --crash-after: only on a dedicated test filesystem
 *   ioengine.c  the I/O engines (ioengine.h): engine_sync.c, engine_uring.c
 */
#ifndef FSMIX_ENGINE_INT_H
#define FSMIX_ENGINE_INT_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "engine.h"
#include "failure.h"

/* --- the engine's state: opaque to the layers above (engine.h declares struct engine only) --- */

/* A filesystem while running: its tree on disk and the shared pools. */
struct engine_fs {
	const struct plan_fs *pf;
	struct tree tree;
	struct pool files;       /* data files (f<id>): the benchmark's file set */
	struct pool aged;        /* agefs=1: the aged files, f<ENGINE_AGED_ID_BASE + id>, a set of
	                          * their own (as FFSB's fill files): no benchmark op picks them */
	struct pool meta;        /* metaop directories (m<id>); gen bit kept in the size field */
	struct pick_table sizes; /* size_weight choice; n == 0: uniform min..max */
	struct pick_table dirs;  /* dir_files gamma: each directory's share; n == 0: uniform */
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
	/* agefs=1: the aging group as its seed files are written (age_blocksize, aging.c); the
	 * seeding worker's g points here while it seeds, so it lives as long as the worker. */
	struct plan_group age_seed;
};

/* The content key of file `disk_id` (its name's number) of fs: the tree's own seed (its id in
 * the marker, kept across rebuilds and runs, whatever --seed), so a reused tree is checked with
 * the key it was written with; and the content mode (the global key content, part of the
 * reuse manifest's spec hash, so a reused tree was written in the same mode). */
static inline struct content_key engine_content_key(const struct engine_fs *fs, uint32_t disk_id)
{
	return (struct content_key){.seed = fs->tree.tree_id,
	                            .fs = fs->pf->index,
	                            .file = disk_id,
	                            .mode = fs->pf->content_mode,
	                            .pct = fs->pf->content_pct};
}

/* Aged file k is named f<ENGINE_AGED_ID_BASE + k>: above every id the benchmark's pool can
 * hand out (its capacity, populate.c), so the two sets never share a name. */
#define ENGINE_AGED_ID_BASE  (1u << 26)
#define ENGINE_AGED_CAPACITY (1u << 24)

struct ival_log;
struct io_engine_ops;
struct fiber;
struct depth_slot;

/* A file an operation holds: from the pool, opened for the body (opfile.c), or kept open
 * between the steps of a sequence (opseq.c). */
struct held_file {
	uint32_t id, dir;
	uint64_t size; /* bytes, as the pool records it */
	uint32_t gen;  /* content generation, set by opfile_begin_write (the pool's word is loaded
	                * only by the ops that need it: writers, and readers with verify=1) */
	int fd;
};

/* sequence=: what a worker's sequence holds between its steps (opseq.c). */
struct seq_state {
	const struct plan_step *step; /* the step running */
	struct held_file f;
	bool held;    /* f.id's slot is held: reserved (created) or picked (opened) */
	bool created; /* by a create step: reserved until its close publishes it */
	bool made;    /* created, and its open made the file (ours to remove on a failure) */
	bool excl;    /* held POOL_WRITE (a create, or an open whose steps write) */
	bool open;    /* f.fd is open */
	bool at0;     /* its position is 0: opened, and no step has read or written since */
	/* sequence_hold=1: f.fd stays open between loops (open while !held), on fs; a loop's
	 * open and close steps then only take the file back and give it back to the pool:
	 * nocall, so op_sequence records no step for them */
	bool nocall;
	struct engine_fs *fs;
};

/* Everything one worker thread writes, in one cache-aligned allocation. */
struct worker {
	alignas(CACHELINE) struct engine *eng;
	const struct plan_group *g;
	const struct pick_table *ops;   /* the group's op choice */
	const struct io_engine_ops *io; /* how its calls are issued (ioengine.h: engine=) */
	void *io_ctx;                   /* the engine's state of this worker, NULL: none */
	struct engine_fs *only_fs;   /* aging workers: their filesystem; NULL: bindfs or random */
	bool aging;                  /* an aging worker: works on only_fs->aged */
	int64_t age_bytes[OP_COUNT]; /* aging: bytes an op may add to the filesystem at most (its
	                              * reservation from engine.age_credit), 0: it adds none */
	struct ival_log *ival;       /* per-interval rows (--interval, progress), NULL: off */
	unsigned index;              /* global worker index: RNG stream */
	/* dir_per_thread: the thread's number among those that run with it (its phase's, or all
	 * groups'; crew_make), and their count; dir_slots 0: index of total_threads (aging) */
	uint32_t dir_slot, dir_slots;
	unsigned group; /* index into plan.groups */
	struct rng rng;
	struct popcache popc; /* file_popularity: this thread's sampler cache */
	/* file_order=sequential: the next file number this thread tries (order_set: placed at
	 * its share), and order_any: its own directories (dir_per_thread) had no file left */
	uint32_t order_cur;
	bool order_set, order_any;
	/* The I/O buffer, 4 KiB aligned (O_DIRECT): reads and filled writes use buf_len bytes from
	 * buf; content=header writes send buf + off % 512, which holds the payload pattern of
	 * pat_seed (content_pattern) outside [pat_lo, pat_hi), so a read or a fill, which spoils
	 * a prefix of it, costs its refill only where a later write needs it (opexec.c). buf_len
	 * + 512 bytes are used. One buffer, not a read and a pattern buffer: a worker touches its
	 * size once, not twice. */
	char *buf;
	size_t buf_len;
	char *rbuf; /* where reads go: buf (verify=1, TSan, aging), or NULL: a sink (read_dst) */
	uint64_t pat_seed;     /* the content seed of the pattern, once pat_ready */
	size_t pat_lo, pat_hi; /* the bytes of buf that may not hold it (none when lo >= hi) */
	bool pat_ready;
	bool timed[SYS_COUNT];  /* time this syscall (enable_stats and not ignored) */
	bool time_ops;          /* record whole-operation latency */
	bool shared_clock;      /* every syscall is timed: op latency = first start .. last end */
	uint64_t op_t0;         /* start of the current op's first timed syscall, 0: none yet */
	uint64_t last_ts;       /* end of the last timed syscall */
	uint64_t op_sync_ns;    /* time the current op spent in sync calls (--lat-log) */
	uint64_t stride_off;    /* write_stride: where this thread's next write starts */
	struct offstate offs;   /* random_distribution, percentage_random: this thread's */
	struct seq_state seq;   /* sequence=: the file kept open between steps */
	bool verify;            /* verify=1: every read is checked (content_check) */
	uint64_t verify_bad;    /* reads whose content did not check (mismatches) */
	struct latlog_buf *ll;  /* --lat-log buffer, NULL: off */
	struct durlog_ring *dl; /* --durability-log ring, NULL: off (durhook.h) */
	uint64_t dl_t0, dl_t1;  /* the last sync call's start and end, when dl is on */
	/* iodepth > 1 (worker_depth.c): the operations in flight run on fibers, one slot each;
	 * the per-operation fields above (op_t0, last_ts, op_sync_ns, dl_t0, dl_t1, buf, rbuf,
	 * pat_*) are the running fiber's, kept in its slot while it waits. */
	uint32_t iodepth;            /* operations kept in flight, >= 1 */
	struct depth_slot *slots;    /* iodepth > 1: iodepth of them, NULL: none */
	struct fiber *fiber;         /* the fiber running now (its calls yield), NULL: none */
	uint32_t max_in_flight;      /* the most operations waiting for a call at once */
	bool share_writes;           /* shared_writes=1 at iodepth > 1: writes share a file */
	struct wshare *share;        /* share_writes: iodepth of them (wshare.c), NULL: none */
	uint32_t slot_now;           /* iodepth > 1: the index of the slot running now */
	uint64_t skipped[OP_COUNT];  /* ops that found no file to work on */
	uint64_t failed_after_crash; /* ops that failed once the filesystems were shut down */
	bool err_set;                /* err holds the worker's first failure */
	uint64_t t_start, t_end;     /* CLOCK_MONOTONIC ns */
	pthread_t thread;
	/* Progress the main thread may read while the run goes on (engine_progress: a distributed
	 * run's stonewall snapshot): the operations done (as st.ops counts them) and their
	 * transactions. Only this worker writes them, with a relaxed store per operation (no
	 * read-modify-write), on a cache line of their own; the two may be one operation apart. */
	alignas(CACHELINE) _Atomic uint64_t done_ops;
	_Atomic uint64_t done_trans;
	/* Last, so that what a worker writes is on its first page or two: the statistics (their
	 * counters first; the series' dense part, 740 KB, stays unwritten: the arena has them) and
	 * the first failure (4 KB with its path, written only when the worker fails). */
	alignas(CACHELINE) struct thread_stats st;
	struct results_error err; /* what, where and when: set by opexec.c fail */
};

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
	/* The run phase's read sinks (verify=0): sink_n page-aligned buffers of sink_len bytes in
	 * one mapping, one per CPU (read_dst), that the workers' reads go into, since nobody looks
	 * at what they read. So a read does not overwrite the content=header pattern in the
	 * worker's own buffer (which the next write would refill at the cost of a copy as large as
	 * it), and a worker's memory is its buffer once, as in FFSB. One per CPU, not one for all:
	 * the kernel's copies into a sink that every CPU writes move its cache lines from CPU to
	 * CPU on every read, while a CPU's own sink stays in its cache (2010 profile, 16 threads on
	 * 2 CPUs: reads' copy 15 % -> 12 % of the run's CPU time). A worker moved between CPUs
	 * mid-read, or two workers of one CPU, may write one sink at once: harmless, its bytes are
	 * never read (verify=1 reads into the worker's own buffer and checks them; so does a
	 * ThreadSanitizer build, whose read() interceptor would see the sink's writes as races). */
	char *sink;
	size_t sink_len, sink_n;
	/* content=fixed (the default when nothing checks the content): what every write sends,
	 * the same bytes in every file, so one read-only copy serves all of the run phase's
	 * workers and no worker dirties a write buffer. fixed_max + 512 bytes of the pattern
	 * from offset 0: a write of n <= fixed_max bytes at file offset o is sent from
	 * fixed + o % 512. NULL and 0 in another mode (and in the setup phase: aging fills). */
	const char *fixed;
	size_t fixed_max;
	uint64_t seed;
	uint64_t run_id; /* random, nonzero: the durability log's and markers' (engine_mark_tree) */
	alignas(CACHELINE) _Atomic int stop; /* enum stop_reason; relaxed loads in the loop */
	/* ramp_time: the end of the ramp, t_base + ramp_time (written before the gate opens; 0: no
	 * ramp). On stop's cache line, which every worker reads after every operation, so a
	 * ramping worker's check costs no other line. */
	uint64_t ramp_end_ns;
	uint64_t t_count; /* when counting started: ramp_end_ns once the ramp is over, else 0 */
	/* time: t_base + ramp_time + time (written before the gate opens; 0: none, aging). No
	 * worker starts an operation after it (its coarse clock, worker.c): the first to see it
	 * stops the run, so a run lasts its time even when the main thread gets no CPU. */
	uint64_t deadline_ns;
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

/* Where w's next read goes: its own buffer, or the read sink of the CPU it runs on. */
static inline char *read_dst(const struct worker *w)
{
	if (w->rbuf)
		return w->rbuf;
	int cpu = sched_getcpu(); /* glibc: a load from the thread's rseq area */
	const struct engine *e = w->eng;
	return e->sink + (cpu < 0 ? 0 : (size_t)cpu % e->sink_n) * e->sink_len;
}

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
/* Returns 0, OP_SKIPPED (no file to work on: not an error), OP_BUSY (files exist, but every
 * one the op could take was held by other threads: not an error either), or -errno after
 * latching the worker's first error. */
#define OP_SKIPPED 1
#define OP_BUSY    2
int op_execute(struct worker *w, struct engine_fs *fs, enum op_id op, struct op_result *r);

/* op_probe_directio - 0 if files of this tree can be opened with O_DIRECT, else -errno. */
int op_probe_directio(struct engine_fs *fs, char *err, size_t errlen);

/* stop.c */
/* engine_wait_until - wait until deadline_ns (CLOCK_MONOTONIC) or until the run stops. */
void engine_wait_until(struct engine *e, uint64_t deadline_ns);
/* engine_wake - wake every sleeper on the engine's condition variable (after e->stop is set). */
void engine_wake(struct engine *e);

/* crash.c */
/* engine_crash_check - with --crash-after (else nothing): before the logs are opened and
 * anything is built, every location must be on ext4, xfs or f2fs (else FAIL_UNSUPPORTED), on
 * a dedicated test filesystem (crash_place_check: else FAIL_INPUT), the process must hold
 * CAP_SYS_ADMIN
 * (FAIL_UNSUPPORTED) and the moment must be before the run's end (FAIL_INPUT); e->crash_ns is
 * the moment drawn (random:S, from the run's seed) or given. Message in err. */
enum failure engine_crash_check(struct engine *e, char *err, size_t errlen);
/* crash_place_check (crash_place.c) - every location of e is on a dedicated test filesystem,
 * which --crash-after may shut down without hurting anybody (the rules: crash_place.c,
 * docs/durability.md). FAIL_NONE, FAIL_INPUT (the location and the reason in err), FAIL_IO. */
enum failure crash_place_check(const struct engine *e, char *err, size_t errlen);
/* engine_crash - the moment came, or the counted groups ended before it: unless the run stopped
 * otherwise (a signal, an error), the stop reason becomes STOP_CRASH and every tested filesystem
 * is shut down (FS_IOC_SHUTDOWN, NOLOGFLUSH; once per filesystem). Sets results.crashed,
 * crash_at_s, and crash_failed when an ioctl failed (printed). */
void engine_crash(struct engine *e);

/* sigwatch.c: the thread that turns a stop signal into engine_stop(STOP_SIGNAL). */
struct sigwatch {
	struct engine *e;
	int sigfd;  /* signalfd of stop_signals and ignored_signals */
	int quitfd; /* eventfd: written once, by sigwatch_stop */
	pthread_t thread;
};
/* sigwatch_block_signals - block the stop signals in this thread and the threads it makes. */
void sigwatch_block_signals(void);
/* sigwatch_start - start the watcher; 0, or -1 with err. sigwatch_stop ends and joins it. */
int sigwatch_start(struct sigwatch *sw, struct engine *e, char *err, size_t errlen);
void sigwatch_stop(struct sigwatch *sw);

/* worker.c */
/* worker_count_done - an operation done: into the worker's statistics, and its progress published
 * for the main thread (engine_progress) by plain relaxed stores of counts only this thread writes:
 * no read-modify-write, no line another worker writes. */
static inline void worker_count_done(struct worker *w, enum op_id op, const struct op_result *r)
{
	w->st.ops[op]++;
	w->st.trans[op] += r->trans;
	w->st.bytes_read[op] += r->bytes_read;
	w->st.bytes_written[op] += r->bytes_written;
	w->st.ffsb_written[op] += r->ffsb_written ? r->ffsb_written : r->bytes_written;
	w->st.ffsb_read[op] += r->ffsb_read ? r->ffsb_read : r->bytes_read;
	uint64_t ops = atomic_load_explicit(&w->done_ops, memory_order_relaxed);
	uint64_t trans = atomic_load_explicit(&w->done_trans, memory_order_relaxed);
	atomic_store_explicit(&w->done_ops, ops + 1, memory_order_relaxed);
	atomic_store_explicit(&w->done_trans, trans + r->trans, memory_order_relaxed);
}

/* worker_ramp_done (worker_op.c) - the ramp is over (ramp_time): what worker w did so far is
 * discarded, exactly: its statistics, skips and progress counts (engine_progress) go back to zero
 * and its counted time starts now. Called by w's own thread only. */
void worker_ramp_done(struct worker *w);

/* worker_main - a worker thread (its argument is the struct worker). */
void *worker_main(void *arg);
/* worker_pick_ops - the operation table the workers of group g pick from: its weights, or with
 * fidelity=ffsb6 the shares FFSB 6.0's biased pick gives them (pick_ffsb_weights). 0 or -errno.
 * One per group (the run phase's, engine.group_ops; aging's, age_fs), shared by its workers. */
int worker_pick_ops(const struct plan *pl, const struct plan_group *g, struct pick_table *t);
/* worker_buf_len - the I/O buffer length of a worker of group g: its larger block size, whole
 * pages (4 KiB when both are 0). */
size_t worker_buf_len(const struct plan_group *g);
/* worker_new - a worker of group g (index gi); NULL with err and *fail: FAIL_IO when out of
 * memory, FAIL_UNSUPPORTED when its engine cannot set up here (engine=io_uring's ring). */
struct worker *worker_new(struct engine *e, const struct plan_group *g, size_t gi,
                          const struct pick_table *ops, const struct range_table *ranges,
                          unsigned index, enum failure *fail, char *err, size_t errlen);
void worker_free(struct worker *w);

/* What a fiber at iodepth > 1 yields its home with besides a call (IO_YIELD_CALL): it waits
 * for something one of the operations in flight will free (its pick found no file, or a
 * shared write's extent is taken); worker_depth.c resumes it after the next completions
 * instead of sleeping with operations in flight. */
#define YIELD_IDLE 2

/* A fiber's shared write (wshare.c): the file it holds with the worker's other writes (pool
 * NULL: none), and the extent of its write in flight there, [ext_off, ext_end) (ext_end 0:
 * none). */
struct wshare {
	struct pool *pool;
	uint32_t id;
	uint64_t ext_off, ext_end;
};

/* wshare.c, shared_writes=1 at iodepth > 1 (w->share_writes; docs/engines.md): the
 * write operations in flight of one worker share their file. The worker holds the file in the
 * pool exclusively, as one writer, for as long as any of its fibers does.
 * depth_share_acquire - as acquire(POOL_WRITE): a file of the pool, or where every file is held,
 * one the worker's other write fibers hold (joined). 0, OP_SKIPPED or OP_BUSY.
 * depth_share_release - the fiber lets go of its file; the last one releases it to the pool.
 * depth_extent_wait - before a write of [off, off + len) of the fiber's file: waits (yields)
 * while a write of another fiber to an overlapping extent is in flight, then holds the extent
 * until depth_extent_done (or the release): overlapping writes go one after the other, each
 * taking its content generation after the one before it completed, so the last written is the
 * highest, as verify and the durability model expect. */
int depth_share_acquire(struct worker *w, struct engine_fs *fs, uint32_t *id);
void depth_share_release(struct worker *w, struct engine_fs *fs, uint32_t id);
void depth_extent_wait(struct worker *w, uint64_t off, uint64_t len);
void depth_extent_done(struct worker *w);

/* crew.c */
/* crew_make - the run phase's n workers in e->workers (and e->n_workers as they are made), each
 * with what the run asks of it: its buffer, a --lat-log buffer, interval rows (--interval or the
 * status line); the read sinks and content=fixed's payload they share. FAIL_NONE, or the
 * failure with err (FAIL_UNSUPPORTED: a worker's engine cannot set up here, see worker_new). */
enum failure crew_make(struct engine *e, size_t n, char *err, size_t errlen);
/* crew_start - start a thread for each of the n workers of ws, held at the gate; 0, or -1
 * with err (the started ones are stopped and joined). */
int crew_start(struct engine *e, struct worker **ws, size_t n, const char *what, char *err,
               size_t errlen);
/* crew_arrived - wait until every started worker waits at the gate (still closed). */
void crew_arrived(struct engine *e);
/* crew_release - open the gate: every worker waiting there starts at once. */
void crew_release(struct engine *e);
/* crew_join - join the n workers of ws. */
void crew_join(struct worker **ws, size_t n);

/* phase.c: a run in phases (phase=N) */
/* phase_refusal - what a run in phases refuses (--crash-after, a distributed job): FAIL_NONE,
 * or FAIL_INPUT with err. Nothing without phases. */
enum failure phase_refusal(const struct engine *e, char *err, size_t errlen);
/* How the main thread waits while a phase runs: until the deadline or a stop (run.c's). */
typedef void (*phase_wait_fn)(struct engine *e, uint64_t deadline);
/* phase_run_all - the n workers made by crew_make run phase by phase: each phase's started
 * together once the phase before is joined, waited for (wait) until its counts, stonewall or
 * time end it, joined, and its start, runtime and stop reason written into results.phases.
 * Sets t_base and t0 at the first phase's start; stops at a phase ended by an error or a
 * signal. 0, or -1 with err (a thread that could not start: the phase's started ones joined). */
int phase_run_all(struct engine *e, size_t n, phase_wait_fn wait, char *err, size_t errlen);

/* aging.c */
/* How long aging may go without growth before it gives up (a workload that deletes as much as
 * it writes never gets to desired_util): 30 s. */
#define AGE_NO_GROWTH_NS 30000000000ull
/* age_growing - aging's growth watch: the usage util (0..1) seen at now (ns); true while it has
 * grown by more than 0.1 % of the filesystem over the best seen (best and last_growth then move
 * to it) within AGE_NO_GROWTH_NS, false once it has not for longer. Start with best at the usage
 * aging started from and last_growth at its start. */
struct age_growth {
	double best;
	uint64_t last_growth;
};
bool age_growing(struct age_growth *g, double util, uint64_t now);
/* age_fs - age fs to its desired_util before its files are built (agefs=1; populate_fs's aging
 * step, a populate_age_fn of populate.h). FAIL_NONE, or with err FAIL_IO or FAIL_INTERRUPTED. */
enum failure age_fs(struct engine *e, struct engine_fs *fs, char *err, size_t errlen);

/* build.c */
/* build_files - create fs's files (num_files, or until init_size/init_util) with up to
 * `threads` builder threads, into fs->files; fs->built_files and built_bytes set. FAIL_NONE, or
 * FAIL_IO (an I/O error, no memory, no thread), FAIL_UNSUPPORTED (fallocate refused) or
 * FAIL_INTERRUPTED, with err. */
enum failure build_files(struct engine *e, struct engine_fs *fs, unsigned threads, char *err,
                         size_t errlen);

/* progress.c */
/* engine_progress_line - draw the live status line on the log (a terminal). */
void engine_progress_line(struct engine *e, uint64_t deadline);
/* engine_merge_intervals - the --interval rows of group gi (SIZE_MAX: all) merged; NULL when
 * out of memory. The caller frees them. */
struct interval_row *engine_merge_intervals(struct engine *e, size_t gi, size_t *n_out);

/* durjournal.c: --durability-log */
/* engine_mark_tree - record the run's id in the marker of fs's tree (tree_mark_run) before the
 * run changes the tree or journals it; nothing for a rank that attaches, or when the marker has
 * it already. `full_later`: a filesystem too full for the new marker (ENOSPC, EDQUOT) is let
 * be, for the call after the rebuild that emptied it. FAIL_NONE, or FAIL_IO with err.
 * (Inline: populate.c and run.c both call it.) */
static inline enum failure engine_mark_tree(struct engine *e, struct engine_fs *fs, bool full_later,
                                            char *err, size_t errlen)
{
	char why[MSG_MAX];
	if (engine_attaches(e->opts) || fs->tree.run_id == e->run_id)
		return FAIL_NONE;
	int rc = tree_mark_run(&fs->tree, e->run_id, why, sizeof(why));
	if (rc && !(full_later && (rc == -ENOSPC || rc == -EDQUOT))) {
		snprintf(err, errlen, "%s: %s", fs->pf->name, why);
		return FAIL_IO;
	}
	return FAIL_NONE;
}

/* engine_durlog_open - check and open the log (engine_latlog_open calls it). */
enum failure engine_durlog_open(struct engine *e);
/* durjournal_begin - after the workers are made, before they start: the header, the tree as it
 * is (made durable by a syncfs), the logger started and every worker given its ring. 0, or -1
 * with err. */
int durjournal_begin(struct engine *e, char *err, size_t errlen);
/* durjournal_end - after the join (or a failed start): drain, stop and close the log; its
 * figures on the log; a failure makes the run exit 1. Idempotent. */
void durjournal_end(struct engine *e);

/* finish.c */
/* engine_fail - print "fsmix: MSG" on the log; the results' failure message, unless one was
 * set before (the first stands). */
void engine_fail(struct engine *e, const char *msg);
/* engine_report_errors - every worker's first error, one line each on the log. */
void engine_report_errors(struct engine *e);
/* engine_collect - after the join: the --interval rows, every worker's errors and statistics
 * into the results (its group, the groups into the total); the workers are freed. 0, or -1
 * with err (out of memory). */
int engine_collect(struct engine *e, char *err, size_t errlen);

#endif
