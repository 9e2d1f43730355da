/* worker_depth.c - a worker at iodepth N > 1 (engine=io_uring; docs/engines.md): up to N of its
 * operations in flight at once, each on a fiber of its own (fiber.h), the bodies unchanged.
 *
 * Each slot is a fiber that runs operations one after another, as a depth-1 worker does; a
 * call of its operation (the engine's entry, on the fiber) prepares a submission and yields.
 * The worker's loop (worker_depth_run, on the thread's own stack) resumes every runnable
 * fiber, each until its operation's next call or its end, so up to N operations reach a call;
 * then the engine submits those calls with one io_uring_enter and waits for at least one
 * completion (reap), and each completion resumes its fiber with its result.
 *
 * What the bodies keep in struct worker per operation (the clock of its latency, op_t0 and
 * last_ts; op_sync_ns; the durability hook's dl_t0 and dl_t1; the I/O buffer and its content
 * pattern, buf, rbuf and pat_*; a sequence's open file, seq) is the running fiber's: loaded from
 * its slot before it is resumed and saved back when it yields (slot_load, slot_save), so each
 * operation has its own while the others run. The rest is the worker's, shared by its fibers, which
 * run one at a time on its thread: the statistics, the random stream, the first error, the skips.
 * The file positions are the engine's, by descriptor. A file held by one fiber (the pool's locks
 * are held across switches) is busy for the others, as for another thread.
 *
 * A schedule (op_rate, op_period) is the worker's, as at depth 1: one series of intended starts,
 * which its slots share. A slot done with an operation waits for a start (SLOT_START); the loop
 * gives each start that is due to a waiting slot, and while none is due it waits for completions
 * until the next start (the engine's reap with a deadline), never sleeping with completions
 * unreaped. A start that passes while every slot is busy is late: arrival_backlog=drop skips it
 * (a missed start, one response sample of its wait, as at depth 1); queue serves it when a slot
 * is free, its response time counted from the start it was meant to have, the backlog bounded
 * by arrival_backlog_max as at depth 1. op_delay is each slot's: a slot waits that long after its
 * operation before its next (SLOT_SLEEP), the others going on meanwhile: iodepth closed-loop
 * users, each with its think time (docs/engines.md says why not fio's thinktime). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "arrival.h"
#include "check.h"
#include "engine.h"
#include "engine_int.h"
#include "fiber.h"
#include "ioengine.h"
#include "workerloop.h"

enum slot_state {
	SLOT_RUN,   /* to be resumed */
	SLOT_CALL,  /* its call in flight */
	SLOT_IDLE,  /* waits for the next completions (YIELD_IDLE) */
	SLOT_START, /* waits for a start of the schedule (YIELD_START) */
	SLOT_SLEEP, /* op_delay after its operation (YIELD_SLEEP) */
	SLOT_DONE
};

/* What a slot's fiber yields besides IO_YIELD_CALL and YIELD_IDLE: it waits for a start (resumed
 * with the start, ns, or 0 when the run stops), or for the end of its op_delay (wake). */
#define YIELD_START 3
#define YIELD_SLEEP 4

/* The worker's loop, as its fibers see it (on the worker thread's stack while it runs). */
struct depth_loop {
	uint64_t left;      /* num_ops: operations still to start; 0 with !limited: no limit */
	bool limited;       /* num_ops is set */
	bool ramping;       /* ramp_time: nothing counts yet */
	bool go_on;         /* --continue-on-error */
	bool timing;        /* op latency is needed */
	bool stop;          /* no fiber starts another operation (an error, a crash, num_ops) */
	uint32_t in_flight; /* fibers waiting for a call */
	uint32_t skip_streak;
	/* op_rate, op_period: the worker's schedule (NULL: none) and its next intended start */
	struct arrival *arr;
	uint64_t next;
	uint64_t free_since; /* waiting > 0: since when a slot has waited for a start, unbroken */
	uint32_t waiting;    /* slots waiting for a start */
	uint64_t delay_ns;   /* op_delay, per slot; 0: none */
};

struct depth_slot {
	struct fiber fib; /* first: reap's fiber is its slot */
	struct worker *w;
	struct depth_loop *loop;
	int64_t result; /* what the next resume passes (a call's result) */
	enum slot_state state;
	bool ramping;   /* its operation started during the ramp */
	uint64_t start; /* a schedule: its operation's intended start, ns */
	uint64_t wake;  /* SLOT_SLEEP: when its op_delay ends, ns */
	/* struct worker's per-operation fields while the fiber waits (see above) */
	uint64_t op_t0, last_ts, op_sync_ns, dl_t0, dl_t1, pat_seed;
	size_t pat_lo, pat_hi;
	bool pat_ready;
	char *buf, *rbuf;
	struct seq_state seq; /* sequence=: the file its sequence keeps open between steps */
};

/* The slots' I/O buffers: one mapping, each buffer buf_len + 512 bytes used in buf_len + 4096
 * (as the worker's own, worker.c), page-aligned (O_DIRECT); only the pages written are memory. */
static size_t bufs_len(const struct worker *w)
{
	return (size_t)w->iodepth * (w->buf_len + 4096);
}

int worker_depth_make(struct worker *w)
{
	w->slots = calloc(w->iodepth, sizeof(*w->slots));
	w->share = w->share_writes ? calloc(w->iodepth, sizeof(*w->share)) : NULL;
	if (!w->slots || (w->share_writes && !w->share)) {
		free(w->slots);
		free(w->share);
		w->slots = NULL;
		w->share = NULL;
		return -ENOMEM;
	}
	char *bufs = mmap(NULL, bufs_len(w), PROT_READ | PROT_WRITE,
	                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (bufs == MAP_FAILED) {
		int rc = -errno;
		free(w->slots);
		free(w->share);
		w->share = NULL;
		w->slots = NULL;
		return rc;
	}
	for (uint32_t i = 0; i < w->iodepth; i++) {
		struct depth_slot *s = &w->slots[i];
		int rc = fiber_make(&s->fib, FIBER_STACK);
		if (rc) {
			while (i--)
				fiber_free(&w->slots[i].fib);
			munmap(bufs, bufs_len(w));
			free(w->slots);
			free(w->share);
			w->share = NULL;
			w->slots = NULL;
			return rc;
		}
		s->w = w;
		s->buf = bufs + (size_t)i * (w->buf_len + 4096);
		s->rbuf = w->rbuf ? s->buf : NULL; /* its own, or the read sinks as the worker's */
	}
	return 0;
}

void worker_depth_free(struct worker *w)
{
	if (!w->slots)
		return;
	for (uint32_t i = 0; i < w->iodepth; i++)
		fiber_free(&w->slots[i].fib);
	munmap(w->slots[0].buf, bufs_len(w));
	free(w->slots);
	free(w->share);
	w->share = NULL;
	w->slots = NULL;
}

static void slot_load(struct worker *w, const struct depth_slot *s)
{
	w->op_t0 = s->op_t0;
	w->last_ts = s->last_ts;
	w->op_sync_ns = s->op_sync_ns;
	w->dl_t0 = s->dl_t0;
	w->dl_t1 = s->dl_t1;
	w->buf = s->buf;
	w->rbuf = s->rbuf;
	w->pat_seed = s->pat_seed;
	w->pat_lo = s->pat_lo;
	w->pat_hi = s->pat_hi;
	w->pat_ready = s->pat_ready;
	w->seq = s->seq;
}

static void slot_save(const struct worker *w, struct depth_slot *s)
{
	s->op_t0 = w->op_t0;
	s->last_ts = w->last_ts;
	s->op_sync_ns = w->op_sync_ns;
	s->dl_t0 = w->dl_t0;
	s->dl_t1 = w->dl_t1;
	s->pat_seed = w->pat_seed;
	s->pat_lo = w->pat_lo;
	s->pat_hi = w->pat_hi;
	s->pat_ready = w->pat_ready;
	s->seq = w->seq;
}

/* Before a fiber's next operation: false when it is to end (the run stops, num_ops are all
 * started, the worker stopped); the ramp's end noticed here, as at depth 1. */
static bool slot_take(struct worker *w, struct depth_loop *L)
{
	if (L->stop || worker_stops(w->eng))
		return false;
	if (UNLIKELY(L->ramping) && now_ns() >= w->eng->ramp_end_ns) {
		worker_ramp_done(w); /* the operations of the ramp still in flight count nowhere */
		L->ramping = false;
	}
	if (L->limited) {
		if (!L->left)
			return false;
		L->left--;
	}
	return true;
}

/* An operation that completed: its latency, counts and log lines, as worker_main's. */
static void slot_done(struct depth_slot *s, enum op_id op, const struct op_result *r, uint64_t t0)
{
	struct worker *w = s->w;
	struct depth_loop *L = s->loop;
	uint64_t t1 = 0, lat = 0;
	if (w->shared_clock) {
		t1 = w->last_ts;
		t0 = w->op_t0;
		lat = t1 - t0;
	} else if (L->timing) {
		t1 = now_ns();
		lat = t1 - t0;
	}
	if (lat && w->time_ops)
		stats_op_record(&w->st, op, lat);
	/* Response time: from the intended start, so a wait for a slot counts (as at depth 1) */
	uint64_t resp = lat;
	if (L->arr && lat) {
		resp = t1 > s->start && t1 - s->start > lat ? t1 - s->start : lat;
		if (w->time_ops)
			stats_resp_record(&w->st, resp, 0, 0, L->arr->period_ns);
	}
	worker_count_done(w, op, r);
	if (w->ival || w->ll)
		worker_log_op(w, op, r, L->ramping, t0, t1, lat, resp);
}

/* One operation on slot s's fiber (worker_main's loop body without aging; when scheduled, its
 * start already given, s->start). False when the fiber is to end (a crash, an error that stops
 * the run). */
static bool slot_op(struct depth_slot *s)
{
	struct worker *w = s->w;
	struct depth_loop *L = s->loop;
	struct engine *e = w->eng;
	enum op_id op = (enum op_id)pick_one(w->ops, &w->rng);
	struct engine_fs *fs = worker_fs(w);
	struct op_result r = {0};
	uint64_t t0 = 0;
	s->ramping = L->ramping;
	w->op_sync_ns = 0;
	if (w->shared_clock)
		w->op_t0 = 0;
	else if (L->timing)
		t0 = now_ns();
	int rc = op_execute(w, fs, op, &r);
	/* started during the ramp, done after its statistics were reset: counts nowhere, as an
	 * operation that straddles the ramp's end at depth 1 counts in the ramp only */
	bool counts = !s->ramping || L->ramping;
	if (LIKELY(rc == 0)) {
		L->skip_streak = 0;
		if (counts)
			slot_done(s, op, &r, t0);
	} else if (rc == OP_SKIPPED || rc == OP_BUSY) {
		if (counts && rc == OP_BUSY)
			w->st.busy[op]++;
		else if (counts)
			w->skipped[op]++;
		if (!L->arr) { /* a scheduled slot waits for its next start anyway */
			if (L->in_flight)
				(void)fiber_yield(&s->fib, YIELD_IDLE);
			else
				worker_skip_backoff(e, &L->skip_streak);
		}
	} else if (UNLIKELY(engine_crashed(e))) {
		w->failed_after_crash++;
		return !(L->stop = true);
	} else {
		L->skip_streak = 0;
		if (counts)
			w->st.errors[op]++;
		if (!L->go_on) {
			engine_stop(e, STOP_ERROR);
			return !(L->stop = true);
		}
	}
	return true;
}

/* A scheduled slot: waits for a start of the schedule (given by the loop's depth_timers). False
 * when the run stops first. */
static bool slot_await(struct depth_slot *s)
{
	s->start = (uint64_t)fiber_yield(&s->fib, YIELD_START);
	return s->start != 0;
}

static void slot_main(void *arg)
{
	struct depth_slot *s = arg;
	struct depth_loop *L = s->loop;
	while (slot_take(s->w, L) && (!L->arr || slot_await(s)) && slot_op(s))
		if (L->delay_ns) { /* op_delay: this slot's pause; the others go on */
			s->wake = now_ns() + L->delay_ns;
			(void)fiber_yield(&s->fib, YIELD_SLEEP);
		}
}

/* Runs slot s's fiber until it yields or ends; its new state. */
static void slot_resume(struct worker *w, struct depth_slot *s)
{
	struct depth_loop *L = s->loop;
	slot_load(w, s);
	w->fiber = &s->fib;
	w->slot_now = (uint32_t)(s - w->slots);
	int64_t v = fiber_resume(&s->fib, s->result);
	w->fiber = NULL;
	slot_save(w, s);
	if (fiber_done(&s->fib)) {
		s->state = SLOT_DONE;
	} else if (v == IO_YIELD_CALL) {
		s->state = SLOT_CALL;
		L->in_flight++;
	} else if (v == YIELD_START) {
		s->state = SLOT_START;
		if (!L->waiting++) /* a slot's first wait: free since the worker began */
			L->free_since = s->start ? now_ns() : 0;
	} else if (v == YIELD_SLEEP) {
		s->state = SLOT_SLEEP;
	} else {
		s->state = SLOT_IDLE;
	}
}

/* A scheduled worker: its next start that a free slot may take at `now`, or 0 when none is due.
 * The starts that passed while every slot was busy (before free_since) are late: with
 * arrival_backlog=drop skipped, each counted as missed with one response sample (its wait until
 * now), as at depth 1 (next_start); with queue kept and counted late, the backlog trimmed to
 * arrival_backlog_max periods of lateness (the older starts dropped and counted), as at depth 1
 * (queue_start). */
static uint64_t sched_take(struct worker *w, struct depth_loop *L, uint64_t now)
{
	struct arrival *arr = L->arr;
	const bool queue = w->g->arrival_backlog == BACKLOG_QUEUE;
	while (L->next <= now) {
		uint64_t start = L->next, dropped;
		if (!queue && start < L->free_since) {
			L->next = arrival_trim(arr, start, L->free_since, &dropped);
			stats_resp_missed(&w->st, dropped, w->time_ops ? now - start : 0,
			                  arr->period_ns);
			continue;
		}
		uint64_t max_late = arrival_backlog_ns(w->g->arrival_backlog_max, arr->period_ns);
		if (queue && now - start > max_late) {
			L->next = arrival_trim(arr, start, now - max_late, &dropped);
			w->st.backlog_full++;
			stats_resp_missed(&w->st, dropped, w->time_ops ? now - start : 0,
			                  arr->period_ns);
			continue;
		}
		if (start < L->free_since) /* queue: it waited for a slot */
			w->st.late_starts++;
		L->next = start + arrival_gap(arr);
		return start;
	}
	return 0;
}

/* A scheduled or delayed worker between rounds: the slots whose start is due (sched_take) or
 * whose op_delay is over made runnable; when the run stops, every waiting slot (to end).
 * Returns 1 when a slot became runnable (to run before any wait), else when the next start or
 * op_delay's end is (0: none, nothing waits for a time). */
static uint64_t depth_timers(struct worker *w, struct depth_loop *L)
{
	const bool stop = L->stop || worker_stops(w->eng);
	const uint64_t now = now_ns();
	uint64_t until = 0;
	bool ran = false;
	for (uint32_t i = 0; i < w->iodepth; i++) {
		struct depth_slot *s = &w->slots[i];
		if (s->state == SLOT_START) {
			uint64_t start = stop ? 0 : sched_take(w, L, now);
			if (!stop && !start)
				continue; /* none due: it waits on */
			L->waiting--;
			s->result = (int64_t)start; /* the start given, or 0: the run stops */
		} else if (s->state == SLOT_SLEEP) {
			if (!stop && s->wake > now) {
				until = !until || s->wake < until ? s->wake : until;
				continue;
			}
			s->result = 0;
		} else {
			continue;
		}
		s->state = SLOT_RUN;
		ran = true;
	}
	if (L->waiting && (!until || L->next < until))
		until = L->next;
	return ran ? 1 : until;
}

bool worker_depth_run(struct worker *w, bool ramping, struct arrival *arr, uint64_t first_start,
                      uint64_t *left)
{
	struct engine *e = w->eng;
	const uint32_t n = w->iodepth;
	struct depth_loop L = {
	    .left = w->g->num_ops,
	    .limited = w->g->num_ops != 0,
	    .ramping = ramping,
	    .go_on = e->opts->continue_on_error,
	    .timing = w->time_ops || w->ll,
	    .arr = arr,
	    .next = first_start,
	    .delay_ns = (uint64_t)w->g->op_delay_ms * 1000000u,
	};
	const bool timed = arr || L.delay_ns;
	struct io_done done[64]; /* a batch of completions; more wait for the next reap */
	char *own_buf = w->buf, *own_rbuf = w->rbuf;
	for (uint32_t i = 0; i < n; i++) {
		struct depth_slot *s = &w->slots[i];
		s->loop = &L;
		s->state = SLOT_RUN;
		s->result = 0;
		s->start = 0;
		fiber_start(&s->fib, slot_main, s);
	}
	if (w->share)
		memset(w->share, 0, n * sizeof(*w->share));
	uint32_t alive = n;
	while (alive) {
		/* every runnable fiber to its operation's next call (or its end): up to n calls
		 * prepared; slots in index order, the completions' fibers among them */
		for (uint32_t i = 0; i < n; i++) {
			struct depth_slot *s = &w->slots[i];
			if (s->state != SLOT_RUN)
				continue;
			slot_resume(w, s);
			alive -= s->state == SLOT_DONE;
		}
		uint64_t until = 0; /* a schedule's next start, an op_delay's end: the wait's end */
		if (timed && (until = depth_timers(w, &L)) == 1)
			continue; /* slots given a start: to their calls, to go with the others' */
		if (L.in_flight > w->max_in_flight)
			w->max_in_flight = L.in_flight;
		if (L.in_flight) {
			int got = w->io->reap(w, done, sizeof(done) / sizeof(done[0]), until);
			for (int k = 0; k < got; k++) {
				struct depth_slot *s = (struct depth_slot *)(void *)done[k].fiber;
				FSMIX_ASSERT(s >= w->slots && s < w->slots + n &&
				             s->state == SLOT_CALL);
				s->result = done[k].res;
				s->state = SLOT_RUN;
				L.in_flight--;
			}
			for (uint32_t i = 0; got < 0 && i < n; i++) /* nothing can complete */
				if (w->slots[i].state == SLOT_CALL) {
					w->slots[i].result = got;
					w->slots[i].state = SLOT_RUN;
					L.in_flight--;
				}
		} else if (until) { /* nothing in flight: sleep until then (a stop cuts it short) */
			engine_wait_until(e, until);
		}
		for (uint32_t i = 0; i < n; i++) /* after completions, or with nothing in flight */
			if (w->slots[i].state == SLOT_IDLE)
				w->slots[i].state = SLOT_RUN;
	}
	w->buf = own_buf; /* the worker's own again (nothing uses them at depth > 1) */
	w->rbuf = own_rbuf;
	*left = L.left; /* num_ops: the operations not started (0: the count is done) */
	return L.ramping;
}
