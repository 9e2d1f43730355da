/* test_hist.c - the log-linear histogram: bucket geometry, error bound, percentiles, merge; for
 * the statistics' instance (struct hist: 6 sub-bits, u64 counts), the interval rows' instance
 * (struct ival_hist: 4 sub-bits, u32 counts) and a tiny one declared here, all from the one
 * implementation in hist.h. */
#include "compiler.h"
#include "hist.h"
#include "interval.h"
#include "rng.h"
#include "test.h"

#include <math.h>
#include <string.h>

/* A third instance, small enough to check every value of its range: 2 sub-bits, values below
 * 2^10 resolved, 16-bit counts. */
LOGHIST_DECLARE(tiny_hist, 2, 10, uint16_t);
LOGHIST_DEFINE(tiny_hist);

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

/* check_geometry - the layout promised in hist.h for sub-bits S and max-bits M, through the
 * parameterised functions: buckets tile [0, 2^64) in order, every value below 2^(S+1) has its own
 * bucket, values from 2^M on are clamped into the last, and the midpoint is within 2^-(S+1) of
 * every unclamped value of width >= 2 buckets, a bound that is nearly reached. */
static void check_geometry(unsigned S, unsigned M)
{
	const unsigned n = LOGHIST_BUCKETS(S, M);
	int bad = 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t lo = loghist_bucket_low(i, S), hi = loghist_bucket_high(i, S, M);
		if (loghist_index(lo, S, M) != i || loghist_index(hi, S, M) != i || lo > hi)
			bad++;
		if (i + 1 < n && loghist_bucket_low(i + 1, S) != hi + 1)
			bad++;
		if (i + 1 < n && loghist_bucket_width(i, S) != hi - lo + 1)
			bad++;
	}
	CHECK_EQ_I(bad, 0);
	CHECK_EQ_U(loghist_bucket_low(0, S), 0);
	CHECK_EQ_U(loghist_bucket_high(n - 1, S, M), UINT64_MAX);
	CHECK_EQ_U(loghist_bucket_low(n - 1, S) + loghist_bucket_width(n - 1, S), UINT64_C(1) << M);
	for (uint64_t v = 0; v < (UINT64_C(2) << S); v++)
		bad += loghist_index(v, S, M) != v || loghist_bucket_mid((unsigned)v, S) != v;
	CHECK_EQ_I(bad, 0);
	CHECK_EQ_U(loghist_index(2u << S, S, M), loghist_index((2u << S) + 1, S, M));
	CHECK_EQ_U(loghist_index((UINT64_C(1) << M) - 1, S, M), n - 1);
	CHECK_EQ_U(loghist_index(UINT64_C(1) << M, S, M), n - 1);
	CHECK_EQ_U(loghist_index(UINT64_MAX, S, M), n - 1);
	/* Error bound: the worst values of a bucket are its ends. */
	double worst = 0;
	for (unsigned i = 2u << S; i < n; i++) {
		uint64_t lo = loghist_bucket_low(i, S), hi = lo + loghist_bucket_width(i, S) - 1;
		double mid = (double)loghist_bucket_mid(i, S);
		double err = fmax((mid - (double)lo) / (double)lo, ((double)hi - mid) / (double)hi);
		if (err > worst)
			worst = err;
	}
	CHECK(worst <= 1.0 / (2u << S));
	CHECK(worst > 1.0 / ((2u << S) + 2));
}

/* Both instances of the project and the tiny one have the geometry of their parameters, and their
 * generated functions are the parameterised ones. */
static void test_instances_geometry(void)
{
	check_geometry(HIST_SUB_BITS, HIST_MAX_BITS);
	check_geometry(IVAL_SUB_BITS, IVAL_MAX_BITS);
	check_geometry(2, 10);
	CHECK_EQ_U(HIST_BUCKETS, 2496);
	CHECK_EQ_U(IVAL_BUCKETS, 592);
	CHECK_EQ_U(ARRAY_SIZE(((struct tiny_hist *)0)->bucket), 36);
	/* count types: 64-bit for statistics, 32-bit for interval rows */
	CHECK_EQ_U(sizeof(((struct hist *)0)->bucket[0]), 8);
	CHECK_EQ_U(sizeof(((struct ival_hist *)0)->bucket[0]), 4);
	CHECK_EQ_U(sizeof(((struct tiny_hist *)0)->bucket[0]), 2);
	int bad = 0;
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		bad += hist_bucket_low(i) != loghist_bucket_low(i, HIST_SUB_BITS) ||
		       hist_bucket_mid(i) != loghist_bucket_mid(i, HIST_SUB_BITS) ||
		       hist_bucket_high(i) != loghist_bucket_high(i, HIST_SUB_BITS, HIST_MAX_BITS);
	for (unsigned i = 0; i < IVAL_BUCKETS; i++)
		bad += ival_hist_bucket_low(i) != loghist_bucket_low(i, IVAL_SUB_BITS) ||
		       ival_hist_bucket_mid(i) != loghist_bucket_mid(i, IVAL_SUB_BITS) ||
		       ival_hist_bucket_high(i) !=
		           loghist_bucket_high(i, IVAL_SUB_BITS, IVAL_MAX_BITS);
	/* every value of the tiny instance's range, and past it */
	for (uint64_t v = 0; v < 4096; v++) {
		unsigned i = tiny_hist_index(v);
		bad += v < tiny_hist_bucket_low(i) || v > tiny_hist_bucket_high(i);
		bad += i < 35 && tiny_hist_bucket_high(i) - tiny_hist_bucket_low(i) + 1 !=
		                     tiny_hist_bucket_width(i);
		bad += v >= 1024 && i != 35;
	}
	struct rng r;
	rng_seed(&r, 11, 0);
	for (int k = 0; k < 100000; k++) {
		uint64_t x = rng_next(&r), v = x >> (x & 63);
		bad += ival_hist_index(v) != loghist_index(v, IVAL_SUB_BITS, IVAL_MAX_BITS) ||
		       hist_index(v) != loghist_index(v, HIST_SUB_BITS, HIST_MAX_BITS);
	}
	CHECK_EQ_I(bad, 0);
}

/* The out-of-line functions of the 32-bit and 16-bit instances: record, count, merge, rank and
 * percentile behave as struct hist's do on the same samples, bucket for bucket. */
static void test_instances_counting(void)
{
	static struct ival_hist a, b, ab;
	static struct tiny_hist t, u;
	ival_hist_reset(&a);
	ival_hist_reset(&b);
	tiny_hist_reset(&t);
	tiny_hist_reset(&u);
	struct rng r;
	rng_seed(&r, 13, 0);
	enum { N = 30000 };
	for (int k = 0; k < N; k++) {
		uint64_t x = rng_next(&r), v = x >> (20 + (x & 31));
		ival_hist_record(k % 4 ? &a : &b, v);
		tiny_hist_record(k % 4 ? &t : &u, v >> 24);
	}
	CHECK_EQ_U(ival_hist_count(&a) + ival_hist_count(&b), N);
	ab = a;
	ival_hist_merge(&ab, &b);
	ival_hist_merge(&b, &a);
	CHECK(memcmp(&ab, &b, sizeof(ab)) == 0);
	CHECK_EQ_U(ival_hist_count(&ab), N);
	tiny_hist_merge(&t, &u);
	CHECK_EQ_U(tiny_hist_count(&t), N);
	/* percentile: the midpoint of the bucket of the hist_rank-th sample, found by walking */
	const double ps[] = {0, 1, 50, 99, 99.9, 100};
	for (size_t k = 0; k < ARRAY_SIZE(ps); k++) {
		uint64_t rank = hist_rank(N, ps[k]), cum = 0;
		unsigned i = 0;
		while (cum + ab.bucket[i] < rank)
			cum += ab.bucket[i++];
		CHECK_EQ_U(ival_hist_bucket_of_rank(&ab, rank), i);
		CHECK_EQ_U(ival_hist_percentile(&ab, N, ps[k]), ival_hist_bucket_mid(i));
		cum = 0;
		i = 0;
		while (cum + t.bucket[i] < rank)
			cum += t.bucket[i++];
		CHECK_EQ_U(tiny_hist_percentile(&t, N, ps[k]), tiny_hist_bucket_mid(i));
	}
	CHECK_EQ_U(ival_hist_percentile(&ab, 0, 50), 0);
	ival_hist_reset(&a);
	CHECK_EQ_U(ival_hist_bucket_of_rank(&a, 1), 0); /* empty */
	ival_hist_record(&a, 5000);
	CHECK_EQ_U(ival_hist_bucket_of_rank(&a, 7), ival_hist_index(5000)); /* fewer than rank */
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
	RUN(test_instances_geometry);
	RUN(test_instances_counting);
	return test_summary();
}
