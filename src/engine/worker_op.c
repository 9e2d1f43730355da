/* worker_op.c - what a worker does around its operations, at any depth (worker.c, iodepth 1;
 * worker_depth.c, iodepth > 1; workerloop.h): the back-off after a pick that found no file,
 * the end of the ramp, an operation's line in the --interval rows and the latency log. */
#include <string.h>
#include <time.h>

#include "engine.h"
#include "engine_int.h"
#include "interval.h"
#include "workerloop.h"

/* A pick that found no file (its file set is empty, or every file is busy): back off, so a
 * group that can do nothing does not burn a CPU spinning through picks. The first few retries
 * are immediate (another worker's create may be about to land); then the worker sleeps 1 us,
 * doubling up to SKIP_SLEEP_MAX_NS. Short sleeps are a plain nanosleep (no shared lock); long
 * ones wait on the engine's condition variable, so a stop wakes them. *streak counts the
 * consecutive skips and is reset by any operation that ran. */
#define SKIP_SPIN         4
#define SKIP_SLEEP_MAX_NS 4000000u /* 4 ms: the most a stop or a new file waits */
void worker_skip_backoff(struct engine *e, uint32_t *streak)
{
	uint32_t n = ++*streak;
	if (n <= SKIP_SPIN)
		return;
	uint32_t shift = n - SKIP_SPIN - 1;
	uint64_t ns = shift >= 12 ? SKIP_SLEEP_MAX_NS : 1000ull << shift;
	if (ns > SKIP_SLEEP_MAX_NS)
		ns = SKIP_SLEEP_MAX_NS;
	if (ns < 1000000u) {
		struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)ns};
		nanosleep(&ts, NULL);
	} else {
		engine_wait_until(e, now_ns() + ns);
	}
}

/* Called by the worker between two operations, so every operation counts whole or not at all:
 * one counts when it starts at or after the ramp's end (e->ramp_end_ns), by the worker's own
 * clock read before it. The first error stays latched (a failure during the ramp still fails
 * the run). Once per worker. */
void worker_ramp_done(struct worker *w)
{
	thread_stats_reset(&w->st);
	memset(w->skipped, 0, sizeof(w->skipped));
	atomic_store_explicit(&w->done_ops, 0, memory_order_relaxed);
	atomic_store_explicit(&w->done_trans, 0, memory_order_relaxed);
	w->t_start = now_ns();
}

/* An operation done, into the --interval rows and the latency log. One of the ramp (ramp_time)
 * that ends after it goes into the ramp's last row, and into no log line. */
void worker_log_op(struct worker *w, enum op_id op, const struct op_result *r, bool ramping,
                   uint64_t t0, uint64_t t1, uint64_t lat, uint64_t resp)
{
	struct engine *e = w->eng;
	if (w->ival) {
		uint64_t at = t1 ? t1 : now_ns();
		if (UNLIKELY(ramping) && at >= e->ramp_end_ns)
			at = e->ramp_end_ns - 1;
		ival_add(w->ival, at, r->trans, r->bytes_read + r->bytes_written,
		         w->time_ops ? lat : 0);
	}
	if (w->ll && !ramping)
		latlog_add(w->ll, t0 - e->t_base, op_table[op].name, lat,
		           r->bytes_read + r->bytes_written, w->op_sync_ns, resp);
}
