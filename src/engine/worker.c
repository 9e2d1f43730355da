/* worker.c - one worker thread: the loop that picks and runs operations and records them in the
 * worker's own statistics (the hot path); the operation table a group's workers pick from, and
 * making and freeing a worker. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <time.h>

#include "engine.h"
#include "arrival.h"
#include "engine_int.h"
#include "interval.h"
#include "ioengine.h"
#include "opseq.h"
#include "workerloop.h"

/* Aging: reserve what op may add from the round's credit. Returns the bytes reserved (0 for
 * an op that adds none), or -1 when the credit does not cover it (or, for an op that adds
 * nothing, when the round is over). The reservation enters
 * age_inflight before it leaves the credit, so the main thread, which reads the credit first,
 * never sees a round as finished while a write it granted is still to come. */
static int64_t age_reserve(struct worker *w, enum op_id op)
{
	struct engine *e = w->eng;
	int64_t want = w->age_bytes[op];
	if (!want) /* adds nothing, but waits for a round like the others: deletes alone would
	            * shrink the tree while the creates wait */
		return atomic_load(&e->age_credit) >= e->age_min ? 0 : -1;
	atomic_fetch_add(&e->age_inflight, want);
	int64_t c = atomic_load(&e->age_credit);
	do {
		if (c < want) {
			atomic_fetch_sub(&e->age_inflight, want);
			return -1;
		}
	} while (!atomic_compare_exchange_weak(&e->age_credit, &c, c - want));
	return want;
}

/* A descriptor table of the worker's own: a copy of the process's, made before the start gate
 * opens. With the table shared, the kernel takes and drops a reference on the directory's file
 * for every *at() call and on the file for every read() or write() (~20 ns a call, and a lock
 * on the file position), and every worker's opens and closes take the table's one lock; with a
 * table of its own it does neither. The copy holds every descriptor the operations use (the
 * tree's, opened during setup); the worker's own files are opened and closed by the worker.
 * One the main thread closes later stays open in the copy until the worker exits, and the main
 * thread closes nothing the workers hold before they are joined. Best effort: where unshare is
 * refused (a seccomp filter) the table stays shared. Not under ThreadSanitizer, which models one
 * table per process (the same number opened and closed in two tables would look like a race on
 * one descriptor); build.c's builders do the same. Nor with sqpoll=1: the ring's polling thread
 * opens and closes the worker's files in the table it was made with (the process's), and a
 * call the worker makes itself (one without an opcode) must find them there. */
static void worker_own_fds(const struct plan_group *g)
{
	if (!FSMIX_TSAN && !g->sqpoll)
		(void)unshare(CLONE_FILES);
}

/* A scheduled group after an operation whose scheduled start was `slot`: the next start, with
 * the starts that passed meanwhile counted (and, when the operation was timed, `resp` its
 * response time, recorded with them). */
static uint64_t next_start(struct worker *w, struct arrival *arr, uint64_t slot, uint64_t resp)
{
	if (w->g->arrival_backlog == BACKLOG_QUEUE) {
		/* queued: every start follows the one before; one that passed meanwhile is
		 * served when the thread is free (queue_start), none is skipped here */
		if (resp && w->time_ops)
			stats_resp_record(&w->st, resp, 0, 0, arr->period_ns);
		return slot + arrival_gap(arr);
	}
	uint64_t now = now_ns(), missed, first_missed;
	uint64_t next = arrival_next(arr, slot, now, &missed, &first_missed);
	if (resp && w->time_ops)
		/* The starts skipped (first_missed .. next) passed while this op ran: each
		 * waited until now (coordinated omission, corrected). */
		stats_resp_record(&w->st, resp, missed, missed ? now - first_missed : 0,
		                  arr->period_ns);
	else
		w->st.missed_starts += missed;
	return next;
}

/* arrival_backlog=queue, the thread free for its next start `slot` (not its first): the
 * backlog trimmed to its bound, arrival_backlog_max periods of lateness (the starts older
 * than that dropped, counted as missed starts, each one response sample: its wait until now),
 * then a start that has passed counted as late; it is served at once, and its response time
 * runs from slot (coordinated omission: the wait behind the earlier ones counts). *late: it
 * passed (no wait, so no lock taken: an overloaded group runs lock-free). */
static uint64_t queue_start(struct worker *w, struct arrival *arr, uint64_t slot, bool *late)
{
	uint64_t now = now_ns();
	*late = false;
	if (now <= slot)
		return slot;
	uint64_t max_late = arrival_backlog_ns(w->g->arrival_backlog_max, arr->period_ns);
	if (now - slot > max_late) {
		uint64_t dropped, oldest = now - slot;
		slot = arrival_trim(arr, slot, now - max_late, &dropped);
		w->st.backlog_full++;
		stats_resp_missed(&w->st, dropped, w->time_ops ? oldest : 0, arr->period_ns);
	}
	FSMIX_ASSERT(slot >= now || now - slot <= max_late); /* the backlog within its bound */
	if (slot < now) {
		w->st.late_starts++;
		*late = true;
	}
	return slot;
}

/* A scheduled thread before a start: waits for *slot (arrival_backlog=queue: trims the
 * backlog, and a start that passed is not waited for, queue_start). False when the run stops. */
static bool await_start(struct worker *w, struct arrival *arr, uint64_t *slot, bool *first)
{
	bool late = false;
	if (w->g->arrival_backlog == BACKLOG_QUEUE && !*first)
		*slot = queue_start(w, arr, *slot, &late);
	*first = false;
	if (!late)
		engine_wait_until(w->eng, *slot);
	return !engine_stopping(w->eng);
}

/* A worker of a counted group (num_ops) ends, `done` its count or stopped before. The last
 * one to end stops the run (or its phase); with stonewall=1 the first one done does (mdtest
 * -W): every other thread sees the flag before its next operation (no lock per operation), and
 * a sleeping one (op_delay, a schedule) is woken. */
static void worker_count_end(struct engine *e, const struct plan_group *g, bool done)
{
	if (done && g->stonewall)
		engine_stop(e, STOP_STONEWALL);
	if (atomic_fetch_sub(&e->counting, 1) == 1)
		engine_stop(e, STOP_COUNT); /* the last count-limited worker is done */
}

void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct engine *e = w->eng;
	const struct plan_group *g = w->g;
	const bool go_on = e->opts->continue_on_error;
	const bool timing = w->time_ops || w->ll;      /* op latency is needed */
	const uint64_t period_ns = g->sched_period_ns; /* op_period or op_rate, 0: none */
	uint64_t left = g->num_ops;                    /* 0: no limit */
	uint32_t skip_streak = 0;                      /* consecutive picks that found no file */
	uint64_t resp_pending = 0; /* op_period: the response time of the op just done, ns */
	bool first = true;         /* the schedule's first start */
	bool ramping = e->plan->ramp_s && !w->aging; /* ramp_time: nothing counts yet */

	worker_own_fds(g);
	gate_wait(&e->gate);
	w->t_start = now_ns();
	if (w->ival) /* e->t_base was written before the gate opened */
		ival_init(w->ival, e->t_base, e->ival_len_ns);
	struct arrival arr;
	arrival_init(&arr, period_ns, g->arrival == ARRIVAL_POISSON, e->seed, w->index);
	uint64_t slot = w->t_start + (uint64_t)g->start_delay_ms * 1000000u;
	if (g->start_delay_ms)
		engine_wait_until(e, slot);
	if (w->iodepth > 1) /* the schedule and op_delay at depth: worker_depth.c; no aging */
		ramping = worker_depth_run(w, ramping, period_ns ? &arr : NULL, slot, &left);
	while (w->iodepth == 1 && !worker_stops(e)) {
		if (period_ns && !await_start(w, &arr, &slot, &first))
			break;
		/* ramp_time: one clock read per operation during the ramp only, right before the
		 * operation (after any wait for its slot) */
		if (UNLIKELY(ramping) && now_ns() >= e->ramp_end_ns) {
			worker_ramp_done(w);
			ramping = false;
		}
		enum op_id op = (enum op_id)pick_one(w->ops, &w->rng);
		struct engine_fs *fs = worker_fs(w);
		int64_t reserved = 0;
		if (UNLIKELY(w->aging)) {
			/* Keep the op picked until the credit covers it (picking again would favour
			 * the small ops and skew the mix); the main thread measures meanwhile. */
			while ((reserved = age_reserve(w, op)) < 0 && !engine_stopping(e))
				engine_sleep_ms(e, 1);
			if (reserved < 0)
				break;
		}
		struct op_result r = {0};
		uint64_t t0 = 0, lat = 0;
		w->op_sync_ns = 0;
		if (w->shared_clock)
			w->op_t0 = 0;
		else if (timing)
			t0 = now_ns();
		int rc = op_execute(w, fs, op, &r);
		if (UNLIKELY(reserved))
			atomic_fetch_sub(&e->age_inflight, reserved);
		if (LIKELY(rc == 0)) {
			skip_streak = 0;
			uint64_t t1 = 0;
			if (w->shared_clock) {
				t1 = w->last_ts;
				t0 = w->op_t0;
				lat = t1 - w->op_t0;
			} else if (timing) {
				t1 = now_ns();
				lat = t1 - t0;
			}
			if (lat && w->time_ops)
				stats_op_record(&w->st, op, lat);
			/* Response time: from the op's scheduled start (op_period), so a stall that
			 * delays it counts; without a schedule it is the service time. */
			uint64_t resp = lat;
			if (period_ns && lat) {
				resp = t1 > slot ? t1 - slot : 0;
				resp = resp > lat ? resp : lat;
				resp_pending = resp;
			}
			worker_count_done(w, op, &r);
			if (w->ival || w->ll)
				worker_log_op(w, op, &r, ramping, t0, t1, lat, resp);
		} else if (rc == OP_SKIPPED || rc == OP_BUSY) {
			if (rc == OP_BUSY)
				w->st.busy[op]++; /* every file held by others: not an empty set */
			else
				w->skipped[op]++;
			if (!period_ns) /* a scheduled group sleeps until its next slot anyway */
				worker_skip_backoff(e, &skip_streak);
		} else if (UNLIKELY(engine_crashed(e))) {
			w->failed_after_crash++; /* --crash-after: expected, not an error */
			break;
		} else { /* -errno: the first failure is latched in w->err (opexec.c) */
			skip_streak = 0;
			w->st.errors[op]++;
			if (!go_on) {
				engine_stop(e, STOP_ERROR);
				break;
			}
		}
		if (period_ns) {
			slot = next_start(w, &arr, slot, resp_pending);
			resp_pending = 0;
		}
		if (left && --left == 0)
			break; /* num_ops done (ok, skipped or failed: every attempt counts) */
		if (g->op_delay_ms)
			engine_sleep_ms(e, g->op_delay_ms);
	}
	if (UNLIKELY(ramping)) /* stopped during the ramp: nothing was counted */
		worker_ramp_done(w);
	w->t_end = now_ns();
	seq_finish(w); /* sequence_hold: the file it kept open */
	if (w->ival)
		ival_finish(w->ival, w->t_end);
	if (g->num_ops)
		worker_count_end(e, g, left == 0);
	return NULL;
}

int worker_pick_ops(const struct plan *pl, const struct plan_group *g, struct pick_table *t)
{
	uint64_t w[OP_COUNT], eff[OP_COUNT];
	for (int op = 0; op < OP_COUNT; op++) /* a sequence's steps: run by OP_sequence */
		w[op] = (op_table[op].flags & OPF_STEP) ? 0 : g->weight[op];
	if (pl->fidelity == FIDELITY_FFSB6) {
		int rc = pick_ffsb_weights(w, OP_COUNT, false, eff);
		return rc ? rc : pick_build(t, eff, OP_COUNT);
	}
	return pick_build(t, w, OP_COUNT);
}

static size_t round4k(uint64_t v)
{
	return (size_t)((v + 4095) & ~(uint64_t)4095);
}

/* A worker lives in one anonymous mapping of its own: the struct (its statistics, 37 latency
 * series of 20 KB each, are most of it; their dense buckets stay unwritten) rounded up to a page,
 * its I/O buffer (reads, writes and the content=header pattern: opexec.c), then the compact
 * histograms its samples go to (chist.h).
 * Nothing of it is written in advance: the kernel gives zero pages on first touch, so a worker
 * costs the memory of the pages it writes: the counters and moments, the histogram chunks where
 * its latencies land, the part of the buffers its reads and writes use (every write fills the
 * bytes it writes, content.h). MAP_NORESERVE: the address space is not charged as committed memory
 * either. Making a worker is one mmap (start-up only), never a page fault per operation beyond the
 * first touch of each page. */
static size_t worker_head_len(void)
{
	return round4k(sizeof(struct worker));
}

size_t worker_buf_len(const struct plan_group *g)
{
	uint64_t bs =
	    g->read_blocksize > g->write_blocksize ? g->read_blocksize : g->write_blocksize;
	uint64_t mix = iosize_max(&g->wmix) > iosize_max(&g->rmix) ? iosize_max(&g->wmix)
	                                                           : iosize_max(&g->rmix);
	if (mix > bs) /* write_bssplit ...: the largest call a mix can draw */
		bs = mix;
	return round4k(bs ? bs : 4096);
}

/* The mapping: head, buffer (buf_len + 512 bytes used, in buf_len + 4096), arena. */
static size_t worker_map_len(size_t buf_len)
{
	return worker_head_len() + buf_len + 4096 + round4k(sizeof(struct stats_arena));
}

/* A worker of group g (index gi in plan.groups, or the aging group of a filesystem with
 * ops/ranges given explicitly). */
struct worker *worker_new(struct engine *e, const struct plan_group *g, size_t gi,
                          const struct pick_table *ops, const struct range_table *ranges,
                          unsigned index, enum failure *fail, char *err, size_t errlen)
{
	size_t buf_len = worker_buf_len(g);
	*fail = FAIL_IO;
	size_t map_len = worker_map_len(buf_len);
	void *map = mmap(NULL, map_len, PROT_READ | PROT_WRITE,
	                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (map == MAP_FAILED) {
		snprintf(err, errlen, "out of memory for worker %u (%zu-byte buffer): %s", index,
		         buf_len, strerror(errno));
		return NULL;
	}
	struct worker *w = map; /* all zero */
	w->eng = e;
	w->g = g;
	w->ops = ops;
	w->index = index;
	w->group = (unsigned)gi;
	rng_seed(&w->rng, e->seed, index);
	w->buf_len = buf_len;
	w->buf = (char *)map + worker_head_len(); /* page-aligned, as O_DIRECT needs */
	/* reads into the engine's sinks when nobody checks them and they are large enough (the
	 * run phase's workers; the aging workers read into their own buffers) */
	w->rbuf = !e->plan->verify && e->sink && e->sink_len >= buf_len ? NULL : w->buf;
	struct stats_arena *arena = (void *)(w->buf + buf_len + 4096); /* page-aligned, zero */
	if (thread_stats_init_zeroed(&w->st, ranges) ||
	    (g->sched_period_ns && thread_stats_track_response(&w->st))) {
		snprintf(err, errlen, "out of memory for worker %u (statistics)", index);
		thread_stats_free(&w->st);
		munmap(map, map_len);
		return NULL;
	}
	thread_stats_use_arena(&w->st, arena);
	w->time_ops = g->enable_stats;
	w->verify = e->plan->verify;
	w->shared_clock = g->enable_stats && !g->ignore_mask;
	for (int s = 0; s < SYS_COUNT; s++)
		w->timed[s] = g->enable_stats && !(g->ignore_mask & (1u << s));
	/* The engine's state: made here, in the main thread, where a failure is an error of the
	 * setup (io_engine_check ran before, so the engine is in this build). The worker's
	 * first call from its own thread, after worker_own_fds, binds it to that thread. */
	w->io = io_engine_of(g->io_engine);
	w->iodepth = g->iodepth > 1 ? g->iodepth : 1;
	w->share_writes = g->shared_writes && w->iodepth > 1;
	char why[MSG_MAX] = "";
	int rc = 0, io_rc = 0;
	if (!w->io || (w->io->setup && (io_rc = w->io->setup(w, why, sizeof(why)))) ||
	    (w->iodepth > 1 && (rc = worker_depth_make(w)))) {
		if (rc)
			snprintf(why, sizeof(why), "out of memory for %u operations in flight: %s",
			         w->iodepth, strerror(-rc));
		if (rc && w->io->teardown)
			w->io->teardown(w);
		/* the engine's state refused (a ring the kernel will not make here: a descriptor
		 * or memory limit, io_uring disabled, a seccomp filter) is the environment's
		 * failure, before the run starts; out of memory for the fibers is the run's */
		const char *ename = io_rc < 0 ? strerrorname_np(-io_rc) : NULL;
		*fail = rc ? FAIL_IO : FAIL_UNSUPPORTED;
		snprintf(err, errlen, "%s: worker %u: engine=%s: %s%s%s%s", g->name, index,
		         io_engine_word(g->io_engine), w->io ? why : "not in this build",
		         ename ? " (" : "", ename ? ename : "", ename ? ")" : "");
		thread_stats_free(&w->st);
		munmap(map, map_len);
		return NULL;
	}
	return w;
}

void worker_free(struct worker *w)
{
	if (!w)
		return;
	if (w->ival) {
		ival_free(w->ival);
		free(w->ival);
	}
	if (w->ll) {
		latlog_buf_free(w->ll);
		free(w->ll);
	}
	worker_depth_free(w);
	if (w->io && w->io->teardown)
		w->io->teardown(w);
	thread_stats_free(&w->st);
	munmap(w, worker_map_len(w->buf_len));
}
