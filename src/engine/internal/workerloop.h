/* workerloop.h - what a worker's loops share: worker.c's (iodepth 1, schedules, aging) and
 * worker_depth.c's (iodepth > 1): the checks before an operation (inline: the hot path) and
 * the accounting after it (worker_op.c). Included by those files only. */
#ifndef FSMIX_WORKERLOOP_H
#define FSMIX_WORKERLOOP_H

#include "engine_int.h"

/* worker_fs - the filesystem of w's next operation: its own (aging), its group's (bindfs),
 * the only one, or one of several: uniform, or with fidelity=ffsb6 FFSB's
 * getrandom(num_filesys) with its modulo bias (ffsb_tg.c:119). */
static inline struct engine_fs *worker_fs(struct worker *w)
{
	struct engine *e = w->eng;
	if (w->only_fs)
		return w->only_fs;
	if (w->g->bindfs >= 0)
		return &e->fs[w->g->bindfs];
	if (e->n_fs == 1)
		return e->fs;
	if (UNLIKELY(e->plan->fidelity == FIDELITY_FFSB6))
		return &e->fs[pick_ffsb_mod(&w->rng, (uint32_t)e->n_fs)];
	return &e->fs[rng_below(&w->rng, e->n_fs)];
}

/* worker_stops - before each operation: the run stops, or its time is over. No operation starts
 * after the deadline (written before the gate opened, on stop's cache line), whenever the main
 * thread wakes: the first worker to see it stops the run. */
static inline bool worker_stops(struct engine *e)
{
	if (engine_stopping(e))
		return true;
	if (e->deadline_ns && UNLIKELY(coarse_ns() >= e->deadline_ns)) {
		engine_stop(e, STOP_TIME);
		return true;
	}
	return false;
}

/* worker_skip_backoff - after a pick that found no file: spin a few times, then sleep, longer
 * with each consecutive skip (*streak, reset by any operation that ran). */
void worker_skip_backoff(struct engine *e, uint32_t *streak);
/* worker_log_op - an operation done (t0 .. t1, latency lat, response time resp), into the
 * --interval rows and the latency log; one of the ramp into neither log line. */
void worker_log_op(struct worker *w, enum op_id op, const struct op_result *r, bool ramping,
                   uint64_t t0, uint64_t t1, uint64_t lat, uint64_t resp);

/* worker_depth.c: iodepth > 1 */
/* worker_depth_make - w's iodepth slots: a fiber each (its stack, FIBER_STACK) and an I/O
 * buffer each, made once as the worker is made. 0, or -errno. */
int worker_depth_make(struct worker *w);
/* worker_depth_free - the slots unmapped and freed (none: nothing). */
void worker_depth_free(struct worker *w);
/* worker_depth_run - the worker's operations, up to iodepth in flight, until the run stops,
 * num_ops are started (every one of them then completes) or an error ends it; `ramping`: the
 * ramp is not over (ramp_time); arr: op_rate or op_period's schedule (NULL: none), its first
 * start at first_start; op_delay per slot; *left: the operations of num_ops it did not start
 * (0: its count is done, which a stonewall=1 group's worker_count_end needs). Returns whether
 * the ramp still is not over. */
struct arrival;
bool worker_depth_run(struct worker *w, bool ramping, struct arrival *arr, uint64_t first_start,
                      uint64_t *left);

#endif
