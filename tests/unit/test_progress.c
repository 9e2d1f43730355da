/* test_progress.c - the workers' progress counters (engine.h: done_ops, done_trans) as the main
 * thread reads them while the workers run (engine_progress: a distributed run's stonewall
 * snapshot): every operation counted once, the sums never go back and never pass what was done,
 * and, under ThreadSanitizer, no data race between a worker's stores and the main thread's
 * loads. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "interval.h"
#include "../../src/engine/internal/engine_int.h" /* white-box: the workers' counters */
#include "test.h"

#define N_WORKERS 4
#define N_OPS     200000u

static _Atomic int started;

/* A worker's side: what worker_main does after each operation that ran (3 transactions). */
static void *count_ops(void *arg)
{
	struct worker *w = arg;
	atomic_fetch_add(&started, 1);
	for (unsigned i = 0; i < N_OPS; i++) {
		struct op_result r = {.trans = 3, .bytes_read = 4096};
		worker_count_done(w, (enum op_id)(i % OP_COUNT), &r);
	}
	return NULL;
}

static void test_snapshot_while_running(void)
{
	struct engine e;
	memset(&e, 0, sizeof(e));
	struct worker *w[N_WORKERS];
	pthread_t t[N_WORKERS];
	for (int i = 0; i < N_WORKERS; i++) {
		w[i] = aligned_alloc(CACHELINE, (sizeof(*w[i]) + CACHELINE - 1) & ~(size_t)63);
		CHECK(w[i] != NULL);
		memset(w[i], 0, sizeof(*w[i]));
		CHECK_EQ_I(thread_stats_init(&w[i]->st, NULL), 0);
	}
	e.workers = w;
	e.n_workers = N_WORKERS;
	e.t_base = 1000000000u;
	struct engine_count c = engine_progress(&e, 3500000000u);
	CHECK_EQ_U(c.ops, 0);
	CHECK_NEAR(c.at_s, 2.5, 1e-12);
	for (int i = 0; i < N_WORKERS; i++)
		CHECK_EQ_I(pthread_create(&t[i], NULL, count_ops, w[i]), 0);
	uint64_t last = 0, reads = 0;
	while (atomic_load(&started) < N_WORKERS || last < (uint64_t)N_WORKERS * N_OPS) {
		c = engine_progress(&e, 0);
		CHECK(c.ops >= last && c.ops <= (uint64_t)N_WORKERS * N_OPS);
		CHECK(c.trans <= 3 * (uint64_t)N_WORKERS * N_OPS);
		last = c.ops;
		reads++;
	}
	for (int i = 0; i < N_WORKERS; i++)
		pthread_join(t[i], NULL);
	c = engine_progress(&e, 0);
	CHECK_EQ_U(c.ops, (uint64_t)N_WORKERS * N_OPS);
	CHECK_EQ_U(c.trans, 3 * (uint64_t)N_WORKERS * N_OPS);
	CHECK_NEAR(c.at_s, 0, 0); /* "now" before the start: 0 */
	CHECK(reads > 0);
	/* the statistics count the same operations */
	uint64_t st_ops = 0;
	for (int i = 0; i < N_WORKERS; i++) {
		for (int op = 0; op < OP_COUNT; op++)
			st_ops += w[i]->st.ops[op];
		thread_stats_free(&w[i]->st);
		free(w[i]);
	}
	CHECK_EQ_U(st_ops, c.ops);
}

/* ramp_time: at the ramp's end a worker's progress counts go back to zero with its statistics,
 * so the progress a distributed run's snapshot reads (and the statistics) count only what was
 * done after it. */
static void test_ramp_done(void)
{
	struct engine e;
	memset(&e, 0, sizeof(e));
	struct worker *w = aligned_alloc(CACHELINE, (sizeof(*w) + CACHELINE - 1) & ~(size_t)63);
	CHECK(w != NULL);
	if (!w)
		return;
	memset(w, 0, sizeof(*w));
	CHECK_EQ_I(thread_stats_init(&w->st, NULL), 0);
	e.workers = &w;
	e.n_workers = 1;
	struct op_result r = {.trans = 3, .bytes_written = 4096};
	for (int i = 0; i < 5; i++)
		worker_count_done(w, OP_write, &r);
	w->skipped[OP_read] = 2;
	worker_ramp_done(w);
	struct engine_count c = engine_progress(&e, 0);
	CHECK_EQ_U(c.ops, 0);
	CHECK_EQ_U(c.trans, 0);
	CHECK_EQ_U(w->st.ops[OP_write], 0);
	CHECK_EQ_U(w->st.trans[OP_write], 0);
	CHECK_EQ_U(w->skipped[OP_read], 0);
	CHECK(w->t_start > 0);
	worker_count_done(w, OP_write, &r);
	c = engine_progress(&e, 0);
	CHECK_EQ_U(c.ops, 1);
	CHECK_EQ_U(c.trans, 3);
	CHECK_EQ_U(w->st.ops[OP_write], 1);
	CHECK_EQ_U(w->st.trans[OP_write], 3);
	thread_stats_free(&w->st);
	free(w);
}

/* engine_merge_intervals: the workers' rows summed per interval (a group's only its own), so
 * the rows add up to what the workers logged; the last row is cut at the run's end; without a
 * row published (every worker's log failed to grow) there are none, not an empty one. */
static void test_merge_intervals(void)
{
	static struct ival_log l[2];
	static struct worker w[2];
	struct worker *wp[2] = {&w[0], &w[1]};
	struct plan pl;
	struct engine e;
	memset(&pl, 0, sizeof(pl));
	memset(&e, 0, sizeof(e));
	const uint64_t s = 1000000000u, base = 5 * s;
	e.plan = &pl;
	e.workers = wp;
	e.n_workers = 2;
	e.t_base = base;
	e.ival_len_ns = s;
	e.run_end_ns = base + 2 * s + s / 2; /* 2.5 s */
	for (int i = 0; i < 2; i++) {
		ival_init(&l[i], base, s);
		w[i].ival = &l[i];
		w[i].group = (unsigned)i;
	}
	size_t n = 9;
	struct interval_row *v = engine_merge_intervals(&e, SIZE_MAX, &n);
	CHECK(v != NULL);
	CHECK_EQ_U(n, 0); /* nothing published */
	free(v);
	ival_add(&l[0], base + 1, 2, 100, 0);          /* row 0 */
	ival_add(&l[0], base + s + 1, 3, 100, 0);      /* row 1 */
	ival_add(&l[1], base + 2 * s + 1, 5, 1000, 0); /* row 2 */
	ival_finish(&l[0], base + 2 * s + s / 2);
	ival_finish(&l[1], base + 2 * s + s / 2);
	v = engine_merge_intervals(&e, SIZE_MAX, &n);
	CHECK(v != NULL);
	CHECK_EQ_U(n, 3);
	uint64_t ops = 0, trans = 0;
	for (size_t k = 0; v && k < n; k++) {
		ops += v[k].ops;
		trans += v[k].trans;
		CHECK(!v[k].ramp);
	}
	CHECK_EQ_U(ops, 3);
	CHECK_EQ_U(trans, 10);
	if (v && n == 3) {
		CHECK_EQ_U(v[1].trans, 3);
		CHECK_NEAR(v[2].t_s, 2.5, 1e-9);
		CHECK_NEAR(v[2].length_s, 0.5, 1e-9);
	}
	free(v);
	v = engine_merge_intervals(&e, 1, &n); /* group 1: worker 1 only */
	CHECK_EQ_U(n, 3);
	if (v && n == 3)
		CHECK(v[0].ops == 0 && v[1].ops == 0 && v[2].ops == 1 && v[2].bytes == 1000);
	free(v);
	for (int i = 0; i < 2; i++)
		ival_free(&l[i]);
}

int main(void)
{
	RUN(test_snapshot_while_running);
	RUN(test_ramp_done);
	RUN(test_merge_intervals);
	return test_summary();
}
