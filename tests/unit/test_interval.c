/* test_interval.c - per-interval rows: boundaries, publication, the final partial row, and the
 * compact histogram's percentile error. */
#include <math.h>

#include "interval.h"
#include "rng.h"
#include "test.h"

static void test_rows_and_boundaries(void)
{
	struct ival_log l;
	ival_init(&l, 1000, 100); /* intervals of 100 ns from t = 1000 */
	ival_add(&l, 1000, 1, 10, 50);
	ival_add(&l, 1099, 2, 20, 60);
	CHECK_EQ_U(atomic_load(&l.published), 0);
	ival_add(&l, 1100, 3, 30, 70); /* first op of interval 1 */
	CHECK_EQ_U(atomic_load(&l.published), 1);
	ival_add(&l, 1450, 1, 1, 0); /* skips intervals 2 and 3 (empty rows), lands in 4 */
	CHECK_EQ_U(atomic_load(&l.published), 4);
	ival_finish(&l, 1460);
	CHECK_EQ_U(atomic_load(&l.published), 5);
	const struct ival_rec *r0 = ival_row(&l, 0), *r1 = ival_row(&l, 1), *r2 = ival_row(&l, 2),
	                      *r4 = ival_row(&l, 4);
	CHECK_EQ_U(r0->ops, 2);
	CHECK_EQ_U(r0->trans, 3);
	CHECK_EQ_U(r0->bytes, 30);
	CHECK_EQ_U(r0->timed, 2);
	CHECK_EQ_U(r1->ops, 1);
	CHECK_EQ_U(r2->ops, 0);
	CHECK_EQ_U(r4->ops, 1);
	CHECK_EQ_U(r4->timed, 0); /* latency 0: not timed */
	ival_free(&l);
}

static void test_many_rows_cross_chunks(void)
{
	struct ival_log l;
	ival_init(&l, 0, 10);
	for (uint64_t t = 0; t < 10 * 100; t++)
		ival_add(&l, t, 1, 1, 1000);
	ival_finish(&l, 1000);
	CHECK_EQ_U(atomic_load(&l.published), 101);
	uint64_t total = 0;
	for (uint32_t i = 0; i < 101; i++)
		total += ival_row(&l, i)->ops;
	CHECK_EQ_U(total, 1000);
	CHECK_EQ_U(ival_row(&l, 57)->ops, 10);
	ival_free(&l);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void test_percentile_error(void)
{
	static struct ival_hist hist;
	enum { N = 200000 };
	static uint64_t v[N];
	struct rng r;
	rng_seed(&r, 5, 0);
	for (int i = 0; i < N; i++) {
		/* log-uniform between 1 us and 1 s */
		v[i] = (uint64_t)exp(log(1e3) + rng_unit(&r) * (log(1e9) - log(1e3)));
		ival_hist_record(&hist, v[i]);
	}
	qsort(v, N, sizeof(v[0]), cmp_u64);
	const double ps[] = {50, 90, 99, 99.9};
	for (size_t k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
		uint64_t exact = v[(size_t)ceil(ps[k] / 100 * N) - 1];
		double got = (double)ival_percentile_ns(&hist, N, ps[k]);
		CHECK(fabs(got - (double)exact) / (double)exact <= 1.0 / 32 + 1e-9);
	}
	CHECK_EQ_U(ival_percentile_ns(&hist, 0, 99), 0);
	CHECK_EQ_U(ival_hist_index(UINT64_MAX), IVAL_BUCKETS - 1);
	CHECK_EQ_U(ival_hist_index(7), 7);
}

/* The interval p99 is reported by the upper of a bucket's two middle values (low + width/2), as
 * it always was; struct hist and ival_hist_percentile take the lower one. Values from the
 * implementation before the histograms were unified. */
static void test_percentile_upper_midpoint(void)
{
	static struct ival_hist h;
	ival_hist_record(&h, 1000); /* bucket [992, 1023] */
	CHECK_EQ_U(ival_percentile_ns(&h, 1, 99), 1008);
	CHECK_EQ_U(ival_hist_percentile(&h, 1, 99), 1007);
	ival_hist_reset(&h);
	for (uint64_t v = 1; v <= 100; v++)
		ival_hist_record(&h, v);
	CHECK_EQ_U(ival_percentile_ns(&h, 100, 99), 98); /* 99 is in [96, 99] */
	CHECK_EQ_U(ival_percentile_ns(&h, 100, 30), 30); /* exact below 32 */
	ival_hist_reset(&h);
	ival_hist_record(&h, UINT64_MAX); /* clamped into [2^40 - 2^35, 2^40) */
	CHECK_EQ_U(ival_percentile_ns(&h, 1, 99), UINT64_C(1082331758592));
}

/* Rows merged over workers (as run.c does) hold every sample of the workers' rows. */
static void test_rows_merge(void)
{
	struct ival_log a, b;
	ival_init(&a, 0, 100);
	ival_init(&b, 0, 100);
	for (uint64_t t = 0; t < 100; t++) {
		ival_add(&a, t, 1, 0, 1000 + t);
		ival_add(&b, t, 1, 0, t % 2 ? 5000 : 0);
	}
	ival_finish(&a, 100);
	ival_finish(&b, 100);
	static struct ival_rec row;
	row = *ival_row(&a, 0);
	ival_hist_merge(&row.hist, &ival_row(&b, 0)->hist);
	CHECK_EQ_U(ival_hist_count(&row.hist), 150);
	CHECK_EQ_U(row.hist.bucket[ival_hist_index(5000)], 50);
	ival_free(&a);
	ival_free(&b);
}

int main(void)
{
	RUN(test_rows_and_boundaries);
	RUN(test_many_rows_cross_chunks);
	RUN(test_percentile_error);
	RUN(test_percentile_upper_midpoint);
	RUN(test_rows_merge);
	return test_summary();
}
