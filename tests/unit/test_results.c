/* test_results.c - the results model: results_merge of the results of two runs equals the
 * results of one run whose threads were both runs' threads (every counter, histogram bucket,
 * msec_range count and percentile), in either order; merging refuses another plan; the derived
 * figures (rates, shown ops, skipped share, flushes per sync call by results.h's one rule). */
#include "results.h"
#include "rng.h"
#include "test.h"

#include <errno.h>
#include <math.h>

#define THREADS 5

static struct plan_group groups[2];
static struct plan_fs fss[3];
static struct plan plan;

static void make_plan(void)
{
	static struct plan_range ranges[2] = {{0, 1}, {1, 50}};
	memset(groups, 0, sizeof(groups));
	fss[0] = (struct plan_fs){.index = 0, .name = "filesystem0", .location = "/a"};
	fss[1] = (struct plan_fs){.index = 1, .name = "filesystem1", .location = "/b"};
	fss[2] = (struct plan_fs){.index = 2, .name = "filesystem2", .location = "/c"};
	groups[0] = (struct plan_group){.index = 0,
	                                .name = "threadgroup0",
	                                .num_threads = 1,
	                                .bindfs = 0,
	                                .enable_stats = true,
	                                .enable_range = true,
	                                .ranges = ranges,
	                                .n_ranges = 2};
	groups[0].weight[OP_read] = 2;
	groups[0].weight[OP_write_fsync] = 1;
	groups[1] =
	    (struct plan_group){.index = 1, .name = "threadgroup1", .num_threads = 1, .bindfs = -1};
	groups[1].weight[OP_create] = 1;
	groups[1].weight[OP_sync] = 1;
	plan = (struct plan){
	    .time_s = 5, .fs = fss, .n_fs = 3, .groups = groups, .n_groups = 2, .total_threads = 2};
}

/* Thread t of a run records its samples (seeded by t alone, so thread t is the same thread in
 * any run it belongs to) into group g's statistics: what a worker and the merge after the join
 * do. */
static void record_thread(struct results *r, unsigned t)
{
	struct rng rng;
	rng_seed(&rng, 42, t);
	size_t gi = t % 2;
	struct results_group *g = &r->groups[gi];
	for (int i = 0; i < 2000; i++) {
		uint64_t ns = 1000 + rng_below(&rng, 5000000) * (1 + (uint64_t)(i % 7 == 0) * 20);
		enum op_id op =
		    gi ? (i % 50 ? OP_create : OP_sync) : (i % 3 ? OP_read : OP_write_fsync);
		g->st.ops[op]++;
		g->st.trans[op] += 1 + (uint64_t)i % 3;
		g->st.bytes_read[op] += op == OP_read ? 4096 : 0;
		g->st.bytes_written[op] += op == OP_read ? 0 : 8192;
		stats_op_record(&g->st, op, ns);
		stats_sys_record(&g->st, op == OP_read ? SYS_read : SYS_write, ns / 2);
		if (op == OP_write_fsync)
			stats_sys_record(&g->st, SYS_fsync, ns / 3);
		if (op == OP_sync)
			stats_sys_record(&g->st, SYS_sync, ns);
		if (i % 97 == 0) {
			g->skipped[op]++;
			g->st.errors[op] += i % 2;
		}
	}
	struct results_error e = {.worker = t, .group = (unsigned)gi, .err = EIO, .at_ns = t};
	snprintf(e.path, sizeof(e.path), "/a/f%u", t);
	if (t % 2)
		(void)results_add_error(r, &e);
	r->user_s += 0.5 * t;
	r->sys_s += 0.25;
	r->runtime_s = r->runtime_s > 1.0 + t ? r->runtime_s : 1.0 + t;
}

/* One run of threads [from, to): its results. */
static void run_of(struct results *r, unsigned from, unsigned to)
{
	CHECK_EQ_I(results_init(r, &plan), 0);
	r->groups[0].num_threads = r->groups[1].num_threads = 0;
	r->total_threads = to - from;
	for (unsigned t = from; t < to; t++) {
		record_thread(r, t);
		r->groups[t % 2].num_threads++;
	}
	CHECK_EQ_I(results_total_of_groups(r), 0); /* as the engine makes it */
	r->measured = true;
	r->stop = STOP_TIME;
	struct interval_row rows[3];
	for (unsigned k = 0; k < 3; k++)
		rows[k] = (struct interval_row){.t_s = k + 1.0,
		                                .length_s = 1.0,
		                                .ops = 10 * (to - from) + k,
		                                .trans = to,
		                                .bytes = 4096 * from,
		                                .p99_op_ns = 1000 * (k + to)};
	CHECK_EQ_I(results_set_intervals(r, SIZE_MAX, rows, 3 - (from > 0)), 0);
	r->fs[0].dev.has_device = true;
	/* every device counter adds up over the threads' share, each with its own factor, so a
	 * counter the merge drops or mixes up shows */
	uint64_t n = to - from;
	r->fs[0].dev_delta = (struct devstat_sample){.valid = true,
	                                             .has_discard = true,
	                                             .has_flush = true,
	                                             .read_ios = 2 * n,
	                                             .read_merges = 3 * n,
	                                             .read_sectors = 5 * n,
	                                             .read_ticks_ms = 11 * n,
	                                             .write_ios = 13 * n,
	                                             .write_merges = 17 * n,
	                                             .write_sectors = 19 * n,
	                                             .write_ticks_ms = 23 * n,
	                                             .in_flight = 29 * n,
	                                             .io_ticks_ms = 31 * n,
	                                             .time_in_queue_ms = 37 * n,
	                                             .discard_ios = 41 * n,
	                                             .discard_merges = 43 * n,
	                                             .discard_sectors = 47 * n,
	                                             .discard_ticks_ms = 53 * n,
	                                             .flush_ios = 7 * n,
	                                             .flush_ticks_ms = 59 * n};
	r->fs[0].built_files = to - from;
}

static void check_lat_equal(const struct lat_stats *a, const struct lat_stats *b)
{
	CHECK_EQ_U(a->n, b->n);
	CHECK_EQ_U(a->sum_ns, b->sum_ns);
	CHECK_EQ_U(a->min_ns, b->min_ns);
	CHECK_EQ_U(a->max_ns, b->max_ns);
	CHECK(a->sum_sq_ns == b->sum_sq_ns);
	CHECK(!memcmp(&a->h, &b->h, sizeof(a->h)));
	static const double pct[] = {0, 50, 90, 99, 99.9, 99.99, 100};
	for (size_t i = 0; i < sizeof(pct) / sizeof(pct[0]); i++)
		CHECK_EQ_U(lat_percentile_ns(a, pct[i]), lat_percentile_ns(b, pct[i]));
}

static void check_stats_equal(const struct thread_stats *a, const struct thread_stats *b)
{
	CHECK(!memcmp(a->ops, b->ops, sizeof(a->ops)));
	CHECK(!memcmp(a->trans, b->trans, sizeof(a->trans)));
	CHECK(!memcmp(a->bytes_read, b->bytes_read, sizeof(a->bytes_read)));
	CHECK(!memcmp(a->bytes_written, b->bytes_written, sizeof(a->bytes_written)));
	CHECK(!memcmp(a->errors, b->errors, sizeof(a->errors)));
	for (int op = 0; op < OP_COUNT; op++)
		check_lat_equal(&a->op_lat[op], &b->op_lat[op]);
	for (int s = 0; s < SYS_COUNT; s++) {
		check_lat_equal(&a->sys_lat[s], &b->sys_lat[s]);
		const uint64_t *ra = stats_range_row(a, (enum sys_id)s);
		const uint64_t *rb = stats_range_row(b, (enum sys_id)s);
		CHECK((ra == NULL) == (rb == NULL));
		if (ra && rb)
			CHECK(!memcmp(ra, rb, a->range_cols * sizeof(*ra)));
	}
}

/* Every field of the device counters, one by one (merge_dev adds them field by field). */
static void check_dev_equal(const struct devstat_sample *a, const struct devstat_sample *b)
{
	CHECK(a->valid == b->valid && a->has_discard == b->has_discard &&
	      a->has_flush == b->has_flush);
	const uint64_t *fa[] = {&a->read_ios,       &a->read_merges,      &a->read_sectors,
	                        &a->read_ticks_ms,  &a->write_ios,        &a->write_merges,
	                        &a->write_sectors,  &a->write_ticks_ms,   &a->in_flight,
	                        &a->io_ticks_ms,    &a->time_in_queue_ms, &a->discard_ios,
	                        &a->discard_merges, &a->discard_sectors,  &a->discard_ticks_ms,
	                        &a->flush_ios,      &a->flush_ticks_ms};
	const uint64_t *fb[] = {&b->read_ios,       &b->read_merges,      &b->read_sectors,
	                        &b->read_ticks_ms,  &b->write_ios,        &b->write_merges,
	                        &b->write_sectors,  &b->write_ticks_ms,   &b->in_flight,
	                        &b->io_ticks_ms,    &b->time_in_queue_ms, &b->discard_ios,
	                        &b->discard_merges, &b->discard_sectors,  &b->discard_ticks_ms,
	                        &b->flush_ios,      &b->flush_ticks_ms};
	for (size_t i = 0; i < sizeof(fa) / sizeof(fa[0]); i++)
		CHECK_EQ_U(*fa[i], *fb[i]);
}

static void check_results_equal(const struct results *m, const struct results *one)
{
	for (size_t gi = 0; gi < 2; gi++) {
		check_stats_equal(&m->groups[gi].st, &one->groups[gi].st);
		CHECK(!memcmp(m->groups[gi].skipped, one->groups[gi].skipped,
		              sizeof(m->groups[gi].skipped)));
		CHECK_EQ_U(m->groups[gi].num_threads, one->groups[gi].num_threads);
	}
	check_stats_equal(&m->total, &one->total);
	CHECK(!memcmp(m->total_skipped, one->total_skipped, sizeof(m->total_skipped)));
	CHECK_EQ_U(m->total_threads, one->total_threads);
	CHECK_EQ_U(m->n_errors, one->n_errors);
	CHECK_NEAR(m->user_s, one->user_s, 1e-12);
	CHECK_NEAR(m->sys_s, one->sys_s, 1e-12);
	CHECK_NEAR(m->runtime_s, one->runtime_s, 1e-12);
	check_dev_equal(&m->fs[0].dev_delta, &one->fs[0].dev_delta);
	CHECK_EQ_U(m->fs[0].built_files, one->fs[0].built_files);
	/* the derived figures of the merge are those of the one run */
	struct results_sums sm, so;
	results_sums(&m->total, m->total_skipped, &sm);
	results_sums(&one->total, one->total_skipped, &so);
	CHECK(!memcmp(&sm, &so, sizeof(sm)));
	CHECK_NEAR(results_skipped_pct(&sm), results_skipped_pct(&so), 1e-12);
}

static void test_merge_equals_one_run(void)
{
	make_plan();
	static struct results a, b, one, b2, a2;
	run_of(&a, 0, 3);         /* threads 0, 1, 2 */
	run_of(&b, 3, THREADS);   /* threads 3, 4 */
	run_of(&one, 0, THREADS); /* all of them in one run */
	CHECK_EQ_I(results_merge(&a, &b), 0);
	check_results_equal(&a, &one);
	/* errors are concatenated: A's first */
	CHECK_EQ_U(a.n_errors, 2);
	CHECK_EQ_U(a.errors[0].worker, 1);
	CHECK_EQ_U(a.errors[1].worker, 3);
	/* interval rows by index: counts add, the longer list's extra row is kept */
	CHECK_EQ_U(a.n_intervals, 3);
	CHECK_EQ_U(a.intervals[0].ops, 10 * 3 + 10 * 2);
	CHECK_EQ_U(a.intervals[2].ops, 10 * 3 + 2);
	CHECK_EQ_U(a.intervals[1].trans, 3 + THREADS);
	CHECK_EQ_U(a.intervals[1].p99_op_ns, 1000 * (1 + THREADS));
	/* the other order: the same figures */
	run_of(&b2, 3, THREADS);
	run_of(&a2, 0, 3);
	CHECK_EQ_I(results_merge(&b2, &a2), 0);
	check_results_equal(&b2, &one);
	CHECK_EQ_U(b2.errors[0].worker, 3);
	/* a device that reports no flush or discard counters on one side: none in the sum */
	static struct results c, d;
	run_of(&c, 0, 3);
	run_of(&d, 3, THREADS);
	d.fs[0].dev_delta.has_flush = false;
	d.fs[0].dev_delta.has_discard = false;
	CHECK_EQ_I(results_merge(&c, &d), 0);
	CHECK(!c.fs[0].dev_delta.has_flush && !c.fs[0].dev_delta.has_discard);
	results_free(&c);
	results_free(&d);
	results_free(&a);
	results_free(&b);
	results_free(&one);
	results_free(&b2);
	results_free(&a2);
}

static void test_merge_refuses_other_plan(void)
{
	make_plan();
	static struct results a, b;
	run_of(&a, 0, 1);
	uint64_t ops = a.total.ops[OP_read];
	groups[1].weight[OP_create] = 2; /* another mix */
	run_of(&b, 1, 2);
	CHECK_EQ_I(results_merge(&a, &b), -EINVAL);
	CHECK_EQ_U(a.total.ops[OP_read], ops); /* unchanged */
	results_free(&b);
	make_plan();
	groups[0].ranges[1].hi_ms = 60; /* other msec_ranges */
	run_of(&b, 1, 2);
	CHECK_EQ_I(results_merge(&a, &b), -EINVAL);
	groups[0].ranges[1].hi_ms = 50;
	results_free(&a);
	results_free(&b);
}

static void test_derived(void)
{
	make_plan();
	static struct results r;
	run_of(&r, 0, 2);
	CHECK(isnan(results_rate(5, 0)));
	CHECK_NEAR(results_rate(5, 2), 2.5, 1e-12);
	/* weighted but never run: shown; neither: not shown */
	CHECK(results_op_shown(&r, &r.groups[0], OP_write_fsync));
	CHECK(!results_op_shown(&r, &r.groups[0], OP_stat));
	CHECK(results_op_shown(&r, NULL, OP_create));
	struct results_sums s = {.ops = 90, .errors = 5, .skipped = 5};
	CHECK_NEAR(results_skipped_pct(&s), 5.0, 1e-12);
	struct results_sums none = {0};
	CHECK_NEAR(results_skipped_pct(&none), 0.0, 1e-12);

	/* flushes per sync call: group 0 (bound to filesystem0) issues fsyncs, group 1 (unbound,
	 * three filesystems) only sync(): sync() reaches every filesystem, so filesystem0 gets
	 * group 0's fsyncs and group 1's syncs, filesystem1 and 2 the syncs alone. */
	uint64_t fsyncs = r.groups[0].st.sys_lat[SYS_fsync].n, syncs = r.groups[1].st.ops[OP_sync];
	CHECK(fsyncs > 0 && syncs > 0);
	struct results_flushes fl;
	results_fs_flushes(&r, 0, &fl);
	CHECK(!fl.why && !fl.flush_why && fl.syncs_known && !fl.per_sync_why);
	CHECK_EQ_U(fl.syncs, fsyncs + syncs);
	CHECK_NEAR(fl.per_sync, 14.0 / (double)(fsyncs + syncs), 1e-12);
	results_fs_flushes(&r, 1, &fl);
	CHECK(fl.why != NULL); /* no device: no counters, no per-sync figure */
	CHECK(fl.syncs_known);
	CHECK_EQ_U(fl.syncs, syncs);
	CHECK(fl.per_sync_why != NULL && isnan(fl.per_sync));
	/* a group issuing fsyncs on a random filesystem of several: unknown everywhere */
	r.groups[0].bindfs = -1;
	results_fs_flushes(&r, 0, &fl);
	CHECK(!fl.syncs_known);
	CHECK(fl.per_sync_why && strstr(fl.per_sync_why, "bindfs"));
	results_free(&r);
}

/* results_init_lazy: groups not ready until made so; a merge makes the destination's ready and
 * gives the same figures as into results_init's. */
static void test_lazy(void)
{
	make_plan();
	static struct results lazy, eager, src;
	CHECK_EQ_I(results_init_lazy(&lazy, &plan), 0);
	CHECK_EQ_I(results_init(&eager, &plan), 0);
	CHECK(!lazy.groups[0].st_ready && !lazy.groups[1].st_ready);
	for (size_t gi = 0; gi < 2; gi++) /* each group keeps the plan's index (the report's) */
		CHECK(lazy.groups[gi].index == gi && eager.groups[gi].index == gi);
	CHECK(eager.groups[0].st_ready && eager.groups[1].st_ready);
	run_of(&src, 0, 2);
	CHECK_EQ_I(results_merge(&lazy, &src), 0);
	CHECK_EQ_I(results_merge(&eager, &src), 0);
	CHECK(lazy.groups[0].st_ready && lazy.groups[1].st_ready);
	for (size_t gi = 0; gi < 2; gi++)
		check_stats_equal(&lazy.groups[gi].st, &eager.groups[gi].st);
	CHECK_EQ_I(results_group_ready(&lazy, 0), 0); /* ready already: unchanged */
	CHECK_EQ_U(lazy.groups[0].st.ops[OP_read], src.groups[0].st.ops[OP_read]);
	results_free(&lazy);
	results_free(&eager);
	results_free(&src);
}

int main(void)
{
	RUN(test_merge_equals_one_run);
	RUN(test_merge_refuses_other_plan);
	RUN(test_derived);
	RUN(test_lazy);
	return test_summary();
}
