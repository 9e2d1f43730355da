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
	static uint32_t hist[IVAL_BUCKETS];
	enum { N = 200000 };
	static uint64_t v[N];
	struct rng r;
	rng_seed(&r, 5, 0);
	for (int i = 0; i < N; i++) {
		/* log-uniform between 1 us and 1 s */
		v[i] = (uint64_t)exp(log(1e3) + rng_unit(&r) * (log(1e9) - log(1e3)));
		hist[ival_index(v[i])]++;
	}
	qsort(v, N, sizeof(v[0]), cmp_u64);
	const double ps[] = {50, 90, 99, 99.9};
	for (size_t k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
		uint64_t exact = v[(size_t)ceil(ps[k] / 100 * N) - 1];
		double got = (double)ival_percentile_ns(hist, N, ps[k]);
		CHECK(fabs(got - (double)exact) / (double)exact <= 1.0 / 32 + 1e-9);
	}
	CHECK_EQ_U(ival_percentile_ns(hist, 0, 99), 0);
	CHECK_EQ_U(ival_index(UINT64_MAX), IVAL_BUCKETS - 1);
	CHECK_EQ_U(ival_index(7), 7);
}

int main(void)
{
	RUN(test_rows_and_boundaries);
	RUN(test_many_rows_cross_chunks);
	RUN(test_percentile_error);
	return test_summary();
}
