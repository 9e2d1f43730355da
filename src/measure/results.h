/* results.h - the results of one run: what the engine fills and returns, what every report
 * (FFSB text, fsmix text, JSON, CSV), sweeps and the MPI layer see.
 *
 * Plain data: no pointer into the engine or the plan. Everything a results holds it owns
 * (names, range tables, statistics, rows, errors), so it outlives the engine and can be built
 * by hand in a unit test or from another process's figures (results_init + filling).
 *
 * Mergeable (results_merge): two results of the SAME PLAN merge exactly, as if one run had
 * had the threads of both. "Same plan" means the same groups in the same order (names, thread
 * weights and msec_range bounds) and the same filesystems in the same order (names): checked
 * by results_merge, which refuses anything else. What merges how:
 *   statistics (per group and total): SUM of counters, histogram buckets and moments, MIN of
 *     minima, MAX of maxima (stats.h: exact, associative, commutative);
 *   skipped and busy picks: SUM; missed starts: SUM; built files and bytes: SUM;
 *   CPU user and system seconds: SUM; runtime: MAX (the longest run); setup_s: MAX;
 *   interval rows: by index (row k of both is one row: counts SUM, length and end MAX, the
 *     p99 MAX of both, an upper bound of the merged p99: rows keep no histogram);
 *   device counters: per filesystem SUM where both are valid, invalid when either is (two
 *     processes on one host see the same device: merge one of them per host and device, or
 *     the flushes count twice); reused: AND;
 *   errors: concatenated (dst's first);
 *   stop reason, signal, failure: the first one set (dst's, then src's); measured: AND;
 *     interrupted: OR; seed, environment: dst's.
 * So merging A into B and B into A gives equal results, except the order of the error list and
 * the fields "the first one set". The derived figures below are functions of the merged data,
 * never merged themselves (rates of a merged results are rates of the union).
 *
 * Derived figures are computed here once (results_sums, results_rate, results_share,
 * results_cpu, results_op_shown, results_skipped_pct, results_busy_pct, results_fs_flushes) and
 * used by every formatter.
 */
#ifndef FSMIX_RESULTS_H
#define FSMIX_RESULTS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler.h"
#include "content.h"
#include "devstat.h"
#include "jobsum.h"
#include "failure.h"
#include "ops.h"
#include "plan.h"
#include "stats.h"

/* Why the run phase ended. STOP_STONEWALL: a thread of a stonewall=1 group finished its count,
 * which ended the phase (or the run) for every thread. */
enum stop_reason {
	STOP_NONE = 0,
	STOP_TIME,
	STOP_COUNT,
	STOP_ERROR,
	STOP_SIGNAL,
	STOP_CRASH,
	STOP_STONEWALL
};

/* One --interval row: what the run (or a group) did during [t_s - length_s, t_s). */
struct interval_row {
	double t_s;         /* end of the interval, seconds since the start */
	double length_s;    /* its length */
	uint64_t ops;       /* operations completed in it */
	uint64_t trans;     /* FFSB transactions */
	uint64_t bytes;     /* bytes read + written */
	uint64_t p99_op_ns; /* 99th percentile of the operations' latency (0: not timed) */
	bool ramp;          /* it holds time of the ramp (ramp_time): not counted in the results */
};

/* A worker's first error: what, where and when. */
struct results_error {
	unsigned worker; /* global worker index */
	unsigned group;  /* index into results.groups */
	int err;         /* errno */
	enum op_id op;   /* the operation that failed */
	enum sys_id sys; /* the system call that failed */
	uint64_t at_ns;  /* since the start of the run */
	char path[PATH_MAX];
	/* verify=1: a read's content did not check (err is EBADMSG, sys the read) */
	bool verify;
	struct content_finding found; /* what was wrong, where (a file offset), expected, found */
	uint32_t gen_current;   /* the file's generation then (0: unknown, an old manifest's) */
	uint32_t gen_written_s; /* wall-clock second found.gen_expected was written, 0: unknown */
};

/* One thread group: its shape (copied from the plan) and its figures. */
struct results_group {
	char *name;                 /* owned */
	unsigned index;             /* threadgroupN */
	uint32_t num_threads;       /* threads of this group (summed over merged runs) */
	int bindfs;                 /* index into results.fs, -1: random */
	uint32_t op_period_ms;      /* 0: back to back */
	int io_engine;              /* enum io_engine_kind: how its calls were issued */
	uint32_t iodepth;           /* operations a thread may keep in flight (docs/engines.md) */
	uint32_t max_in_flight;     /* the most one thread had in flight at once (measured) */
	double rate_target;         /* op_rate or op_period: ops/s of the group, 0: none */
	bool backlog_queue;         /* arrival_backlog=queue (else drop) */
	uint32_t backlog_max;       /* arrival_backlog_max: starts a thread may queue */
	uint32_t weight[OP_COUNT];  /* the op weights */
	struct range_table *ranges; /* owned msec_range table (NULL: none); st counts with it */
	struct thread_stats st;     /* everything the group's threads recorded */
	bool st_ready;              /* st is initialised (see results_init_lazy) */
	uint64_t skipped[OP_COUNT]; /* picks that found no file */
	struct interval_row *intervals; /* owned, n_intervals rows (same times as the total's) */
	size_t n_intervals;
	uint32_t phase; /* the phase it ran in (phase=N; 0 without phases) */
};

/* One phase of a run with phases (plan.phases): when it ran and how it ended. Its figures are
 * its groups' (results_phase_sums); its rates are over its own runtime. */
struct results_phase {
	double start_s;        /* its first thread's start, seconds after the run's start */
	double runtime_s;      /* its first thread's start to its last thread's end, seconds */
	enum stop_reason stop; /* why it ended (count, stonewall, time...); STOP_NONE: not run */
	uint64_t threads;      /* threads of its groups (summed over merged runs) */
	uint32_t time_s;       /* its time limit (phase_time or time), 0: none */
	bool counted;          /* some group of it has num_ops */
	uint64_t counted_ops;  /* its counted groups' threads x num_ops: what a phase that ends by
	                        * its counts does (a stonewall ends it short of them) */
};

/* One filesystem: its setup and the device counters of the run phase. */
struct results_fs {
	char *name;        /* owned: "filesystem0" */
	char *location;    /* owned */
	bool reused;       /* the tree came from a manifest */
	double setup_s;    /* build or reuse time, seconds */
	double start_util; /* used fraction of the location's filesystem before setup */
	uint64_t built_files, built_bytes;
	struct devstat_dev dev;          /* the mount and block device under the location */
	struct devstat_sample dev_delta; /* device counters of the run phase */
};

/* Where it ran (uname(2), sysconf): what the JSON's "environment" gives. */
struct results_env {
	char fsmix_version[32]; /* of the binary that ran */
	bool have_uname;
	char hostname[65], sysname[65], release[65], version[65], machine[65];
	long cpus_online; /* <= 0: unknown */
};

struct results {
	/* the run */
	uint64_t seed;
	uint32_t time_s;        /* the plan's time (0: none) */
	uint32_t ramp_s;        /* the plan's ramp_time: seconds run before counting (0: none) */
	enum fidelity fidelity; /* the plan's fidelity: ffsb6 reports FFSB 6.0's byte counts */
	uint64_t total_threads; /* threads of every group */
	bool measured;          /* the run phase ran: the figures are figures (else all zero) */
	bool interrupted;       /* stopped by a signal */
	enum stop_reason stop;  /* why the run phase ended (STOP_NONE: it did not run) */
	int signal;             /* the signal that stopped the run, 0: none */
	char failure[MSG_MAX];  /* why setup or the run phase failed ("" : it did not) */
	double runtime_s;       /* first worker's start to last worker's end, seconds */
	double user_s, sys_s;   /* CPU time of the run phase, seconds */
	/* sqpoll=1: the CPU seconds of the run phase of io_uring's polling threads, in user_s and
	 * sys_s too (sqpollcpu.h); has_sqpoll: some group had sqpoll=1 */
	double sqpoll_s;
	bool has_sqpoll;
	/* --crash-after: the filesystems were shut down (stop STOP_CRASH) crash_at_s into the run;
	 * crash_failed: a shutdown ioctl failed (exit 1); failed_after_crash: operations that
	 * failed after the shutdown (expected: not errors) */
	bool crashed, crash_failed;
	double crash_at_s;
	uint64_t failed_after_crash;
	struct results_env env;
	/* figures */
	struct results_group *groups; /* owned, n_groups */
	size_t n_groups;
	struct thread_stats total;        /* every group (without msec_range counts) */
	uint64_t total_skipped[OP_COUNT]; /* every group's */
	struct results_fs *fs;            /* owned, n_fs */
	size_t n_fs;
	bool verify;                  /* verify=1: reads were checked (verify_mismatches counts) */
	uint64_t verify_mismatches;   /* reads whose content did not check, over every worker */
	struct results_error *errors; /* owned: every worker's first error, n_errors */
	size_t n_errors;
	struct interval_row *intervals; /* owned: --interval rows of the whole run, n_intervals */
	size_t n_intervals;
	/* phases (phase=N): n_phases of them in order, owned; 0 for a run without phases. The
	 * whole run's figures above stay those of every group, over the whole runtime. */
	struct results_phase *phases;
	size_t n_phases;
	/* a distributed run (MPI), on rank 0 after every rank's results were merged into these:
	 * the ranks, their spread, the hosts (jobsum.h); n_ranks 0 for a single process. Owned;
	 * never merged (results_merge leaves dst's). */
	struct jobsum job;
};

/* results_init - empty results shaped like plan pl: its groups (names, weights, bindfs,
 * msec_range tables copied) and filesystems (names, locations), zero figures. Returns 0 or
 * -ENOMEM (r is then safe to results_free). */
MUST_CHECK int results_init(struct results *r, const struct plan *pl);

/* results_init_lazy - results_init, but every group's statistics are left all zero bytes and
 * not ready (st_ready false): no page of them is touched (a group's statistics are 724 KiB; a
 * filler that moves ready-made statistics in, as the engine does for a group of one thread,
 * would otherwise pay for them twice). The filler makes each group ready before anything is
 * merged into it or the results are used: results_group_ready, or a move that sets st_ready. */
int results_init_lazy(struct results *r, const struct plan *pl);

/* results_group_ready - give group gi empty statistics unless they are ready. 0 or -ENOMEM
 * (the group then stays not ready; formatters read it as empty). */
int results_group_ready(struct results *r, size_t gi);

/* results_free - release everything r owns; r may be reused with results_init. */
void results_free(struct results *r);

/* results_env_probe - fill env from uname(2) and sysconf. */
void results_env_probe(struct results_env *env);

/* results_add_error - append a copy of e. 0 or -ENOMEM. */
int results_add_error(struct results *r, const struct results_error *e);

/* results_verify_text - one line saying what a verify error (e->verify) found: where (file
 * offset), the verdict, the generations found and expected (and when the expected one was
 * written, when known), the first differing bytes expected and found, in hex. */
void results_verify_text(const struct results_error *e, char *buf, size_t len);

/* results_error_kind - "verify" for a content mismatch, else "io". */
static inline const char *results_error_kind(const struct results_error *e)
{
	return e->verify ? "verify" : "io";
}

/* results_set_intervals - give rows to the total (group SIZE_MAX) or a group: a copy. 0 or
 * -ENOMEM. */
int results_set_intervals(struct results *r, size_t group, const struct interval_row *rows,
                          size_t n);

/* results_merge - dst := dst (+) src (see the top of this file). src must have the same plan
 * shape: -EINVAL otherwise (dst unchanged); -ENOMEM when out of memory (dst may be partly
 * merged then: discard it). Returns 0. */
MUST_CHECK int results_merge(struct results *dst, const struct results *src);

/* results_total_of_groups - r->total and r->total_skipped := the sum of every ready group's
 * statistics and skipped picks, without msec_range counts (they are per group, as in FFSB).
 * The one way a total is made (the engine after a run, and the tests). Returns 0, or the first
 * merge's -errno (ENOMEM for a response-time series: the total is then incomplete). */
int results_total_of_groups(struct results *r);

/* ---- derived figures ---- */

/* The sums over every op of one statistics set. */
struct results_sums {
	uint64_t ops, trans, bytes_read, bytes_written, errors, skipped, busy;
};

/* results_sums - sum st's counters (busy picks among them) and the skipped picks (skipped may
 * be NULL). */
void results_sums(const struct thread_stats *st, const uint64_t *skipped, struct results_sums *out);

/* results_rate - x per second of secs; NAN when secs is not positive (a run of no time: the
 * JSON gives null, the CSV an empty cell, the text 0). */
double results_rate(double x, double secs);

/* results_rate_check - a scheduled group's (rate_target > 0) target and achieved starts per
 * second (operations attempted, done or not, over the run's time) and how far short of the
 * target it was in % (negative: above). False for a group without a target or a run of no
 * time. RESULTS_RATE_WARN_PCT: the shortfall the reports warn about. */
#define RESULTS_RATE_WARN_PCT 5.0
bool results_rate_check(const struct results *r, size_t gi, double *target, double *achieved,
                        double *short_pct);

/* results_arrivals - a scheduled group's (rate_target > 0) starts: served (operations
 * attempted: done, failed, skipped or busy), dropped (missed_starts: arrival_backlog=drop every
 * start that passed while the thread was busy, =queue those beyond arrival_backlog_max),
 * intended (served + dropped; the starts still queued when the run stopped are in neither),
 * queued_late (=queue: served after their time had passed) and bound_hits (=queue: the times
 * a backlog reached its bound). False for an unscheduled group. */
struct results_arrivals {
	uint64_t intended, served, dropped, queued_late, bound_hits;
};
bool results_arrivals(const struct results *r, size_t gi, struct results_arrivals *out);

/* results_share - part as a percentage of whole (100 * part / whole); NAN when whole is 0. */
double results_share(double part, double whole);

/* CPU use of the run phase in % of its runtime: user, system, both (of one CPU), both divided
 * by the CPUs online. NAN for a run of no time (and all_cpus when the count is unknown). */
struct results_cpu {
	double user_pct, sys_pct, one_cpu_pct, all_cpus_pct;
};
void results_cpu(const struct results *r, struct results_cpu *out);

/* results_skipped_pct - skipped picks (no file) as a share (%) of every pick (ran, failed,
 * skipped or busy); 0 when there was no pick. results_busy_pct - busy picks (every file held
 * by other threads) the same way. */
double results_skipped_pct(const struct results_sums *s);
double results_busy_pct(const struct results_sums *s);

/* results_op_shown - whether op gets an entry (JSON) or a row (CSV) for a group (g NULL: the
 * total): it is weighted in g (total: in any group) or any of its figures is not zero. */
bool results_op_shown(const struct results *r, const struct results_group *g, int op);

/* Flushes and sync calls of one filesystem during the run phase. THE rule for "per sync call"
 * (text, JSON; docs/output.md):
 *   - a sync() call flushes every filesystem: it counts for each of them;
 *   - fsync, fdatasync and syncfs go to one filesystem: a group's count for the filesystem it
 *     is bound to (bindfs), or for the only one;
 *   - a group that issued such calls but picks its filesystem at random among several makes
 *     the count unknown for every filesystem: no "per sync call" figure (null, with a reason).
 * A group's count is its timed calls or, when it does not time them, what its completed ops
 * issued (op_sync_calls; a sync or syncfs op one each), whichever is larger. */
struct results_flushes {
	const char *why;          /* no device counters at all: why (NULL: they are there) */
	const char *flush_why;    /* no flush count: why (NULL: flushes is valid) */
	uint64_t flushes;         /* flush requests of the device */
	double flushes_per_s;     /* NAN for a run of no time */
	bool syncs_known;         /* the sync calls could be attributed */
	uint64_t syncs;           /* sync calls that went to this filesystem (syncs_known) */
	const char *per_sync_why; /* no "per sync call": why (NULL: per_sync is valid) */
	double per_sync;          /* flushes / syncs */
};
void results_fs_flushes(const struct results *r, size_t fi, struct results_flushes *out);

/* results_phase_sums - the sums (results_sums) over the groups of phase ph, and each op's
 * operations done (ops_by_op, may be NULL). */
void results_phase_sums(const struct results *r, size_t ph, struct results_sums *out,
                        uint64_t ops_by_op[OP_COUNT]);

/* results_phase_op_lat - op's latency over the groups of phase ph (merged into out). */
void results_phase_op_lat(const struct results *r, size_t ph, int op, struct lat_stats *out);

/* results_group_runtime - the time group gi's rates are over: its phase's runtime in a run
 * with phases, else the run's. */
double results_group_runtime(const struct results *r, size_t gi);

/* results_stop_name - "time", "count", "error", "signal", "crashed", "stonewall", or NULL for
 * STOP_NONE. */
const char *results_stop_name(enum stop_reason why);

#endif
