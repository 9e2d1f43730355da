/* run.c - orchestration of a run (see engine.h for the phases). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "populate.h"
#include "engine.h"
#include "exitcode.h"
#include "subproc.h"
#include "stopsig.h"
#include "interval.h"
#include "outfile.h"
#include "report.h"
#include "report_data.h"
#include "threads.h"

void engine_stop(struct engine *e, enum stop_reason why)
{
	int expected = STOP_NONE;
	if (atomic_compare_exchange_strong(&e->stop, &expected, (int)why)) {
		pthread_mutex_lock(&e->sleep_lock);
		pthread_cond_broadcast(&e->sleep_cond);
		pthread_mutex_unlock(&e->sleep_lock);
	}
}

static struct timespec deadline_ts(uint64_t deadline_ns)
{
	return (struct timespec){.tv_sec = (time_t)(deadline_ns / 1000000000u),
	                         .tv_nsec = (long)(deadline_ns % 1000000000u)};
}

/* Waits until deadline_ns (CLOCK_MONOTONIC) or until the run stops. */
static void wait_until(struct engine *e, uint64_t deadline_ns)
{
	struct timespec ts = deadline_ts(deadline_ns);
	pthread_mutex_lock(&e->sleep_lock);
	while (!engine_stopping(e) && now_ns() < deadline_ns)
		if (pthread_cond_timedwait(&e->sleep_cond, &e->sleep_lock, &ts) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&e->sleep_lock);
}

void engine_sleep_ms(struct engine *e, uint32_t ms)
{
	wait_until(e, now_ns() + (uint64_t)ms * 1000000u);
}

/* ---- signals ----
 * SIGINT, SIGTERM and SIGHUP (stopsig.h) stop a run; they are blocked in every thread (the mask is
 * set before any thread is made, and threads inherit it) and one watcher thread reads them from a
 * signalfd. Only the run itself ends the watcher, through an eventfd of its own: no signal an
 * outside process can send is taken for "the run is over". SIGUSR1 (which once ended the
 * watcher) is read and ignored, so a stray one neither kills a run nor ends the watcher. */

static const int ignored_signals[] = {SIGUSR1};

struct sigwatch {
	struct engine *e;
	int sigfd;  /* signalfd of stop_signals and ignored_signals */
	int quitfd; /* eventfd: written once, by sigwatch_stop */
	pthread_t thread;
};

static void *sigwatch_main(void *arg)
{
	struct sigwatch *sw = arg;
	struct pollfd p[2] = {{.fd = sw->sigfd, .events = POLLIN},
	                      {.fd = sw->quitfd, .events = POLLIN}};
	for (;;) {
		if (poll(p, 2, -1) < 0)
			continue; /* EINTR (SIGSTOP/SIGCONT) */
		if (p[1].revents)
			return NULL;
		struct signalfd_siginfo si;
		if (!(p[0].revents & POLLIN) || read(sw->sigfd, &si, sizeof(si)) != sizeof(si))
			continue;
		if (si.ssi_signo == SIGUSR1) {
			fprintf(
			    sw->e->opts->log,
			    "fsmix: ignoring SIGUSR1 from pid %u (SIGINT, SIGTERM or SIGHUP stop "
			    "the run)\n",
			    si.ssi_pid);
			continue;
		}
		/* The first signal is kept even when the run is already stopping for another
		 * reason (aging's end clears that reason and must still see it). */
		stopsig_note();
		int none = 0;
		bool first =
		    atomic_compare_exchange_strong(&sw->e->signal_seen, &none, (int)si.ssi_signo);
		engine_stop(sw->e, STOP_SIGNAL);
		if (first) /* after the stop: a test may wait for this line */
			fprintf(sw->e->opts->log, "fsmix: SIG%s received: stopping\n",
			        sigabbrev_np((int)si.ssi_signo));
	}
}

/* The signals the watcher reads: the stop signals (stopsig.h) and the ignored ones. */
static void stop_signal_set(sigset_t *set)
{
	sigemptyset(set);
	stopsig_fill(set);
	for (size_t i = 0; i < ARRAY_SIZE(ignored_signals); i++)
		sigaddset(set, ignored_signals[i]);
}

/* Blocks the stop signals in the calling thread and so in every thread it makes afterwards
 * (first thing in a run: from then on a signal waits for the watcher). They stay blocked:
 * between the runs of a sweep a signal waits for the next run's watcher. */
static void stop_signals_block(void)
{
	sigset_t set;
	stop_signal_set(&set);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

/* Starts the watcher of the blocked stop signals; a signal that came while they were blocked
 * is read at once. */
static int sigwatch_start(struct sigwatch *sw, struct engine *e, char *err, size_t errlen)
{
	sigset_t set;
	stop_signal_set(&set);
	sw->e = e;
	sw->sigfd = signalfd(-1, &set, SFD_CLOEXEC);
	sw->quitfd = eventfd(0, EFD_CLOEXEC);
	int rc = sw->sigfd < 0 || sw->quitfd < 0 ? errno : 0;
	if (!rc && (rc = pthread_create(&sw->thread, NULL, sigwatch_main, sw)) != 0) {
		char limit[512];
		thread_limit_describe(limit, sizeof(limit));
		snprintf(err, errlen, "cannot start the signal watcher thread: %s; %s",
		         strerror(rc), limit);
	} else if (rc) {
		snprintf(err, errlen, "cannot watch for signals: %s", strerror(rc));
	}
	if (rc) {
		if (sw->sigfd >= 0)
			close(sw->sigfd);
		if (sw->quitfd >= 0)
			close(sw->quitfd);
		return -1;
	}
	return 0;
}

static void sigwatch_stop(struct sigwatch *sw)
{
	uint64_t one = 1;
	while (write(sw->quitfd, &one, sizeof(one)) < 0 && errno == EINTR)
		;
	pthread_join(sw->thread, NULL);
	close(sw->sigfd);
	close(sw->quitfd);
}

/* ---- workers ---- */

/* The first op_period slot at or after `now`, given the slot `next` that was due. Missed slots
 * are skipped, never made up in a burst; the schedule never drifts (slots stay multiples of
 * the period from the group's first op). */
static uint64_t next_slot(uint64_t next, uint64_t period_ns, uint64_t now)
{
	if (next >= now)
		return next;
	return next + ((now - next + period_ns - 1) / period_ns) * period_ns;
}

/* A pick that found no file (its file set is empty, or every file is busy): back off, so a
 * group that can do nothing does not burn a CPU spinning through picks. The first few retries
 * are immediate (another worker's create may be about to land); then the worker sleeps 1 us,
 * doubling up to SKIP_SLEEP_MAX_NS. Short sleeps are a plain nanosleep (no shared lock); long
 * ones wait on the engine's condition variable, so a stop wakes them. *streak counts the
 * consecutive skips and is reset by any operation that ran. */
#define SKIP_SPIN         4
#define SKIP_SLEEP_MAX_NS 4000000u /* 4 ms: the most a stop or a new file waits */
static void skip_backoff(struct engine *e, uint32_t *streak)
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
		wait_until(e, now_ns() + ns);
	}
}

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

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct engine *e = w->eng;
	const struct plan_group *g = w->g;
	const bool go_on = e->opts->continue_on_error;
	const bool timing = w->time_ops || w->ll; /* op latency is needed */
	const uint64_t period_ns = (uint64_t)g->op_period_ms * 1000000u;
	uint64_t left = g->num_ops; /* 0: no limit */
	uint32_t skip_streak = 0;   /* consecutive picks that found no file */
	uint64_t resp_pending = 0;  /* op_period: the response time of the op just done, ns */

	gate_wait(&e->gate);
	w->t_start = now_ns();
	if (w->ival) /* e->t_base was written before the gate opened */
		ival_init(w->ival, e->t_base, e->ival_len_ns);
	uint64_t slot = w->t_start + (uint64_t)g->start_delay_ms * 1000000u;
	if (g->start_delay_ms)
		wait_until(e, slot);
	while (!engine_stopping(e)) {
		if (period_ns) {
			wait_until(e, slot);
			if (engine_stopping(e))
				break;
		}
		enum op_id op = (enum op_id)pick_one(w->ops, &w->rng);
		struct engine_fs *fs = w->only_fs       ? w->only_fs
		                       : g->bindfs >= 0 ? &e->fs[g->bindfs]
		                       : e->n_fs == 1   ? e->fs
		                                        : &e->fs[rng_below(&w->rng, e->n_fs)];
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
			w->st.ops[op]++;
			w->st.trans[op] += r.trans;
			w->st.bytes_read[op] += r.bytes_read;
			w->st.bytes_written[op] += r.bytes_written;
			w->st.ffsb_written[op] += r.ffsb_written ? r.ffsb_written : r.bytes_written;
			if (w->ival)
				ival_add(w->ival, t1 ? t1 : now_ns(), r.trans,
				         r.bytes_read + r.bytes_written, w->time_ops ? lat : 0);
			if (w->ll)
				latlog_add(w->ll, t0 - e->t_base, op_table[op].name, lat,
				           r.bytes_read + r.bytes_written, w->op_sync_ns, resp);
		} else if (rc == OP_SKIPPED) {
			w->skipped[op]++;
			if (!period_ns) /* a scheduled group sleeps until its next slot anyway */
				skip_backoff(e, &skip_streak);
		} else {
			skip_streak = 0;
			w->st.errors[op]++;
			if (!go_on) {
				engine_stop(e, STOP_ERROR);
				break;
			}
		}
		if (period_ns) {
			uint64_t now = now_ns(), next = next_slot(slot + period_ns, period_ns, now);
			if (resp_pending && w->time_ops) {
				/* The starts skipped (slot + period .. next - period) passed while
				 * this op ran: each waited until now (coordinated omission,
				 * corrected). */
				uint64_t missed = (next - slot) / period_ns - 1;
				stats_resp_record(&w->st, resp_pending, missed,
				                  missed ? now - (slot + period_ns) : 0, period_ns);
			}
			resp_pending = 0;
			slot = next;
		}
		if (left && --left == 0)
			break; /* num_ops done (ok, skipped or failed: every attempt counts) */
		if (g->op_delay_ms)
			engine_sleep_ms(e, g->op_delay_ms);
	}
	w->t_end = now_ns();
	if (w->ival)
		ival_finish(w->ival, w->t_end);
	if (g->num_ops && atomic_fetch_sub(&e->counting, 1) == 1)
		engine_stop(e, STOP_COUNT); /* the last count-limited worker is done */
	return NULL;
}

static size_t round4k(uint64_t v)
{
	return (size_t)((v + 4095) & ~(uint64_t)4095);
}

/* A worker of group g (index gi in plan.groups, or the aging group of a filesystem with
 * ops/ranges given explicitly). */
static struct worker *worker_new(struct engine *e, const struct plan_group *g, size_t gi,
                                 const struct pick_table *ops, const struct range_table *ranges,
                                 unsigned index, char *err, size_t errlen)
{
	struct worker *w = aligned_alloc(CACHELINE, (sizeof(*w) + CACHELINE - 1) & ~(size_t)63);
	if (!w) {
		snprintf(err, errlen, "out of memory for worker %u", index);
		return NULL;
	}
	memset(w, 0, sizeof(*w));
	w->eng = e;
	w->g = g;
	w->ops = ops;
	w->index = index;
	w->group = (unsigned)gi;
	rng_seed(&w->rng, e->seed, index);
	uint64_t bs =
	    g->read_blocksize > g->write_blocksize ? g->read_blocksize : g->write_blocksize;
	w->buf_len = round4k(bs ? bs : 4096);
	w->buf = aligned_alloc(4096, w->buf_len);
	if (!w->buf || thread_stats_init(&w->st, ranges) ||
	    (g->op_period_ms && thread_stats_track_response(&w->st))) {
		snprintf(err, errlen, "out of memory for worker %u (%zu-byte buffer)", index,
		         w->buf_len);
		thread_stats_free(&w->st);
		free(w->buf);
		free(w);
		return NULL;
	}
	memset(w->buf, 0x5a, w->buf_len);
	w->time_ops = g->enable_stats;
	w->shared_clock = g->enable_stats && !g->ignore_mask;
	for (int s = 0; s < SYS_COUNT; s++)
		w->timed[s] = g->enable_stats && !(g->ignore_mask & (1u << s));
	return w;
}

static void worker_free(struct worker *w)
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
	thread_stats_free(&w->st);
	free(w->buf);
	free(w);
}

/* ---- a crew of workers: started together at the gate, joined together ---- */

#define WORKER_STACK (256 * 1024) /* bytes; workers keep paths and buffers off the stack */

/* Starts a thread for each of the n workers of ws; they wait at the engine's gate until
 * crew_release. When a thread cannot be created (a limit on threads or processes), the ones
 * that started are stopped and joined, and err names the limit: returns EXIT_RUN_FAILED, and
 * the caller must not release or join them. `what` names the workers ("worker", "aging"). */
static int crew_start(struct engine *e, struct worker **ws, size_t n, const char *what, char *err,
                      size_t errlen)
{
	pthread_attr_t attr;
	size_t started = 0;
	int rc = 0;
	gate_reset(&e->gate, n);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, WORKER_STACK);
	for (; started < n; started++)
		if ((rc = pthread_create(&ws[started]->thread, &attr, worker_main, ws[started])))
			break;
	pthread_attr_destroy(&attr);
	if (!rc)
		return 0;
	char limit[512];
	thread_limit_describe(limit, sizeof(limit));
	snprintf(err, errlen, "cannot start %s thread %zu of %zu (%zu started): %s; %s", what,
	         started + 1, n, started, strerror(rc), limit);
	/* The started ones see the stop flag as soon as the gate opens and do nothing. */
	engine_stop(e, STOP_ERROR);
	gate_open_now(&e->gate);
	for (size_t i = 0; i < started; i++)
		pthread_join(ws[i]->thread, NULL);
	return EXIT_RUN_FAILED;
}

/* Once every worker waits at the gate: they all start at once. */
static void crew_release(struct engine *e)
{
	gate_open_all(&e->gate);
}

static void crew_join(struct worker **ws, size_t n)
{
	for (size_t i = 0; i < n; i++)
		pthread_join(ws[i]->thread, NULL);
}

/* ---- the engine ---- */

static int engine_init(struct engine *e, const struct plan *pl, const struct engine_opts *o,
                       char *err, size_t errlen)
{
	pthread_condattr_t ca;
	e->plan = pl;
	e->opts = o;
	atomic_init(&e->stop, STOP_NONE);
	pthread_mutex_init(&e->sleep_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&e->sleep_cond, &ca);
	pthread_condattr_destroy(&ca);
	if (gate_init(&e->gate)) {
		snprintf(err, errlen, "cannot create the start gate");
		return -ENOMEM;
	}
	e->gate_ready = true;
	if (pl->seed_given) {
		e->seed = pl->seed;
	} else if (getrandom(&e->seed, sizeof(e->seed), 0) != sizeof(e->seed)) {
		e->seed = now_ns() ^ ((uint64_t)getpid() << 32);
	}
	e->n_fs = pl->n_fs;
	e->fs = calloc(pl->n_fs, sizeof(*e->fs));
	e->group_ops = calloc(pl->n_groups + 1, sizeof(*e->group_ops));
	e->group_ranges = calloc(pl->n_groups + 1, sizeof(*e->group_ranges));
	e->group_stats = calloc(pl->n_groups + 1, sizeof(*e->group_stats));
	e->group_own = calloc(pl->n_groups + 1, sizeof(*e->group_own));
	e->group_skipped = calloc(pl->n_groups + 1, sizeof(*e->group_skipped));
	if (!e->fs || !e->group_ops || !e->group_ranges || !e->group_stats || !e->group_own ||
	    !e->group_skipped) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < pl->n_fs; i++) {
		struct statvfs sv;
		e->fs[i].pf = &pl->fs[i];
		if (statvfs(pl->fs[i].location, &sv) == 0 && sv.f_blocks)
			e->fs[i].start_util =
			    (double)(sv.f_blocks - sv.f_bfree) / (double)sv.f_blocks;
		e->fs[i].tree.locfd = e->fs[i].tree.rootfd = -1;
		e->fs[i].tree.datafd = e->fs[i].tree.metafd = -1;
	}
	for (size_t gi = 0; gi < pl->n_groups; gi++) {
		const struct plan_group *g = &pl->groups[gi];
		uint64_t w[OP_COUNT];
		for (int op = 0; op < OP_COUNT; op++)
			w[op] = g->weight[op];
		if (pick_build(&e->group_ops[gi], w, OP_COUNT)) {
			snprintf(err, errlen, "%s: cannot build the operation table", g->name);
			return -ENOMEM;
		}
		if (g->enable_stats && g->enable_range && g->n_ranges) {
			double lohi[2 * g->n_ranges];
			for (size_t i = 0; i < g->n_ranges; i++) {
				lohi[2 * i] = g->ranges[i].lo_ms;
				lohi[2 * i + 1] = g->ranges[i].hi_ms;
			}
			if (range_table_new(&e->group_ranges[gi], lohi, (uint32_t)g->n_ranges)) {
				snprintf(err, errlen, "%s: invalid msec_range table", g->name);
				return -EINVAL;
			}
		}
		/* A one-thread group reports its worker's statistics (set at the merge); its own
		 * copy is made only if the run phase never gets there (group_stats_ready). */
		if (g->num_threads == 1)
			continue;
		if (thread_stats_init(&e->group_own[gi], e->group_ranges[gi])) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		e->group_stats[gi] = &e->group_own[gi];
	}
	if (thread_stats_init(&e->total, NULL)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

static void engine_free(struct engine *e)
{
	if (e->latlog_open) /* a run that failed before its log was committed */
		latlog_abort(&e->latlog);
	for (size_t i = 0; e->workers && i < e->n_workers; i++)
		worker_free(e->workers[i]);
	free(e->workers);
	for (size_t i = 0; e->fs && i < e->n_fs; i++)
		if (e->fs[i].pf)
			populate_release(&e->fs[i]);
	for (size_t gi = 0; gi < e->plan->n_groups; gi++) {
		if (e->group_ops)
			pick_free(&e->group_ops[gi]);
		if (e->group_own)
			thread_stats_free(&e->group_own[gi]);
		if (e->group_ranges)
			range_table_free(e->group_ranges[gi]);
	}
	thread_stats_free(&e->total);
	free(e->fs);
	free(e->group_ops);
	free(e->group_ranges);
	free(e->group_stats);
	free(e->group_own);
	free(e->group_skipped);
	free(e->intervals);
	for (size_t gi = 0; e->group_intervals && gi < e->plan->n_groups; gi++)
		free(e->group_intervals[gi].v);
	free(e->group_intervals);
	pthread_mutex_destroy(&e->sleep_lock);
	pthread_cond_destroy(&e->sleep_cond);
	if (e->gate_ready)
		gate_destroy(&e->gate);
}

/* True when some group that may use fs changes its files or directories. */
static bool group_modifies(const struct plan *pl, size_t fsi)
{
	for (size_t gi = 0; gi < pl->n_groups; gi++) {
		const struct plan_group *g = &pl->groups[gi];
		if (g->bindfs >= 0 && (size_t)g->bindfs != fsi)
			continue;
		for (int op = 0; op < OP_COUNT; op++)
			if (g->weight[op] && (op_table[op].flags &
			                      (OPF_WRITE | OPF_CREATES | OPF_DELETES | OPF_META)))
				return true;
	}
	return false;
}

static unsigned build_threads(const struct engine_opts *o)
{
	if (o->build_threads)
		return o->build_threads;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	/* File creation is mostly kernel time: more builders than CPUs only adds contention on
	 * the directory locks, but at least two keep one CPU busy while the other waits. */
	return n < 2 ? 2 : n > 16 ? 16 : (unsigned)n;
}

/* The most op can add to fs, in bytes, rounded up to whole blocks plus one block (the inode's
 * and directory's share; statvfs counts blocks): what an aging worker reserves before it. */
static int64_t age_op_bytes(const struct engine_fs *fs, const struct plan_group *g, enum op_id op,
                            uint64_t block)
{
	uint64_t flags = op_table[op].flags, most = 0;
	if (flags & OPF_CREATES) {
		const struct plan_fs *pf = fs->pf;
		most = pf->max_filesize;
		for (size_t i = 0; i < pf->n_sizes; i++)
			if (pf->sizes[i].size > most)
				most = pf->sizes[i].size;
	} else if (flags & OPF_APPENDS) {
		most = g->write_size * ((flags & OPF_TWICE) ? 2 : 1);
	} else {
		return 0;
	}
	return (int64_t)((most + block - 1) / block * block + block);
}

/* FFSB seeds its aging set with 10 files, so appends and deletes find some from the start. */
#define AGE_SEED_FILES 10
/* The aging controller's period: short, so a round's end is seen quickly. */
#define AGE_POLL_NS 2000000u
/* A round whose credit is not used for this long is stuck: every op it could run is too big. */
#define AGE_STALL_NS 50000000u

/* The seed files of aging (FFSB's fillfiles), made by worker w before the others start: sized
 * like the filesystem's files and written with age_blocksize (at most the worker's buffer), so
 * appends and deletes have something to work on from the start; as many as fit below the
 * target, up to AGE_SEED_FILES. Returns 0 or EXIT_RUN_FAILED with err. */
static int age_seed_files(struct engine_fs *fs, struct worker *w, uint64_t block, char *err,
                          size_t errlen)
{
	const struct plan_group *g = fs->pf->age;
	const double target = fs->pf->desired_util;
	bool needs_files = false;
	for (int op = 0; op < OP_COUNT; op++)
		needs_files |= g->weight[op] && (op_table[op].flags & OPF_FILE);
	if (!needs_files)
		return 0;
	struct plan_group seed_g = *g;
	uint64_t bs = fs->pf->age_blocksize ? fs->pf->age_blocksize : 4096;
	seed_g.write_blocksize = bs < w->buf_len ? bs : w->buf_len;
	w->g = &seed_g;
	int rc = 0;
	for (int i = 0; i < AGE_SEED_FILES && !rc; i++) {
		struct op_result r = {0};
		struct tree_usage u;
		/* a seed must not take the filesystem past the target either */
		if (tree_usage(&fs->tree, &u) ||
		    target * (double)u.total_bytes - (double)u.used_bytes <
		        (double)age_op_bytes(fs, g, OP_create, block))
			break;
		if (op_execute(w, fs, OP_create, &r) < 0) {
			snprintf(err, errlen, "%s: aging: cannot create a seed file: %s",
			         fs->pf->name, strerror(w->err.err));
			rc = EXIT_RUN_FAILED;
		}
	}
	w->g = g;
	return rc;
}

/* The main thread's side of aging (see age_fs): watches the usage and grants the workers
 * credit in rounds until desired_util is reached, as close as whole operations get, or the run
 * stops. smallest and largest are the smallest and largest reservations of the weighted ops.
 * Returns 0, or EXIT_RUN_FAILED with err (the usage cannot be read, or has not grown for 30 s). */
static int age_control(struct engine *e, struct engine_fs *fs, int64_t smallest, int64_t largest,
                       char *err, size_t errlen)
{
	const double target = fs->pf->desired_util;
	struct tree_usage u;
	int rc = 0;
	if (tree_usage(&fs->tree, &u)) {
		snprintf(err, errlen, "%s: aging: cannot read the filesystem usage", fs->pf->name);
		return EXIT_RUN_FAILED;
	}
	uint64_t t0 = now_ns(), last_growth = t0, round_t = t0;
	double best = u.util;
	int64_t round_left = -1; /* the credit as last seen; -1: no round yet */
	bool round_full = false; /* this round granted all that is left */
	int64_t round_grant = 0; /* what it granted */
	fprintf(e->opts->log, "fsmix: %s: aging from %.1f%% to %.1f%% used\n", fs->pf->name,
	        100 * u.util, 100 * target);
	while (!rc && !engine_stopping(e)) {
		wait_until(e, now_ns() + AGE_POLL_NS);
		if (tree_usage(&fs->tree, &u)) {
			snprintf(err, errlen, "%s: aging: cannot read the filesystem usage",
			         fs->pf->name);
			rc = EXIT_RUN_FAILED;
			break;
		}
		if (u.util >= target)
			break;
		uint64_t now = now_ns();
		if (u.util > best + 0.001) {
			best = u.util;
			last_growth = now;
		} else if (now - last_growth > 30000000000ull) {
			snprintf(err, errlen,
			         "%s: aging stopped at %.1f%% used: no growth for 30 s towards "
			         "desired_util=%.1f%%",
			         fs->pf->name, 100 * u.util, 100 * target);
			rc = EXIT_RUN_FAILED;
			break;
		}
		/* The credit first: once it is below every reservation no worker can take more,
		 * so an empty in-flight count then means every granted write has landed. */
		int64_t credit = atomic_load(&e->age_credit);
		bool busy = atomic_load(&e->age_inflight) != 0, stalled = false;
		if (credit != round_left || busy) {
			round_left = credit;
			round_t = now;
		} else if (credit >= smallest && now - round_t > AGE_STALL_NS) {
			stalled = true; /* what is left fits no op the workers can run */
		}
		if ((credit >= smallest && !stalled) || busy)
			continue;
		double left_d = target * (double)u.total_bytes - (double)u.used_bytes;
		int64_t left = left_d > 0 ? (int64_t)left_d : 0;
		if (left < smallest || (stalled && round_full && left <= round_grant))
			break; /* as close as whole operations get: the ops waiting need more than
			        * is left (unless deletes have freed some since the last grant) */
		/* Half of what is left, but enough for the largest op while that fits. */
		int64_t grant = left / 2;
		if (grant < largest)
			grant = left < largest ? left : largest;
		round_full = grant == left;
		round_grant = grant;
		atomic_store(&e->age_credit, grant);
		round_left = grant;
		round_t = now;
	}
	return rc;
}

/* Ages fs with its nested thread group until the filesystem is desired_util full (FFSB's
 * agefs=1), before the benchmark's files are built. The aged files are a set of their own
 * (fs->aged), as FFSB's fill files: the benchmark's groups never pick them.
 *
 * Stopping on target: the main thread grants the aging workers credit in rounds (half of what
 * is left to desired_util, but enough for the largest op while that fits), and every worker
 * reserves its op's largest possible growth from the credit before running it, waiting with
 * the op picked when the credit does not cover it. A new round starts from a fresh statvfs only
 * when nothing is in flight and the credit is used up, or no waiting op fits it (stalled), so
 * the writes in flight never exceed what is left: aging slows down near the target and stops
 * at most one op's growth below it (above it only by what a file costs beyond its blocks).
 * Gives up when the usage has not grown for 30 s (a workload that deletes as much as it writes
 * never gets there). */
static int age_fs(struct engine *e, struct engine_fs *fs, char *err, size_t errlen)
{
	const struct plan_group *g = fs->pf->age;
	const double target = fs->pf->desired_util;
	struct pick_table ops;
	struct tree_usage u;
	struct statvfs sv;
	uint64_t w8[OP_COUNT];
	int rc = 0;
	for (int op = 0; op < OP_COUNT; op++)
		w8[op] = g->weight[op];
	if (tree_usage(&fs->tree, &u) || statvfs(fs->pf->location, &sv)) {
		snprintf(err, errlen, "%s: cannot read the filesystem usage", fs->pf->name);
		return EXIT_RUN_FAILED;
	}
	if (u.util >= target)
		return 0;
	uint64_t block = sv.f_frsize ? sv.f_frsize : 4096;
	/* Aging can make at most as many files as the filesystem has inodes left. */
	uint32_t aged_cap = ENGINE_AGED_CAPACITY;
	if (sv.f_favail && sv.f_favail < aged_cap)
		aged_cap = (uint32_t)sv.f_favail;
	if (pool_init(&fs->aged, aged_cap)) {
		snprintf(err, errlen, "cannot reserve memory for the aged files");
		return EXIT_RUN_FAILED;
	}
	if (pick_build(&ops, w8, OP_COUNT)) {
		snprintf(err, errlen, "%s: cannot build the aging operation table", fs->pf->name);
		return EXIT_RUN_FAILED;
	}
	size_t n = g->num_threads;
	struct worker **ws = calloc(n, sizeof(*ws));
	size_t made = 0;
	if (!ws) {
		pick_free(&ops);
		snprintf(err, errlen, "out of memory");
		return EXIT_RUN_FAILED;
	}
	int64_t smallest = INT64_MAX, largest = 0; /* reservations of the weighted ops */
	for (; made < n; made++) {
		ws[made] =
		    worker_new(e, g, 0, &ops, NULL, (unsigned)(0x100000 + made), err, errlen);
		if (!ws[made]) {
			rc = EXIT_RUN_FAILED;
			goto out;
		}
		ws[made]->only_fs = fs;
		ws[made]->aging = true;
		for (int op = 0; op < OP_COUNT; op++) {
			ws[made]->age_bytes[op] = age_op_bytes(fs, g, (enum op_id)op, block);
			if (g->weight[op] && ws[made]->age_bytes[op] &&
			    ws[made]->age_bytes[op] < smallest)
				smallest = ws[made]->age_bytes[op];
			if (g->weight[op] && ws[made]->age_bytes[op] > largest)
				largest = ws[made]->age_bytes[op];
		}
	}
	if ((rc = age_seed_files(fs, ws[0], block, err, errlen)))
		goto out;
	atomic_store(&e->age_credit, 0);
	atomic_store(&e->age_inflight, 0);
	e->age_min = smallest;
	if ((rc = crew_start(e, ws, n, "aging", err, errlen)))
		goto out;
	crew_release(e);
	uint64_t t0 = now_ns();
	rc = age_control(e, fs, smallest, largest, err, errlen);
	int why = atomic_load(&e->stop);
	engine_stop(e, STOP_TIME);
	crew_join(ws, n);
	for (size_t i = 0; i < n && !rc; i++)
		if (ws[i]->err.set) {
			snprintf(err, errlen, "%s: aging: %s: %s(%s): %s", fs->pf->name,
			         op_table[ws[i]->err.op].name, sys_table[ws[i]->err.sys].name,
			         ws[i]->err.path, strerror(ws[i]->err.err));
			rc = EXIT_RUN_FAILED;
		}
	if (!rc && why == STOP_SIGNAL)
		rc = EXIT_INTERRUPTED;
	if (!rc) {
		/* Ready for the run: clear the stop flag the aging phase set. Every aging worker
		 * has been joined, so nobody reads it now; a signal arriving meanwhile is kept. */
		int expected = STOP_TIME;
		atomic_compare_exchange_strong(&e->stop, &expected, STOP_NONE);
		if (atomic_load(&e->signal_seen)) /* it came while the flag said "time" */
			engine_stop(e, STOP_SIGNAL);
		(void)tree_usage(&fs->tree, &u);
		if (u.util < target - 0.01)
			fprintf(
			    e->opts->log,
			    "fsmix: %s: warning: aging stopped %.1f points below desired_util: "
			    "what is left is less than the aging group's smallest operation may "
			    "write\n",
			    fs->pf->name, 100 * (target - u.util));
		fprintf(e->opts->log,
		        "fsmix: %s: aged to %.1f%% used in %.1f s, %" PRIu64
		        " aged files (not part of the benchmark's file set)\n",
		        fs->pf->name, 100 * u.util, (double)(now_ns() - t0) / 1e9,
		        pool_live(&fs->aged));
	}
out:
	for (size_t i = 0; i < made; i++)
		worker_free(ws[i]);
	free(ws);
	pick_free(&ops);
	return rc;
}

/* The exit status (exitcode.h) of a failure kind, for this file's callers until it reports
 * failures as enum failure itself. */
static int exit_of(enum failure f)
{
	switch (f) {
	case FAIL_NONE:
		return EXIT_OK;
	case FAIL_IO:
		return EXIT_RUN_FAILED;
	case FAIL_UNSUPPORTED:
		return EXIT_UNSUPPORTED;
	case FAIL_INPUT:
		return EXIT_BAD_INPUT;
	case FAIL_INTERRUPTED:
		return EXIT_INTERRUPTED;
	}
	return EXIT_RUN_FAILED;
}

/* populate_fs's aging step: age_fs, its exit status as a failure kind. */
static enum failure age_step(struct engine *e, struct engine_fs *fs, char *err, size_t errlen)
{
	int rc = age_fs(e, fs, err, errlen);
	return rc == 0                  ? FAIL_NONE
	       : rc == EXIT_INTERRUPTED ? FAIL_INTERRUPTED
	       : rc == EXIT_BAD_INPUT   ? FAIL_INPUT
	       : rc == EXIT_UNSUPPORTED ? FAIL_UNSUPPORTED
	                                : FAIL_IO;
}

static int setup(struct engine *e, char *err, size_t errlen)
{
	const struct plan *pl = e->plan;
	FILE *log = e->opts->log;
	int lrc = exit_of(populate_lock(e, err, errlen));
	if (lrc)
		return lrc;
	for (size_t i = 0; i < e->n_fs; i++) {
		struct engine_fs *fs = &e->fs[i];
		int rc = exit_of(populate_fs(e, fs, build_threads(e->opts), age_step, err, errlen));
		if (rc)
			return rc;
		fprintf(log, "fsmix: %s: %s %s: %" PRIu64 " files in %.2f s\n", fs->pf->name,
		        fs->reused ? "reused" : "built", fs->tree.root, fs->built_files,
		        fs->setup_s);
		if (devstat_probe(fs->pf->location, &fs->dev))
			snprintf(fs->dev.why, sizeof(fs->dev.why), "cannot stat the location");
		/* An aged tree (populate_fs aged it) never keeps a manifest. */
		fs->modified =
		    ((pl->time_s || pl->counted) && group_modifies(pl, i)) || fs->pf->age;
		if (fs->modified) {
			char why[MSG_MAX];
			if (tree_invalidate_manifest(&fs->tree, why, sizeof(why)))
				fprintf(log, "fsmix: %s: warning: %s\n", fs->pf->name, why);
		}
	}
	return 0;
}

static void report_errors(struct engine *e)
{
	for (size_t i = 0; i < e->n_workers; i++) {
		const struct worker *w = e->workers[i];
		if (!w->err.set)
			continue;
		fprintf(e->opts->log, "fsmix: worker %u (%s): %s: %s(%s): %s after %.3f s\n",
		        w->index, w->g->name, op_table[w->err.op].name, sys_table[w->err.sys].name,
		        w->err.path, strerror(w->err.err), (double)w->err.at_ns / 1e9);
	}
}

/* The newest interval every worker has finished, merged; false when there is none yet. */
static bool merged_row(struct engine *e, uint32_t index, struct ival_rec *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < e->n_workers; i++) {
		const struct ival_log *l = e->workers[i]->ival;
		if (atomic_load_explicit(&l->published, memory_order_acquire) <= index)
			return false;
		const struct ival_rec *r = ival_row(l, index);
		if (!r)
			continue; /* this worker ran out of memory for rows */
		out->ops += r->ops;
		out->trans += r->trans;
		out->bytes += r->bytes;
		out->timed += r->timed;
		ival_hist_merge(&out->hist, &r->hist);
	}
	return true;
}

/* The live status line on a terminal: elapsed/remaining, ops/s and p99 of the last interval. */
static void progress_line(struct engine *e, uint64_t deadline)
{
	static struct ival_rec row; /* main thread only; too big for the stack */
	uint64_t now = now_ns();
	double el = (double)(now - e->t0) / 1e9,
	       left = now < deadline ? (double)(deadline - now) / 1e9 : 0;
	/* The newest interval every worker has finished: a worker closes an interval with its
	 * first operation after the boundary, so the one just ended may not be complete yet. */
	uint32_t done = UINT32_MAX;
	for (size_t i = 0; i < e->n_workers; i++) {
		uint32_t p =
		    atomic_load_explicit(&e->workers[i]->ival->published, memory_order_acquire);
		if (p < done)
			done = p;
	}
	fprintf(e->opts->log, "\r\033[K[%6.0fs elapsed, %6.0fs left]", el, left);
	if (done && done != UINT32_MAX && merged_row(e, done - 1, &row)) {
		double len = (double)e->ival_len_ns / 1e9;
		fprintf(e->opts->log, " %10.0f ops/s %9.1f MB/s", (double)row.ops / len,
		        (double)row.bytes / len / 1048576.0);
		if (row.timed)
			fprintf(e->opts->log, "  op p99 %.3f ms",
			        (double)ival_percentile_ns(&row.hist, row.timed, 99) / 1e6);
	}
	fflush(e->opts->log);
}

/* --interval rows of the workers of group gi (SIZE_MAX: every worker) merged by interval, after
 * the join. Every group gets the same intervals (the longest-running worker's), so the groups'
 * rows line up with the total's; a group that stopped early has rows with 0 operations. */
static struct interval_row *merge_intervals(struct engine *e, size_t gi, size_t *n_out)
{
	static struct ival_rec row;
	uint32_t rows = 0;
	*n_out = 0;
	for (size_t i = 0; i < e->n_workers; i++) {
		uint32_t p = atomic_load(&e->workers[i]->ival->published);
		if (p > rows)
			rows = p;
	}
	struct interval_row *v = calloc(rows + 1, sizeof(*v));
	if (!v)
		return NULL;
	double len = (double)e->ival_len_ns / 1e9;
	double end = (double)(e->run_end_ns - e->t_base) / 1e9;
	for (uint32_t k = 0; k < rows; k++) {
		memset(&row, 0, sizeof(row));
		for (size_t i = 0; i < e->n_workers; i++) {
			const struct ival_log *l = e->workers[i]->ival;
			const struct ival_rec *r =
			    k < atomic_load(&l->published) ? ival_row(l, k) : NULL;
			if (!r || (gi != SIZE_MAX && e->workers[i]->group != gi))
				continue;
			row.ops += r->ops;
			row.trans += r->trans;
			row.bytes += r->bytes;
			row.timed += r->timed;
			ival_hist_merge(&row.hist, &r->hist);
		}
		double t = (k + 1) * len;
		if (t > end)
			t = end;
		struct interval_row *out = &v[*n_out];
		out->t_s = t;
		out->length_s = t - k * len;
		if (out->length_s <= 0)
			continue;
		out->ops = row.ops;
		out->trans = row.trans;
		out->bytes = row.bytes;
		out->p99_op_ns = ival_percentile_ns(&row.hist, row.timed, 99);
		(*n_out)++;
	}
	return v;
}

static int run_phase(struct engine *e, char *err, size_t errlen)
{
	const struct plan *pl = e->plan;
	struct rusage ru0, ru1;
	size_t n = 0;
	for (size_t gi = 0; gi < pl->n_groups; gi++)
		n += pl->groups[gi].num_threads;
	e->workers = calloc(n ? n : 1, sizeof(*e->workers));
	if (!e->workers) {
		snprintf(err, errlen, "out of memory for %zu workers", n);
		return EXIT_RUN_FAILED;
	}
	for (size_t gi = 0, k = 0; gi < pl->n_groups; gi++)
		for (uint32_t t = 0; t < pl->groups[gi].num_threads; t++, k++) {
			e->workers[k] = worker_new(e, &pl->groups[gi], gi, &e->group_ops[gi],
			                           e->group_ranges[gi], (unsigned)k, err, errlen);
			if (!e->workers[k])
				return EXIT_RUN_FAILED;
			e->n_workers = k + 1;
		}
	for (size_t i = 0; i < n; i++)
		if (e->workers[i]->g->num_ops)
			atomic_fetch_add(&e->counting, 1);
	if (e->latlog_open) { /* opened by engine_run before setup */
		for (size_t gi = 0, k = 0; gi < pl->n_groups; gi++)
			for (uint32_t t = 0; t < pl->groups[gi].num_threads; t++, k++) {
				struct worker *w = e->workers[k];
				w->ll = malloc(sizeof(*w->ll));
				if (!w->ll || latlog_buf_init(w->ll, &e->latlog, (unsigned)gi, t)) {
					free(w->ll);
					w->ll = NULL;
					snprintf(err, errlen,
					         "out of memory for --lat-log buffers");
					return EXIT_RUN_FAILED;
				}
			}
	}
	e->progress = pl->time_s > 1 && isatty(fileno(e->opts->log));
	if (e->opts->interval_s > 0 || e->progress) {
		e->ival_len_ns =
		    e->opts->interval_s > 0 ? (uint64_t)(e->opts->interval_s * 1e9) : 1000000000u;
		for (size_t i = 0; i < n; i++) {
			e->workers[i]->ival = calloc(1, sizeof(struct ival_log));
			if (!e->workers[i]->ival) {
				snprintf(err, errlen, "out of memory for interval rows");
				return EXIT_RUN_FAILED;
			}
		}
	}
	int rc = crew_start(e, e->workers, n, "worker", err, errlen);
	if (rc)
		return rc;
	/* Device counters bracket the run phase (after setup and its syncfs). */
	struct devstat_sample *dev0 = calloc(e->n_fs + 1, sizeof(*dev0));
	for (size_t i = 0; dev0 && i < e->n_fs; i++)
		if (e->fs[i].dev.has_device)
			(void)devstat_read(&e->fs[i].dev, &dev0[i]);
	getrusage(RUSAGE_SELF, &ru0);
	if (pl->counted)
		fprintf(
		    e->opts->log,
		    "fsmix: running %zu threads until the counted groups are done%s (seed %" PRIu64
		    ")\n",
		    n, pl->time_s ? ", at most for the time set" : "", e->seed);
	else
		fprintf(e->opts->log,
		        "fsmix: running %zu threads for %" PRIu32 " s (seed %" PRIu64 ")\n", n,
		        pl->time_s, e->seed);
	e->t_base = now_ns();
	crew_release(e);
	e->t0 = now_ns();
	/* Without time, a counted run ends when its counted groups are done. */
	uint64_t deadline =
	    pl->time_s ? e->t0 + (uint64_t)pl->time_s * 1000000000u : UINT64_MAX / 2;
	if (e->progress) {
		/* Wake once a second to redraw the status line (only on a terminal). */
		while (!engine_stopping(e) && now_ns() < deadline) {
			uint64_t next = now_ns() + 1000000000u;
			wait_until(e, next < deadline ? next : deadline);
			progress_line(e, deadline);
		}
		fprintf(e->opts->log, "\r\033[K");
		fflush(e->opts->log);
	} else {
		wait_until(e, deadline);
	}
	engine_stop(e, STOP_TIME);
	uint64_t first = UINT64_MAX, last = 0;
	crew_join(e->workers, n);
	for (size_t i = 0; i < n; i++) {
		const struct worker *w = e->workers[i];
		if (w->t_start < first)
			first = w->t_start;
		if (w->t_end > last)
			last = w->t_end;
	}
	getrusage(RUSAGE_SELF, &ru1);
	if (e->latlog_open) /* engine_run commits the log */
		for (size_t i = 0; i < n; i++)
			if (e->workers[i]->ll)
				latlog_flush(e->workers[i]->ll);
	for (size_t i = 0; dev0 && i < e->n_fs; i++) {
		struct devstat_sample after;
		if (!e->fs[i].dev.has_device || !dev0[i].valid ||
		    devstat_read(&e->fs[i].dev, &after))
			continue;
		devstat_delta(&dev0[i], &after, &e->fs[i].dev_delta);
	}
	free(dev0);
	e->runtime_s = n ? (double)(last - first) / 1e9 : 0;
	e->run_end_ns = last;
	e->user_s = (double)(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) +
	            (double)(ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec) / 1e6;
	e->sys_s = (double)(ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) +
	           (double)(ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e6;
	/* Merge: workers into their group, groups into the total (after every join). */
	int mrc = 0;
	for (size_t i = 0; i < n; i++) {
		struct worker *w = e->workers[i];
		if (pl->groups[w->group].num_threads == 1) /* the group is its worker: no copy */
			e->group_stats[w->group] = &w->st;
		else
			mrc = mrc ? mrc : thread_stats_merge(e->group_stats[w->group], &w->st);
		for (int op = 0; op < OP_COUNT; op++)
			e->group_skipped[w->group][op] += w->skipped[op];
	}
	for (size_t gi = 0; gi < pl->n_groups; gi++) {
		/* The total has no msec_range counts (they are per group, as in FFSB). */
		struct thread_stats tmp = *e->group_stats[gi];
		tmp.ranges = NULL;
		tmp.range_cols = 0;
		tmp.range_counts = NULL;
		mrc = mrc ? mrc : thread_stats_merge(&e->total, &tmp);
		for (int op = 0; op < OP_COUNT; op++)
			e->total_skipped[op] += e->group_skipped[gi][op];
	}
	if (mrc) { /* ENOMEM for a response-time series: no report rather than a wrong one */
		snprintf(err, errlen, "cannot merge the threads' statistics: %s", strerror(-mrc));
		return EXIT_RUN_FAILED;
	}
	if (e->opts->interval_s > 0) {
		e->intervals = merge_intervals(e, SIZE_MAX, &e->n_intervals);
		e->group_intervals = calloc(pl->n_groups + 1, sizeof(*e->group_intervals));
		for (size_t gi = 0; e->group_intervals && gi < pl->n_groups; gi++)
			e->group_intervals[gi].v =
			    merge_intervals(e, gi, &e->group_intervals[gi].n);
	}
	report_errors(e);
	return 0;
}

/* Runs the profile's callout with /bin/sh -c, as system() would, but with no signal blocked
 * (subproc.h): Ctrl-C stops the callout and, through the watcher, the run. Returns the shell's
 * wait status, -1 (errno set) when it cannot be started. */
static int run_callout(const char *cmd)
{
	char *argv[] = {"/bin/sh", "-c", (char *)cmd, NULL};
	int st = subproc_run(argv, NULL);
	if (st < 0) {
		errno = -st;
		return -1;
	}
	return st;
}

/* --cleanup: remove every tree; false when one could not be removed (an I/O error: exit 1),
 * with the first reason in first_err (MSG_MAX bytes). */
static bool cleanup_trees(struct engine *e, char *first_err, size_t errlen)
{
	bool ok = true;
	for (size_t i = 0; i < e->n_fs; i++) {
		struct engine_fs *fs = &e->fs[i];
		char why[MSG_MAX];
		struct tree_purge sw = {0};
		if (fs->tree.rootfd < 0)
			continue;
		if (tree_remove(&fs->tree, &sw, why, sizeof(why))) {
			fprintf(e->opts->log, "fsmix: %s: cleanup: %s\n", fs->pf->name, why);
			if (ok)
				snprintf(first_err, errlen, "%s: cleanup: %s", fs->pf->name, why);
			ok = false;
		} else {
			fprintf(e->opts->log, "fsmix: %s: removed its tree (%" PRIu64 " entries)\n",
			        fs->pf->name, sw.removed);
		}
	}
	return ok;
}

/* Everything after the run (or after a setup that failed or was interrupted): commit the
 * latency log, print the text report, write the JSON and CSV. Every --json/--csv gets a document
 * saying what happened, so an older file can never pass for this run's result. Returns the exit
 * status, given rc so far. */
/* Every group without statistics yet (a one-thread group whose run phase never reached the
 * merge) gets an empty copy, as the reports expect one per group. */
static void group_stats_ready(struct engine *e)
{
	for (size_t gi = 0; gi < e->plan->n_groups; gi++) {
		if (e->group_stats[gi])
			continue;
		/* Out of memory for the range counts still leaves a valid empty copy (no ranges).
		 */
		(void)thread_stats_init(&e->group_own[gi], e->group_ranges[gi]);
		e->group_stats[gi] = &e->group_own[gi];
	}
}

static int write_outputs(struct engine *e, int rc)
{
	const struct engine_opts *o = e->opts;
	char why[MSG_MAX], latlog_why[MSG_MAX];
	group_stats_ready(e);
	if (e->latlog_open) {
		e->latlog_open = false;
		if (latlog_close(&e->latlog, latlog_why, sizeof(latlog_why))) {
			fprintf(o->log, "fsmix: %s\n", latlog_why);
			e->latlog_failed = true;
			if (!e->failure)
				e->failure = latlog_why;
		}
	}
	if (e->measured) {
		int stop = atomic_load(&e->stop);
		e->interrupted = stop == STOP_SIGNAL;
		bool failed = e->latlog_failed;
		for (size_t i = 0; i < e->n_workers; i++)
			failed |= e->workers[i]->err.set;
		rc = e->interrupted ? EXIT_INTERRUPTED : failed ? EXIT_RUN_FAILED : 0;
		if (!o->quiet)
			report_results(o->out, e, e->interrupted);
		if (o->json_out) /* sweeps collect every point's results */
			*o->json_out = report_json_build(e, rc);
	} else {
		if (e->latlog_failed && !rc)
			rc = EXIT_RUN_FAILED;
		/* Where it ran, also for the filesystems setup did not get to. */
		for (size_t i = 0; i < e->n_fs; i++)
			if (!e->fs[i].dev.fstype[0])
				(void)devstat_probe(e->fs[i].pf->location, &e->fs[i].dev);
	}
	/* --cleanup before the files are written, so that their exit_status and error say
	 * whether the tree could be removed. */
	if (o->cleanup && !cleanup_trees(e, e->cleanup_err, sizeof(e->cleanup_err))) {
		rc = rc ? rc : EXIT_RUN_FAILED;
		if (!e->failure)
			e->failure = e->cleanup_err;
	}
	/* Machine-readable results: written whole (outfile.h) or not at all. */
	int wrc = o->json_path ? report_json_write(e, o->json_path, rc, why, sizeof(why)) : 0;
	if (wrc) {
		fprintf(o->log, "fsmix: %s\n", why);
		rc = rc ? rc : wrc == -EINTR ? EXIT_INTERRUPTED : EXIT_RUN_FAILED;
	}
	wrc = o->csv_path ? report_csv_write(e, o->csv_path, why, sizeof(why)) : 0;
	if (wrc) {
		fprintf(o->log, "fsmix: %s\n", why);
		rc = rc ? rc : wrc == -EINTR ? EXIT_INTERRUPTED : EXIT_RUN_FAILED;
	}
	return rc;
}

int engine_run(const struct plan *pl, const struct engine_opts *o)
{
	struct engine *e = calloc(1, sizeof(*e));
	struct sigwatch sw;
	char err[MSG_MAX] = "";
	int rc = 0;
	if (!e) {
		fprintf(o->log, "fsmix: out of memory\n");
		return EXIT_RUN_FAILED;
	}
	stop_signals_block(); /* before any thread is made: blocked in all of them */
	if (engine_init(e, pl, o, err, sizeof(err))) {
		fprintf(o->log, "fsmix: %s\n", err[0] ? err : "cannot start");
		engine_free(e);
		free(e);
		return EXIT_RUN_FAILED;
	}
	if (sigwatch_start(&sw, e, err, sizeof(err))) {
		/* The first thread fsmix makes: a limit on threads shows here. Nothing was built;
		 * the --json/--csv files still say what happened. */
		fprintf(o->log, "fsmix: %s\n", err);
		e->failure = err;
		rc = write_outputs(e, EXIT_RUN_FAILED);
		engine_free(e);
		free(e);
		return rc;
	}
	if (!o->quiet)
		report_config(o->out, e);
	/* The latency log is opened (and its header written) before anything is built: a FILE
	 * that cannot be written is bad input, found before the tree costs any time. */
	if (o->lat_log_path) {
		if (latlog_open(&e->latlog, o->lat_log_path, err, sizeof(err))) {
			fprintf(o->log, "fsmix: %s\n", err);
			rc = EXIT_BAD_INPUT;
			goto done;
		}
		e->latlog_open = true;
	}
	rc = setup(e, err, sizeof(err));
	if (!rc && !o->quiet && !engine_stopping(e)) /* FFSB: before the sync and the callout */
		report_setup(o->out, e, !pl->time_s && !pl->counted);
	if (!rc && pl->callout && !engine_stopping(e)) {
		fflush(NULL);
		unsigned signals_before = stopsig_count();
		int st = run_callout(pl->callout);
		/* Ctrl-C reaches the callout and fsmix together; the callout may end before the
		 * watcher has read fsmix's signal, which is then still pending (or just noted). */
		if (stopsig_arrived(signals_before) && !engine_stopping(e))
			engine_stop(e, STOP_SIGNAL);
		if (st < 0)
			fprintf(o->log, "fsmix: warning: cannot run callout '%s': %s\n",
			        pl->callout, strerror(errno));
		else if (st != 0)
			fprintf(o->log, "fsmix: warning: callout '%s' exited with status %d\n",
			        pl->callout, WIFEXITED(st) ? WEXITSTATUS(st) : st);
	}
	if (!rc && engine_stopping(e))
		rc = EXIT_INTERRUPTED;
	if (rc) {
		if (rc == EXIT_INTERRUPTED) {
			snprintf(err, sizeof(err),
			         "interrupted during setup; nothing was measured");
			e->interrupted = true;
		}
		fprintf(o->log, "fsmix: %s\n", err);
		e->failure = err;
	} else if (!pl->time_s && !pl->counted) {
		/* time=0: only the tree was built (report_setup said so) */
	} else {
		rc = run_phase(e, err, sizeof(err));
		if (rc) {
			fprintf(o->log, "fsmix: %s\n", err);
			e->failure = err;
		} else {
			e->measured = true;
		}
	}
	/* For the reports: the watcher stored the signal before it set the stop flag. */
	if (atomic_load(&e->stop) == STOP_SIGNAL || rc == EXIT_INTERRUPTED)
		e->signal = atomic_load(&e->signal_seen);
	rc = write_outputs(e, rc);
done:
	/* Only the early way here (a --lat-log that cannot be opened) skips write_outputs, which
	 * does --cleanup; nothing was built then, so there is nothing to clean. */
	sigwatch_stop(&sw);
	engine_free(e);
	free(e);
	return rc;
}

int engine_clean(const struct plan *pl, const struct engine_opts *o)
{
	int rc = 0;
	int locks[pl->n_fs ? pl->n_fs : 1];
	/* Every location is locked before anything is removed: one in use by another process
	 * refuses the whole clean-up. */
	for (size_t i = 0; i < pl->n_fs; i++) {
		char why[512];
		locks[i] = tree_lock_location(pl->fs[i].location, why, sizeof(why));
		if (locks[i] == -EBUSY) {
			fprintf(o->log, "fsmix: %s: %s\n", pl->fs[i].name, why);
			for (size_t k = 0; k < i; k++)
				tree_unlock_location(locks[k]);
			return EXIT_BAD_INPUT;
		}
	}
	for (size_t i = 0; i < pl->n_fs; i++) {
		struct tree t;
		struct tree_purge sw = {0};
		char why[MSG_MAX];
		/* Opening only (no TREE_CREATE): nothing is created, so a full filesystem can be
		 * cleaned. tree_open also finishes an interrupted creation or removal. */
		int r = tree_open(&t, pl->fs[i].location, pl->fs[i].index, 0, why, sizeof(why));
		if (t.leftovers)
			fprintf(o->log, "fsmix: %s: finished removing an interrupted tree in %s\n",
			        pl->fs[i].name, pl->fs[i].location);
		if (r == -ENOENT && access(pl->fs[i].location, F_OK) == 0) {
			if (!t.leftovers)
				fprintf(o->log, "fsmix: %s: nothing to remove in %s\n",
				        pl->fs[i].name, pl->fs[i].location);
			continue;
		}
		if (r) {
			fprintf(o->log, "fsmix: %s: %s\n", pl->fs[i].name, why);
			int st = exit_of(tree_failure(r));
			rc = rc > st ? rc : st;
			continue;
		}
		char root[sizeof(t.root)]; /* "/fsmix.fs0" for location "/", not "//fsmix.fs0" */
		memcpy(root, t.root, sizeof(root));
		if (tree_remove(&t, &sw, why, sizeof(why))) {
			fprintf(o->log, "fsmix: %s: %s\n", pl->fs[i].name, why);
			rc = EXIT_RUN_FAILED;
		} else {
			fprintf(o->log, "fsmix: %s: removed %s (%" PRIu64 " entries)\n",
			        pl->fs[i].name, root, sw.removed);
		}
	}
	for (size_t i = 0; i < pl->n_fs; i++)
		tree_unlock_location(locks[i]);
	return rc;
}
