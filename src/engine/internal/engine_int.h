/* engine_int.h - what the engine's own files share (not for other layers: engine.h is the
 * engine's interface). One file per job:
 *   stop.c      stopping a run, and the sleeps a stop cuts short
 *   sigwatch.c  the signal watcher thread
 *   worker.c    a worker thread's loop (the hot path), making and freeing workers
 *   crew.c      starting workers together at the gate and joining them
 *   aging.c     agefs=1: ageing a filesystem before its files are built
 *   progress.c  interval rows merged over the workers: the status line, --interval rows
 *   durjournal.c --durability-log: the log, the tree as the run starts, the workers' records
 *   finish.c    after the run phase: figures into the results, errors, latency log, --cleanup
 *   run.c       the engine's life: init, setup, the run phase, engine_run, engine_clean
 *   crash.c     --crash-after: the filesystems shut down at a moment of the run phase
 */
#ifndef FSMIX_ENGINE_INT_H
#define FSMIX_ENGINE_INT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "failure.h"

/* stop.c */
/* engine_wait_until - wait until deadline_ns (CLOCK_MONOTONIC) or until the run stops. */
void engine_wait_until(struct engine *e, uint64_t deadline_ns);
/* engine_wake - wake every sleeper on the engine's condition variable (after e->stop is set). */
void engine_wake(struct engine *e);

/* crash.c */
/* engine_crash_check - with --crash-after (else nothing): before setup, every location must be
 * on ext4, xfs or f2fs (else FAIL_UNSUPPORTED), the process must hold CAP_SYS_ADMIN
 * (FAIL_UNSUPPORTED) and the moment must be before the run's end (FAIL_INPUT); e->crash_ns is
 * the moment drawn (random:S, from the run's seed) or given. Message in err. */
enum failure engine_crash_check(struct engine *e, char *err, size_t errlen);
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

/* worker_main - a worker thread (its argument is the struct worker). */
void *worker_main(void *arg);
/* worker_new - a worker of group g (index gi); NULL with err when out of memory. */
struct worker *worker_new(struct engine *e, const struct plan_group *g, size_t gi,
                          const struct pick_table *ops, const struct range_table *ranges,
                          unsigned index, char *err, size_t errlen);
void worker_free(struct worker *w);

/* run.c */
/* engine_pick_ops - the operation table of group g: its weights, or with fidelity=ffsb6 the
 * shares FFSB 6.0's biased pick gives them (pick_ffsb_weights). 0 or -errno. */
int engine_pick_ops(const struct plan *pl, const struct plan_group *g, struct pick_table *t);

/* crew.c */
/* crew_start - start a thread for each of the n workers of ws, held at the gate; 0, or -1
 * with err (the started ones are stopped and joined). */
int crew_start(struct engine *e, struct worker **ws, size_t n, const char *what, char *err,
               size_t errlen);
/* crew_release - open the gate: every worker waiting there starts at once. */
void crew_release(struct engine *e);
/* crew_join - join the n workers of ws. */
void crew_join(struct worker **ws, size_t n);

/* aging.c */
/* age_fs - age fs to its desired_util before its files are built (agefs=1; populate_fs's aging
 * step, a populate_age_fn of populate.h). FAIL_NONE, or with err FAIL_IO or FAIL_INTERRUPTED. */
enum failure age_fs(struct engine *e, struct engine_fs *fs, char *err, size_t errlen);

/* progress.c */
/* engine_progress_line - draw the live status line on the log (a terminal). */
void engine_progress_line(struct engine *e, uint64_t deadline);
/* engine_merge_intervals - the --interval rows of group gi (SIZE_MAX: all) merged; NULL when
 * out of memory. The caller frees them. */
struct interval_row *engine_merge_intervals(struct engine *e, size_t gi, size_t *n_out);

/* durjournal.c: --durability-log */
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
