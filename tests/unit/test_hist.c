/* test_hist.c - the log-linear histogram: bucket geometry, error bound, percentiles, merge. */
#include "compiler.h"
#include "hist.h"
#include "rng.h"
#include "test.h"

#include <math.h>

/* Bucket edges: every bucket's low and high map back to it, and buckets tile [0, 2^64). */
static void test_bucket_edges(void)
{
	int bad = 0;
	CHECK_EQ_U(hist_bucket_low(0), 0);
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		uint64_t lo = hist_bucket_low(i), hi = hist_bucket_high(i);
		if (hist_index(lo) != i || hist_index(hi) != i || lo > hi)
			bad++;
		if (i + 1 < HIST_BUCKETS && hist_bucket_low(i + 1) != hi + 1)
			bad++;
		if (i > 0 && hist_index(lo - 1) != i - 1)
			bad++;
	}
	CHECK_EQ_I(bad, 0);
	CHECK_EQ_U(hist_bucket_high(HIST_BUCKETS - 1), UINT64_MAX);
	CHECK_EQ_U(hist_bucket_low(HIST_BUCKETS - 1) + hist_bucket_width(HIST_BUCKETS - 1),
	           HIST_LIMIT_NS);
}

/* Values below 128 have their own bucket; the first group above is 2 ns wide. */
static void test_exact_region(void)
{
	for (uint64_t v = 0; v < 128; v++)
		CHECK_EQ_U(hist_index(v), v);
	CHECK_EQ_U(hist_index(128), hist_index(129));
	CHECK_EQ_U(hist_index(130), hist_index(128) + 1);
	CHECK_EQ_U(hist_bucket_mid(hist_index(63)), 63);
}

/* Large values are clamped into the last bucket, which contains them. */
static void test_clamp(void)
{
	const uint64_t big[] = {HIST_LIMIT_NS - 1, HIST_LIMIT_NS, HIST_LIMIT_NS + 12345,
	                        UINT64_C(1) << 50, UINT64_MAX};
	for (size_t i = 0; i < ARRAY_SIZE(big); i++) {
		unsigned b = hist_index(big[i]);
		CHECK_EQ_U(b, HIST_BUCKETS - 1);
		CHECK(hist_bucket_low(b) <= big[i] && big[i] <= hist_bucket_high(b));
	}
	struct hist h;
	hist_reset(&h);
	hist_record(&h, UINT64_MAX);
	hist_record(&h, 0);
	CHECK_EQ_U(hist_count(&h), 2);
	CHECK_EQ_U(h.bucket[HIST_BUCKETS - 1], 1);
	CHECK_EQ_U(h.bucket[0], 1);
}

/* check_value - index monotonic from prev, v inside its bucket, midpoint within 1/128. */
static int check_value(uint64_t v, unsigned *prev_idx, double *worst)
{
	int bad = 0;
	unsigned i = hist_index(v);
	if (i < *prev_idx)
		bad++;
	*prev_idx = i;
	if (v < hist_bucket_low(i) || v > hist_bucket_high(i))
		bad++;
	if (v >= 64) {
		double err = fabs((double)hist_bucket_mid(i) - (double)v) / (double)v;
		if (err > *worst)
			*worst = err;
		if (err > 1.0 / 128)
			bad++;
	}
	return bad;
}

/* Index monotonic over a sweep, every value inside its bucket, error <= 1/128. */
static void test_sweep(void)
{
	unsigned prev = 0;
	double worst = 0;
	int bad = 0;
	/* Every value up to 2^22, then steps of ~0.01 % (plus the values next to every power of
	 * two) up to the clamp limit. */
	for (uint64_t v = 0; v < (UINT64_C(1) << 22); v++)
		bad += check_value(v, &prev, &worst);
	for (uint64_t v = UINT64_C(1) << 22; v < HIST_LIMIT_NS; v += v / 9973 + 1)
		bad += check_value(v, &prev, &worst);
	CHECK_EQ_I(bad, 0);
	prev = 0;
	for (int m = 7; m < HIST_MAX_BITS; m++) {
		uint64_t p = UINT64_C(1) << m;
		bad += check_value(p - 1, &prev, &worst);
		bad += check_value(p, &prev, &worst);
		bad += check_value(p + 1, &prev, &worst);
		bad += check_value(p + (p >> 6) - 1, &prev, &worst); /* worst: top of a group's
		                                                      * first bucket */
		bad += check_value(2 * p - 1, &prev, &worst);
	}
	CHECK_EQ_I(bad, 0);
	/* Random values: each must satisfy the same bounds (monotonicity not applicable). */
	bad = 0;
	struct rng r;
	rng_seed(&r, 42, 0);
	for (int k = 0; k < 1000000; k++) {
		uint64_t x = rng_next(&r);
		uint64_t v = x >> (20 + (x & 31)) >> 1; /* log-spread in [0, 2^43) */
		unsigned zero = 0;
		bad += check_value(v, &zero, &worst);
	}
	CHECK_EQ_I(bad, 0);
	CHECK(worst <= 1.0 / 128);
	CHECK(worst > 1.0 / 130); /* the bound is nearly reached, so it is the real one */
}

static void test_rank(void)
{
	CHECK_EQ_U(hist_rank(0, 50), 0);
	CHECK_EQ_U(hist_rank(1000, 0), 1);
	CHECK_EQ_U(hist_rank(1000, -5), 1);
	CHECK_EQ_U(hist_rank(1000, NAN), 1);
	CHECK_EQ_U(hist_rank(1000, 100), 1000);
	CHECK_EQ_U(hist_rank(1000, 250), 1000);
	CHECK_EQ_U(hist_rank(1000, 99.9), 999);
	CHECK_EQ_U(hist_rank(1000, 99.95), 1000);
	CHECK_EQ_U(hist_rank(1000000, 99.99), 999900);
	CHECK_EQ_U(hist_rank(3, 50), 2);
	CHECK_EQ_U(hist_rank(1, 1), 1);
	CHECK_EQ_U(hist_rank(10, 10), 1);
	CHECK_EQ_U(hist_rank(10, 10.0001), 2);
	/* Decimal p that binary rounds up: 0.7 * 100 = 70.00000000000001 must stay rank 70. */
	CHECK_EQ_U(hist_rank(100, 70), 70);
	CHECK_EQ_U(hist_rank(10000, 0.07 * 100), 700);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Percentiles of 1e6 log-uniform samples in [100 ns, 1 s] within 1 % of the exact order
 * statistic (the histogram guarantees 1/128). */
static void test_percentiles_vs_sorted(void)
{
	enum { N = 1000000 };
	uint64_t *v = malloc(N * sizeof(*v));
	struct hist *h = malloc(sizeof(*h));
	if (!v || !h) {
		TEST_FAIL("out of memory");
		free(v);
		free(h);
		return;
	}
	hist_reset(h);
	struct rng r;
	rng_seed(&r, 20240601, 1);
	for (int i = 0; i < N; i++) {
		v[i] = (uint64_t)llround(100.0 * exp(rng_unit(&r) * log(1e7)));
		hist_record(h, v[i]);
	}
	qsort(v, N, sizeof(v[0]), cmp_u64);
	CHECK_EQ_U(hist_count(h), N);
	const double ps[] = {1, 25, 50, 90, 99, 99.9, 99.99};
	for (size_t k = 0; k < ARRAY_SIZE(ps); k++) {
		uint64_t rank = (uint64_t)ceil(ps[k] / 100 * N - 1e-6);
		double exact = (double)v[rank - 1];
		double got = (double)hist_percentile(h, N, ps[k]);
		CHECK_NEAR(got, exact, exact * 0.01);
		CHECK_NEAR(got, exact, exact / 128 + 1); /* the bound actually promised */
	}
	/* p100 lands in the max's bucket; p0 in the min's. (lat_percentile_ns makes them exact.) */
	unsigned top = hist_index(v[N - 1]);
	CHECK_EQ_U(hist_percentile(h, N, 100), hist_bucket_mid(top));
	CHECK_NEAR((double)hist_percentile(h, N, 100), (double)v[N - 1], v[N - 1] / 128.0);
	CHECK_EQ_U(hist_percentile(h, N, 0), hist_bucket_mid(hist_index(v[0])));
	CHECK_EQ_U(hist_percentile(h, 0, 50), 0);
	/* total larger than the content: the highest non-empty bucket. */
	CHECK_EQ_U(hist_percentile(h, 2 * (uint64_t)N, 100), hist_bucket_mid(top));
	free(v);
	free(h);
}

/* merge(a, b) == merge(b, a), merge adds counts, and an empty histogram is the identity. */
static void test_merge(void)
{
	struct hist *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	struct hist *ab = malloc(sizeof(*ab)), *ba = malloc(sizeof(*ba)), *e = malloc(sizeof(*e));
	if (!a || !b || !ab || !ba || !e) {
		TEST_FAIL("out of memory");
		goto out;
	}
	hist_reset(a);
	hist_reset(b);
	hist_reset(e);
	struct rng r;
	rng_seed(&r, 7, 3);
	for (int i = 0; i < 100000; i++) {
		uint64_t x = rng_next(&r);
		hist_record(i % 3 ? a : b, x >> (x & 63));
	}
	*ab = *a;
	hist_merge(ab, b);
	*ba = *b;
	hist_merge(ba, a);
	CHECK(memcmp(ab, ba, sizeof(*ab)) == 0);
	CHECK_EQ_U(hist_count(ab), 100000);
	CHECK_EQ_U(hist_count(ab), hist_count(a) + hist_count(b));
	*ba = *a;
	hist_merge(ba, e);
	CHECK(memcmp(ba, a, sizeof(*a)) == 0);
out:
	free(a);
	free(b);
	free(ab);
	free(ba);
	free(e);
}

int main(void)
{
	RUN(test_bucket_edges);
	RUN(test_exact_region);
	RUN(test_clamp);
	RUN(test_sweep);
	RUN(test_rank);
	RUN(test_percentiles_vs_sorted);
	RUN(test_merge);
	return test_summary();
}
