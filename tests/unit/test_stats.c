/* test_stats.c - lat_stats moments and percentiles, msec_range tables, thread_stats merging. */
#include "rng.h"
#include "stats.h"
#include "test.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>

/* lat_equal - byte-for-byte equal (struct lat_stats has no padding: 4 x 8 B, 16 B, hist). */
static int lat_equal(const struct lat_stats *a, const struct lat_stats *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

_Static_assert(sizeof(struct lat_stats) == 4 * 8 + 16 + sizeof(struct hist), "no padding");

/* stats_equal - every counter, series and range count equal. */
static int stats_equal(const struct thread_stats *a, const struct thread_stats *b)
{
	if (memcmp(a->ops, b->ops, sizeof(a->ops)) ||
	    memcmp(a->trans, b->trans, sizeof(a->trans)) ||
	    memcmp(a->bytes_read, b->bytes_read, sizeof(a->bytes_read)) ||
	    memcmp(a->bytes_written, b->bytes_written, sizeof(a->bytes_written)) ||
	    memcmp(a->errors, b->errors, sizeof(a->errors)) ||
	    memcmp(a->op_lat, b->op_lat, sizeof(a->op_lat)) ||
	    memcmp(a->sys_lat, b->sys_lat, sizeof(a->sys_lat)) || a->range_cols != b->range_cols)
		return 0;
	if (!a->range_counts || !b->range_counts)
		return a->range_counts == b->range_counts;
	return memcmp(a->range_counts, b->range_counts,
	              (size_t)SYS_COUNT * a->range_cols * sizeof(uint64_t)) == 0;
}

static struct lat_stats *lat_new(void)
{
	struct lat_stats *l = malloc(sizeof(*l));
	if (!l) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	lat_init(l);
	return l;
}

static struct thread_stats *stats_new(const struct range_table *t)
{
	struct thread_stats *st = malloc(sizeof(*st));
	if (!st || thread_stats_init(st, t) != 0) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return st;
}

static void stats_delete(struct thread_stats *st)
{
	thread_stats_free(st);
	free(st);
}

/* min/max/mean/stddev against two-pass values computed here. */
static void test_lat_moments(void)
{
	enum { N = 100000 };
	struct lat_stats *l = lat_new();
	static uint64_t v[N];
	struct rng r;
	rng_seed(&r, 1, 2);
	uint64_t mn = UINT64_MAX, mx = 0;
	double sum = 0;
	for (int i = 0; i < N; i++) {
		v[i] = 1000 + rng_below(&r, 5000000);
		lat_record(l, v[i]);
		mn = v[i] < mn ? v[i] : mn;
		mx = v[i] > mx ? v[i] : mx;
		sum += (double)v[i];
	}
	double mean = sum / N, ss = 0;
	for (int i = 0; i < N; i++)
		ss += ((double)v[i] - mean) * ((double)v[i] - mean);
	double sd = sqrt(ss / N); /* population */
	CHECK_EQ_U(l->n, N);
	CHECK_EQ_U(l->min_ns, mn);
	CHECK_EQ_U(lat_min_ns(l), mn);
	CHECK_EQ_U(l->max_ns, mx);
	CHECK_NEAR(lat_mean_ns(l), mean, mean * 1e-12);
	CHECK_NEAR(lat_stddev_ns(l), sd, sd * 1e-9);
	CHECK_EQ_U(hist_count(&l->h), N);
	CHECK_EQ_U(lat_percentile_ns(l, 0), mn);
	CHECK_EQ_U(lat_percentile_ns(l, 100), mx);
	free(l);
}

/* Small spread on a large mean: the exact integer sums avoid cancellation. */
static void test_lat_stddev_precision(void)
{
	struct lat_stats *l = lat_new();
	for (int i = 0; i < 1000000; i++)
		lat_record(l, UINT64_C(1000000000000) + (uint64_t)(i & 1)); /* 1000 s +- 0.5 ns */
	CHECK_NEAR(lat_stddev_ns(l), 0.5, 1e-9);
	CHECK_NEAR(lat_mean_ns(l), 1000000000000.5, 1e-3);
	lat_init(l);
	const uint64_t s[] = {2, 4, 4, 4, 5, 5, 7, 9}; /* textbook: mean 5, sd 2 */
	for (size_t i = 0; i < ARRAY_SIZE(s); i++)
		lat_record(l, s[i]);
	CHECK_NEAR(lat_stddev_ns(l), 2.0, 1e-12);
	CHECK_NEAR(lat_mean_ns(l), 5.0, 1e-12);
	lat_init(l);
	lat_record(l, 7);
	CHECK_NEAR(lat_stddev_ns(l), 0.0, 0);
	free(l);
}

/* Empty series: zeros from every accessor, and the identity of lat_merge. */
static void test_lat_empty(void)
{
	struct lat_stats *e = lat_new(), *a = lat_new(), *b = lat_new();
	CHECK_EQ_U(e->min_ns, UINT64_MAX);
	CHECK_EQ_U(lat_min_ns(e), 0);
	CHECK_NEAR(lat_mean_ns(e), 0, 0);
	CHECK_NEAR(lat_stddev_ns(e), 0, 0);
	CHECK_EQ_U(lat_percentile_ns(e, 50), 0);
	for (uint64_t v = 1; v < 5000; v += 7)
		lat_record(a, v * v);
	*b = *a;
	lat_merge(b, e);
	CHECK(lat_equal(a, b));
	*b = *e;
	lat_merge(b, a);
	CHECK(lat_equal(a, b));
	*b = *e;
	lat_merge(b, e);
	CHECK(lat_equal(b, e));
	free(e);
	free(a);
	free(b);
}

/* A single sample reports itself at every percentile; ranks 1 and n are exact. */
static void test_lat_percentile_exact_ends(void)
{
	struct lat_stats *l = lat_new();
	lat_record(l, 123457);
	const double ps[] = {0, 1, 50, 99.99, 100};
	for (size_t i = 0; i < ARRAY_SIZE(ps); i++)
		CHECK_EQ_U(lat_percentile_ns(l, ps[i]), 123457);
	lat_record(l, 987654321);
	CHECK_EQ_U(lat_percentile_ns(l, 50), 123457);
	CHECK_EQ_U(lat_percentile_ns(l, 50.1), 987654321);
	CHECK_EQ_U(lat_percentile_ns(l, 100), 987654321);
	/* Clamp into [min, max]: 3 samples in one wide bucket report inside the sample range. */
	lat_init(l);
	lat_record(l, 1000001);
	lat_record(l, 1000002);
	lat_record(l, 1000003);
	uint64_t p50 = lat_percentile_ns(l, 50);
	CHECK(p50 >= 1000001 && p50 <= 1000003);
	/* Values above the histogram's range still report the exact max. */
	lat_init(l);
	lat_record(l, HIST_LIMIT_NS * 4);
	lat_record(l, HIST_LIMIT_NS * 2);
	lat_record(l, 5);
	CHECK_EQ_U(lat_percentile_ns(l, 100), HIST_LIMIT_NS * 4);
	/* rank 2 of 3 is a clamped value: the last bucket's midpoint, the best the histogram has */
	CHECK_EQ_U(lat_percentile_ns(l, 60), hist_bucket_mid(HIST_BUCKETS - 1));
	free(l);
}

static struct range_table *table(const double *ms, uint32_t n)
{
	struct range_table *t = NULL;
	int rc = range_table_new(&t, ms, n);
	CHECK_EQ_I(rc, 0);
	return t;
}

/* Boundary rule: lo inclusive, hi exclusive, top range's hi inclusive, gaps and ends outside. */
static void test_range_rules(void)
{
	/* Declared out of order, with a gap between 2 ms and 5 ms. */
	const double ms[] = {5, 10, 0.5, 1, 1, 2};
	struct range_table *t = table(ms, 3);
	if (!t)
		return;
	CHECK_EQ_U(t->n, 3);
	CHECK_EQ_U(t->r[0].lo_ns, 500000);
	CHECK_EQ_U(t->r[0].decl, 1);
	CHECK_EQ_U(t->r[1].decl, 2);
	CHECK_EQ_U(t->r[2].decl, 0);
	CHECK_EQ_U(t->r[2].hi_ns, 10000000);
	const uint32_t out = t->n;
	CHECK_EQ_U(range_table_find(t, 0), out);        /* below the first range */
	CHECK_EQ_U(range_table_find(t, 499999), out);   /* just below lo */
	CHECK_EQ_U(range_table_find(t, 500000), 0);     /* exactly lo */
	CHECK_EQ_U(range_table_find(t, 999999), 0);     /* just below hi */
	CHECK_EQ_U(range_table_find(t, 1000000), 1);    /* exactly hi = next lo: upper range */
	CHECK_EQ_U(range_table_find(t, 1999999), 1);    /* */
	CHECK_EQ_U(range_table_find(t, 2000000), out);  /* hi of a non-top range, gap after */
	CHECK_EQ_U(range_table_find(t, 3000000), out);  /* in the gap */
	CHECK_EQ_U(range_table_find(t, 4999999), out);  /* gap, just below lo */
	CHECK_EQ_U(range_table_find(t, 5000000), 2);    /* exactly lo */
	CHECK_EQ_U(range_table_find(t, 10000000), 2);   /* the top range's hi is inclusive */
	CHECK_EQ_U(range_table_find(t, 10000001), out); /* above the top */
	CHECK_EQ_U(range_table_find(t, UINT64_MAX), out);
	range_table_free(t);

	/* One range; and an empty table where everything is outside. */
	const double one[] = {0, 1};
	t = table(one, 1);
	if (t) {
		CHECK_EQ_U(range_table_find(t, 0), 0);
		CHECK_EQ_U(range_table_find(t, 1000000), 0);
		CHECK_EQ_U(range_table_find(t, 1000001), 1);
		range_table_free(t);
	}
	t = table(NULL, 0);
	if (t) {
		CHECK_EQ_U(range_table_find(t, 12345), 0);
		range_table_free(t);
	}
}

/* linear_find - the rule spelled out the slow way, to cross-check the binary search. */
static uint32_t linear_find(const struct range_table *t, uint64_t v)
{
	uint32_t top = 0;
	for (uint32_t i = 0; i < t->n; i++)
		if (t->r[i].hi_ns >= t->r[top].hi_ns)
			top = i;
	for (uint32_t i = 0; i < t->n; i++)
		if (t->r[i].lo_ns <= v && (v < t->r[i].hi_ns || (i == top && v == t->r[i].hi_ns)))
			return i;
	return t->n;
}

/* Random tables of 0..70 ranges with random gaps: binary search == linear scan, for random
 * values and for every boundary +- 1. */
static void test_range_find_random(void)
{
	struct rng r;
	rng_seed(&r, 77, 0);
	double ms[2 * 70];
	int bad = 0;
	for (int round = 0; round < 300; round++) {
		uint32_t n = (uint32_t)rng_below(&r, 71);
		double at = (double)rng_below(&r, 3);
		for (uint32_t i = 0; i < n; i++) {
			double lo = at + (rng_below(&r, 3) == 0 ? (double)rng_below(&r, 5) : 0);
			double hi = lo + (double)rng_below(&r, 4); /* zero-width ranges too */
			ms[2 * i] = lo / 1000;                     /* us as ms */
			ms[2 * i + 1] = hi / 1000;
			at = hi;
		}
		struct range_table *t = table(ms, n);
		if (!t)
			return;
		for (uint32_t i = 0; i < n; i++) {
			for (int d = -1; d <= 1; d++) {
				uint64_t a = t->r[i].lo_ns + (uint64_t)d,
				         b = t->r[i].hi_ns + (uint64_t)d;
				bad += range_table_find(t, a) != linear_find(t, a);
				bad += range_table_find(t, b) != linear_find(t, b);
			}
		}
		for (int k = 0; k < 200; k++) {
			uint64_t v = rng_below(&r, (uint64_t)(at + 2) * 1000);
			bad += range_table_find(t, v) != linear_find(t, v);
		}
		range_table_free(t);
	}
	CHECK_EQ_I(bad, 0);
}

/* ms -> ns is rounded to the nearest ns, never truncated. */
static void test_range_exact_conversion(void)
{
	const double ms[] = {0.01, 0.02, 0.02, 0.3, 0.3, 1.001, 1.001, 1e7, 0.00397, 0.00401};
	struct range_table *t = table(ms, 5);
	if (!t)
		return;
	/* Truncation would be wrong here: 1.001 * 1e6 == 1000999.9999999999 in binary. */
	CHECK_EQ_U((uint64_t)(ms[5] * 1e6), 1000999);
	CHECK_EQ_U((uint64_t)(ms[8] * 1e6), 3969);
	CHECK_EQ_U(t->r[0].lo_ns, 3970);
	CHECK_EQ_U(t->r[0].hi_ns, 4010);
	CHECK_EQ_U(t->r[1].lo_ns, 10000);
	CHECK_EQ_U(t->r[1].hi_ns, 20000);
	CHECK_EQ_U(t->r[2].hi_ns, 300000);
	CHECK_EQ_U(t->r[3].hi_ns, 1001000);
	CHECK_EQ_U(t->r[4].lo_ns, 1001000);
	CHECK_EQ_U(t->r[4].hi_ns, UINT64_C(10000000000000));
	CHECK_EQ_U(range_table_find(t, 9999), 5);
	CHECK_EQ_U(range_table_find(t, 10000), 1);
	CHECK_EQ_U(range_table_find(t, 19999), 1);
	CHECK_EQ_U(range_table_find(t, 20000), 2);
	CHECK_EQ_U(range_table_find(t, 1000999), 3);
	CHECK_EQ_U(range_table_find(t, 1001000), 4);
	CHECK_EQ_U(range_table_find(t, 3969), 5);
	CHECK_EQ_U(range_table_find(t, 3970), 0);
	range_table_free(t);
}

static void test_range_invalid(void)
{
	struct range_table *t = (struct range_table *)&t; /* must be reset to NULL on failure */
	const double overlap[] = {0, 2, 1, 3};
	CHECK_EQ_I(range_table_new(&t, overlap, 2), -EINVAL);
	CHECK(t == NULL);
	const double inverted[] = {2, 1};
	CHECK_EQ_I(range_table_new(&t, inverted, 1), -EINVAL);
	const double negative[] = {-1, 1};
	CHECK_EQ_I(range_table_new(&t, negative, 1), -EINVAL);
	const double nan[] = {NAN, 1};
	CHECK_EQ_I(range_table_new(&t, nan, 1), -EINVAL);
	const double huge[] = {0, 1e20};
	CHECK_EQ_I(range_table_new(&t, huge, 1), -EINVAL);
	const double contained[] = {0, 10, 2, 3};
	CHECK_EQ_I(range_table_new(&t, contained, 2), -EINVAL);
	const double touching[] = {1, 2, 0, 1, 2, 2};
	CHECK_EQ_I(range_table_new(&t, touching, 3), 0);
	range_table_free(t);
}

/* Range counts through stats_sys_record: counts + outside == samples, per syscall. */
static void test_range_counts(void)
{
	const double ms[] = {0, 0.1, 0.1, 1, 1, 10, 100, 1000}; /* gap 10 ms .. 100 ms */
	struct range_table *t = table(ms, 4);
	if (!t)
		return;
	struct thread_stats *st = stats_new(t);
	CHECK_EQ_U(st->range_cols, 5);
	struct rng r;
	rng_seed(&r, 99, 0);
	uint64_t expect[5] = {0};
	enum { N = 200000 };
	for (int i = 0; i < N; i++) {
		uint64_t v = (uint64_t)(exp(rng_unit(&r) * log(2e9))); /* 1 ns .. 2 s */
		if (i % 1000 == 0)
			v = 10000000; /* exactly a non-top hi with a gap after: outside */
		if (i % 1000 == 1)
			v = 1000000000; /* exactly the top hi: inside */
		stats_sys_record(st, SYS_write, v);
		uint32_t k;
		if (v < 100000)
			k = 0;
		else if (v < 1000000)
			k = 1;
		else if (v < 10000000)
			k = 2;
		else if (v >= 100000000 && v <= 1000000000)
			k = 3;
		else
			k = 4;
		expect[k]++;
	}
	const uint64_t *row = stats_range_row(st, SYS_write);
	uint64_t total = 0;
	for (int k = 0; k < 5; k++) {
		CHECK_EQ_U(row[k], expect[k]);
		total += row[k];
	}
	CHECK_EQ_U(total, N);
	CHECK_EQ_U(st->sys_lat[SYS_write].n, N);
	const uint64_t *other = stats_range_row(st, SYS_read);
	for (int k = 0; k < 5; k++)
		CHECK_EQ_U(other[k], 0);
	thread_stats_reset(st);
	CHECK_EQ_U(stats_range_row(st, SYS_write)[3], 0);
	CHECK_EQ_U(st->sys_lat[SYS_write].n, 0);
	CHECK_EQ_U(st->sys_lat[SYS_write].min_ns, UINT64_MAX);
	stats_delete(st);

	struct thread_stats *none = stats_new(NULL);
	stats_sys_record(none, SYS_open, 5);
	CHECK(stats_range_row(none, SYS_open) == NULL);
	CHECK_EQ_U(none->sys_lat[SYS_open].n, 1);
	stats_delete(none);
	range_table_free(t);
}

/* fill - a deterministic mix of counters, op latencies and syscall latencies. */
static void fill(struct thread_stats *st, uint64_t seed, int n)
{
	struct rng r;
	rng_seed(&r, seed, 0);
	for (int i = 0; i < n; i++) {
		uint64_t x = rng_next(&r);
		enum op_id op = (enum op_id)(x % OP_COUNT);
		st->ops[op]++;
		st->trans[op] += x & 7;
		st->bytes_read[op] += x & 0xffff;
		st->bytes_written[op] += (x >> 16) & 0xffff;
		st->errors[op] += (x & 0x3ff) == 0;
		stats_op_record(st, op, x >> (24 + (x >> 59)));
		stats_sys_record(st, (enum sys_id)((x >> 8) % SYS_COUNT),
		                 x >> (28 + ((x >> 3) & 31)));
	}
}

/* merge(a, b) == merge(b, a); empty stats are the identity; mismatched tables are refused. */
static void test_merge_commutative(void)
{
	const double ms[] = {0, 0.001, 0.001, 0.01, 0.01, 1, 1, 1000};
	struct range_table *t = table(ms, 4);
	if (!t)
		return;
	struct thread_stats *a = stats_new(t), *b = stats_new(t);
	struct thread_stats *ab = stats_new(t), *ba = stats_new(t), *e = stats_new(t);
	fill(a, 1, 50000);
	fill(b, 2, 30000);
	CHECK_EQ_I(thread_stats_merge(ab, a), 0);
	CHECK_EQ_I(thread_stats_merge(ab, b), 0);
	CHECK_EQ_I(thread_stats_merge(ba, b), 0);
	CHECK_EQ_I(thread_stats_merge(ba, a), 0);
	CHECK(stats_equal(ab, ba));
	CHECK(!stats_equal(ab, a));
	CHECK_EQ_I(thread_stats_merge(a, e), 0); /* identity */
	thread_stats_reset(ba);
	fill(ba, 1, 50000);
	CHECK(stats_equal(a, ba));

	/* Same bounds in a different allocation merge; other tables or none do not. */
	struct range_table *t2 = table(ms, 4), *t3 = table(ms, 3);
	struct thread_stats *c2 = stats_new(t2), *c3 = stats_new(t3), *cn = stats_new(NULL);
	CHECK_EQ_I(thread_stats_merge(c2, a), 0);
	CHECK_EQ_I(thread_stats_merge(c3, a), -EINVAL);
	CHECK_EQ_I(thread_stats_merge(cn, a), -EINVAL);
	CHECK_EQ_I(thread_stats_merge(a, cn), -EINVAL);
	CHECK_EQ_U(cn->sys_lat[0].n, 0); /* unchanged on refusal */
	stats_delete(c2);
	stats_delete(c3);
	stats_delete(cn);
	range_table_free(t2);
	range_table_free(t3);
	stats_delete(a);
	stats_delete(b);
	stats_delete(ab);
	stats_delete(ba);
	stats_delete(e);
	range_table_free(t);
}

/* N threads each record a slice into their own stats; joined and merged, that equals one serial
 * recording of every sample. Also the pattern TSan checks: no sharing while running. */
enum { THREADS = 4, PER_THREAD = 250000 };

struct slice {
	struct thread_stats *st;
	const uint64_t *v; /* PER_THREAD values */
};

static void record_slice(struct thread_stats *st, const uint64_t *v)
{
	for (int i = 0; i < PER_THREAD; i++) {
		uint64_t x = v[i];
		stats_sys_record(st, (enum sys_id)(i % SYS_COUNT), x);
		stats_op_record(st, (enum op_id)(i % OP_COUNT), x / 3);
		st->ops[i % OP_COUNT]++;
		st->bytes_written[i % OP_COUNT] += x & 4095;
	}
}

static void *slice_main(void *arg)
{
	struct slice *s = arg;
	record_slice(s->st, s->v);
	return NULL;
}

static void test_merge_threads(void)
{
	const double ms[] = {0, 0.01, 0.01, 0.1, 0.1, 1, 1, 10, 10, 100, 500, 1000};
	struct range_table *t = table(ms, 6);
	uint64_t *v = malloc((size_t)THREADS * PER_THREAD * sizeof(*v));
	if (!t || !v) {
		TEST_FAIL("setup");
		free(v);
		range_table_free(t);
		return;
	}
	struct rng r;
	rng_seed(&r, 2024, 5);
	for (size_t i = 0; i < (size_t)THREADS * PER_THREAD; i++)
		v[i] = (uint64_t)(100.0 * exp(rng_unit(&r) * log(1e8))); /* 100 ns .. 10 s */

	struct thread_stats *serial = stats_new(t), *merged = stats_new(t);
	for (int k = 0; k < THREADS; k++)
		record_slice(serial, v + (size_t)k * PER_THREAD);

	struct slice sl[THREADS];
	pthread_t tid[THREADS];
	for (int k = 0; k < THREADS; k++) {
		sl[k].st = stats_new(t);
		sl[k].v = v + (size_t)k * PER_THREAD;
		CHECK_EQ_I(pthread_create(&tid[k], NULL, slice_main, &sl[k]), 0);
	}
	for (int k = 0; k < THREADS; k++)
		CHECK_EQ_I(pthread_join(tid[k], NULL), 0);
	/* Merge in a scrambled order: associativity and commutativity together. */
	const int order[THREADS] = {2, 0, 3, 1};
	for (int k = 0; k < THREADS; k++)
		CHECK_EQ_I(thread_stats_merge(merged, sl[order[k]].st), 0);
	CHECK(stats_equal(serial, merged));

	/* Tree-shaped merge ((0+1)+(2+3)) gives the same bytes again. */
	struct thread_stats *left = stats_new(t), *right = stats_new(t);
	thread_stats_merge(left, sl[0].st);
	thread_stats_merge(left, sl[1].st);
	thread_stats_merge(right, sl[2].st);
	thread_stats_merge(right, sl[3].st);
	thread_stats_merge(left, right);
	CHECK(stats_equal(serial, left));

	uint64_t sum = 0;
	for (uint32_t c = 0; c < merged->range_cols; c++)
		sum += stats_range_row(merged, SYS_open)[c];
	CHECK_EQ_U(sum, merged->sys_lat[SYS_open].n);
	CHECK_NEAR(lat_stddev_ns(&merged->sys_lat[SYS_read]),
	           lat_stddev_ns(&serial->sys_lat[SYS_read]), 0);

	for (int k = 0; k < THREADS; k++)
		stats_delete(sl[k].st);
	stats_delete(left);
	stats_delete(right);
	stats_delete(serial);
	stats_delete(merged);
	range_table_free(t);
	free(v);
}

/* Response time (op_period): one sample per operation plus one per missed start, each missed
 * start waiting until the late operation ended; merging gives the destination a series. */
static void test_response(void)
{
	struct thread_stats *a = stats_new(NULL), *total = stats_new(NULL);
	CHECK(a->resp_lat == NULL);
	stats_resp_record(a, 7, 0, 0, 10); /* untracked: ignored */
	CHECK_EQ_U(a->missed_starts, 0);
	CHECK_EQ_U(thread_stats_track_response(a), 0);
	stats_resp_record(a, 40000000, 3, 25000000, 10000000); /* 40 ms; starts 25, 15, 5 ms ago */
	stats_resp_record(a, 1000, 0, 0, 10000000);
	CHECK_EQ_U(a->resp_lat->n, 5);
	CHECK_EQ_U(a->missed_starts, 3);
	CHECK_EQ_U(a->resp_lat->max_ns, 40000000);
	CHECK_EQ_U(a->resp_lat->min_ns, 1000);
	CHECK_EQ_U(a->resp_lat->sum_ns, 40000000 + 25000000 + 15000000 + 5000000 + 1000);
	CHECK_EQ_U(thread_stats_merge(total, a), 0);
	CHECK(total->resp_lat != NULL);
	CHECK_EQ_U(total->resp_lat->n, 5);
	CHECK_EQ_U(total->missed_starts, 3);
	thread_stats_reset(a);
	CHECK_EQ_U(a->resp_lat->n, 0);
	CHECK_EQ_U(a->missed_starts, 0);
	stats_delete(a);
	stats_delete(total);
}

/* Missed starts are recorded in bulk: the same series, moments and buckets as one lat_record
 * per missed start (the loop stats_resp_missed had), and a count far beyond what a loop could
 * record (10^12 starts missed by an op_rate=1e9 worker behind by 1000 s) at once. */
static void test_response_missed_bulk(void)
{
	static const uint64_t cases[][3] = {
	    /* missed, first missed ns, period ns */
	    {1, 1, 1},
	    {5, 3, 1},
	    {3, 25000000, 10000000},
	    {100000, 70000, 1},
	    {4000, 123456789, 30011},
	    {7, 100, 0},
	    {50, 1u << 20, 1u << 20},
	    {9, 5000000000000ull, 333333333ull},
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		uint64_t missed = cases[c][0], first = cases[c][1], period = cases[c][2];
		struct thread_stats *bulk = stats_new(NULL);
		struct lat_stats *loop = calloc(1, sizeof(*loop));
		CHECK(bulk && loop);
		lat_init(loop);
		CHECK_EQ_U(thread_stats_track_response(bulk), 0);
		stats_resp_record(bulk, 777, 0, 0, period); /* a sample before: min/max merge */
		lat_record(loop, 777);
		stats_resp_missed(bulk, missed, first, period);
		for (uint64_t k = 0; k < missed && first > k * period; k++)
			lat_record(loop, first - k * period);
		CHECK_EQ_U(bulk->missed_starts, missed);
		CHECK_EQ_U(bulk->resp_lat->n, loop->n);
		CHECK_EQ_U(bulk->resp_lat->sum_ns, loop->sum_ns);
		CHECK(bulk->resp_lat->sum_sq_ns == loop->sum_sq_ns);
		CHECK_EQ_U(bulk->resp_lat->min_ns, loop->min_ns);
		CHECK_EQ_U(bulk->resp_lat->max_ns, loop->max_ns);
		CHECK(memcmp(&bulk->resp_lat->h, &loop->h, sizeof(loop->h)) == 0);
		free(loop);
		stats_delete(bulk);
	}
	struct thread_stats *far = stats_new(NULL);
	CHECK_EQ_U(thread_stats_track_response(far), 0);
	const uint64_t n = 1000000000000ull; /* 10^12 starts 1 ns apart, the oldest 1000 s late */
	stats_resp_missed(far, n, n, 1);
	CHECK_EQ_U(far->resp_lat->n, n);
	CHECK_EQ_U(far->resp_lat->min_ns, 1);
	CHECK_EQ_U(far->resp_lat->max_ns, n);
	CHECK_EQ_U(far->resp_lat->sum_ns, (uint64_t)((stats_u128)n * (n + 1) / 2));
	CHECK_EQ_U(hist_count(&far->resp_lat->h), n);
	stats_delete(far);
}

/* The sizes quoted in stats.h, so the memory budget there stays true. */
static void test_sizes(void)
{
	CHECK_EQ_U(sizeof(struct lat_stats), 20016);
	/* eight per-op counters (busy picks among them) + series + response (pointer, missed,
	 * late, bound hits) + (pointer, count, pointer) + arena pointer, with at most 32 B of
	 * alignment padding */
	size_t parts =
	    8 * OP_COUNT * 8 + (OP_COUNT + SYS_COUNT) * sizeof(struct lat_stats) + 32 + 20 + 8;
	CHECK(sizeof(struct thread_stats) >= parts && sizeof(struct thread_stats) <= parts + 32);
	if (OP_COUNT == 32 && SYS_COUNT == 18) /* the figures written in stats.h */
		CHECK_EQ_U(sizeof(struct thread_stats), 1002912);
	/* 64 threads + 1 group + 1 total must fit in 96 MiB (see stats.h). */
	CHECK((64 + 1 + 1) * sizeof(struct thread_stats) <= (size_t)96 << 20);
}

int main(void)
{
	RUN(test_lat_moments);
	RUN(test_lat_stddev_precision);
	RUN(test_lat_empty);
	RUN(test_lat_percentile_exact_ends);
	RUN(test_range_rules);
	RUN(test_range_find_random);
	RUN(test_range_exact_conversion);
	RUN(test_range_invalid);
	RUN(test_range_counts);
	RUN(test_merge_commutative);
	RUN(test_merge_threads);
	RUN(test_response);
	RUN(test_response_missed_bulk);
	RUN(test_sizes);
	return test_summary();
}
