/* crew.c - a crew of workers: the run phase's made with what they hold and share (their
 * buffers, the read sinks, content=fixed's payload, --lat-log buffers, interval rows); any
 * crew's threads started together, held at the engine's start gate, released at once and
 * joined together (the run phase's workers and aging's). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "content.h"
#include "engine.h"
#include "engine_int.h"
#include "interval.h"
#include "threads.h"

/* ---- the run phase's crew: made before it starts ---- */

/* CPUs with a read sink of their own; beyond, CPUs share one (read_dst: cpu % sink_n). */
#define MAX_READ_SINKS 1024

/* The largest worker buffer of the run phase (each worker's is worker_buf_len of its group). */
static size_t run_buf_max(const struct engine *e)
{
	size_t len = 0;
	for (size_t gi = 0; gi < e->plan->n_groups; gi++) {
		size_t l = worker_buf_len(&e->plan->groups[gi]);
		len = l > len ? l : len;
	}
	return len;
}

/* content=fixed's payload (struct engine: fixed), made read-only once filled, so that a write
 * path that wrote into it would fault rather than change what other workers send. Returns 0, or
 * -1 with err. */
static int fixed_payload_make(struct engine *e, char *err, size_t errlen)
{
	size_t max = run_buf_max(e);
	void *m = mmap(NULL, max + 512, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		snprintf(err, errlen, "out of memory for the %zu-byte write payload: %s", max + 512,
		         strerror(errno));
		return -1;
	}
	const struct content_key fixed = {.mode = CONTENT_MODE_FIXED};
	content_fill(m, max + 512, &fixed, 1, 0);
	(void)mprotect(m, max + 512, PROT_READ); /* a guard only: the bytes are right either way */
	e->fixed = m;
	e->fixed_max = max;
	return 0;
}

/* The read sinks (struct engine): one per CPU, each as large as the largest worker buffer of the
 * run phase. A mapping of sink_n * sink_len bytes, of which only the sinks of the CPUs that read
 * touch memory. Marked MADV_DONTDUMP: their bytes are whatever was read last, of no use in a
 * core; and so the sinks stay a mapping of their own (VmFlags "dd" in /proc/PID/smaps, never
 * merged with a worker's), which is how bench_depth.sh tells their memory, touched as the
 * scheduler moves the readers between CPUs, from the threads' (tests/bench/smaps_rss.awk).
 * Returns 0, or -1 with err. */
static int read_sink_make(struct engine *e, char *err, size_t errlen)
{
	size_t len = run_buf_max(e);
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	size_t n = cpus < 1 ? 1 : cpus > MAX_READ_SINKS ? MAX_READ_SINKS : (size_t)cpus;
	void *m = mmap(NULL, n * len, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED) {
		snprintf(err, errlen, "out of memory for %zu read buffers of %zu bytes: %s", n, len,
		         strerror(errno));
		return -1;
	}
	(void)madvise(m, n * len, MADV_DONTDUMP); /* advice only: nothing depends on it */
	e->sink = m;
	e->sink_len = len;
	e->sink_n = n;
	return 0;
}

enum failure crew_make(struct engine *e, size_t n, char *err, size_t errlen)
{
	const struct plan *pl = e->plan;
	e->workers = calloc(n ? n : 1, sizeof(*e->workers));
	if (!e->workers) {
		snprintf(err, errlen, "out of memory for %zu workers", n);
		return FAIL_IO;
	}
	e->n_workers = 0; /* counts the workers made below, for the frees after a failure */
	/* ThreadSanitizer's read() interceptor counts the kernel's writes into the buffer as the
	 * calling thread's, so workers reading into one sink at once would look like a data race:
	 * a TSan build gives each worker its own read buffer, as verify=1 does. */
	if (!pl->verify && !FSMIX_TSAN && read_sink_make(e, err, errlen))
		return FAIL_IO;
	if (pl->content_mode == CONTENT_MODE_FIXED && fixed_payload_make(e, err, errlen))
		return FAIL_IO;
	uint32_t in_phase[PLAN_MAX_PHASES] = {0}; /* workers of each phase so far */
	for (size_t gi = 0, k = 0; gi < pl->n_groups; gi++)
		for (uint32_t t = 0; t < pl->groups[gi].num_threads; t++, k++) {
			const struct plan_group *g = &pl->groups[gi];
			enum failure f = FAIL_NONE;
			e->workers[k] = worker_new(e, g, gi, &e->group_ops[gi], e->group_ranges[gi],
			                           (unsigned)k, &f, err, errlen);
			if (!e->workers[k])
				return f;
			/* dir_per_thread: numbered among the threads that run together */
			e->workers[k]->dir_slot = pl->n_phases ? in_phase[g->phase]++ : (uint32_t)k;
			e->workers[k]->dir_slots =
			    (uint32_t)(pl->n_phases ? pl->phases[g->phase].threads
			                            : pl->total_threads);
			e->n_workers = k + 1;
			if (pl->groups[gi].num_ops) /* a counted group's worker (its w->g) */
				atomic_fetch_add(&e->counting, 1);
		}
	FSMIX_ASSERT_MSG(e->n_workers == n, "%zu workers made for %zu threads", e->n_workers, n);
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
					return FAIL_IO;
				}
			}
	}
	e->progress = pl->time_s > 1 && isatty(fileno(e->opts->log));
	if (e->opts->interval_s > 0 || e->progress) {
		e->ival_len_ns =
		    e->opts->interval_s > 0 ? (uint64_t)(e->opts->interval_s * 1e9) : 1000000000u;
		for (size_t i = 0; i < e->n_workers; i++) {
			e->workers[i]->ival = calloc(1, sizeof(struct ival_log));
			if (!e->workers[i]->ival) {
				snprintf(err, errlen, "out of memory for interval rows");
				return FAIL_IO;
			}
		}
	}
	return FAIL_NONE;
}

/* ---- a crew of workers: started together at the gate, joined together ---- */

#define WORKER_STACK (256 * 1024) /* bytes; workers keep paths and buffers off the stack */

/* Starts a thread for each of the n workers of ws; they wait at the engine's gate until
 * crew_release. When a thread cannot be created (a limit on threads or processes), the ones
 * that started are stopped and joined, and err names the limit: returns -1, and the caller must not
 * release or join them. `what` names the workers ("worker", "aging"). */
int crew_start(struct engine *e, struct worker **ws, size_t n, const char *what, char *err,
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
	return -1;
}

/* Until every worker waits at the gate (still closed). */
void crew_arrived(struct engine *e)
{
	gate_wait_arrived(&e->gate);
}

/* Once every worker waits at the gate: they all start at once. */
void crew_release(struct engine *e)
{
	gate_open_all(&e->gate);
}

void crew_join(struct worker **ws, size_t n)
{
	for (size_t i = 0; i < n; i++)
		pthread_join(ws[i]->thread, NULL);
}
