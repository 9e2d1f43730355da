/* test_chist.c - a worker's compact series (chist.h, struct stats_arena): recording into chunks
 * and merging gives, bucket by bucket, what the dense histograms give; the worst case fits. */
#include "chist.h"
#include "rng.h"
#include "stats.h"
#include "test.h"

#include <errno.h>

static void *zalloc(size_t n)
{
	void *p = calloc(1, n);
	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return p;
}

/* A dense (arena NULL) or compact (a fresh, all-zero arena) st counting `ranges`. */
static struct thread_stats *stats_make(const struct range_table *ranges, struct stats_arena *a)
{
	struct thread_stats *st = zalloc(sizeof(*st));
	if (a)
		CHECK_EQ_I(thread_stats_init_zeroed(st, ranges), 0);
	else
		CHECK_EQ_I(thread_stats_init(st, ranges), 0);
	if (a)
		thread_stats_use_arena(st, a);
	return st;
}

static void stats_delete(struct thread_stats *st)
{
	thread_stats_free(st);
	free(st);
}

/* Every series, moments and buckets, byte for byte; and the range counts. */
static int series_equal(const struct thread_stats *a, const struct thread_stats *b)
{
	if (memcmp(a->op_lat, b->op_lat, sizeof(a->op_lat)) ||
	    memcmp(a->sys_lat, b->sys_lat, sizeof(a->sys_lat)) || a->range_cols != b->range_cols)
		return 0;
	if (!a->range_counts || !b->range_counts)
		return a->range_counts == b->range_counts;
	return memcmp(a->range_counts, b->range_counts,
	              (size_t)SYS_COUNT * a->range_cols * sizeof(uint64_t)) == 0;
}

/* A latency spread over every octave of the histogram and past its limit (clamped). */
static uint64_t sample(struct rng *r)
{
	unsigned bits = (unsigned)rng_below(r, HIST_MAX_BITS + 3);
	return rng_below(r, UINT64_C(1) << bits) + (bits ? UINT64_C(1) << (bits - 1) : 0);
}

/* The same samples into a dense and a compact st (stats_op_record, stats_sys_record), each
 * merged into an empty dense total: equal bucket by bucket, in moments and in range counts; the
 * compact one made dense in place equals them too, and the percentiles agree. */
static void test_random_equal(void)
{
	static const double ms[] = {0, 0.01, 0.01, 0.1, 0.1, 1, 1, 10, 10, 1000};
	struct range_table *rt;
	CHECK_EQ_I(range_table_new(&rt, ms, 5), 0);
	struct stats_arena *a = zalloc(sizeof(*a));
	struct thread_stats *dense = stats_make(rt, NULL), *comp = stats_make(rt, a);
	struct rng r;
	rng_seed(&r, 2020, 6);
	for (int i = 0; i < 200000; i++) {
		uint64_t ns = sample(&r);
		unsigned k = (unsigned)rng_below(&r, CHIST_SERIES);
		if (k < OP_COUNT) {
			stats_op_record(dense, (enum op_id)k, ns);
			stats_op_record(comp, (enum op_id)k, ns);
		} else {
			stats_sys_record(dense, (enum sys_id)(k - OP_COUNT), ns);
			stats_sys_record(comp, (enum sys_id)(k - OP_COUNT), ns);
		}
	}
	CHECK(a->hist.used > 0 && a->hist.used < CHIST_CAPACITY);
	struct thread_stats *t1 = stats_make(rt, NULL), *t2 = stats_make(rt, NULL);
	CHECK_EQ_I(thread_stats_merge(t1, dense), 0);
	CHECK_EQ_I(thread_stats_merge(t2, comp), 0);
	CHECK(series_equal(t1, t2));
	CHECK(series_equal(t1, dense));
	for (int op = 0; op < OP_COUNT; op++)
		for (double p = 0; p <= 100; p += 0.5)
			CHECK_EQ_U(lat_percentile_ns(&t1->op_lat[op], p),
			           lat_percentile_ns(&t2->op_lat[op], p));
	/* a dense destination only */
	CHECK_EQ_I(thread_stats_merge(comp, dense), -EINVAL);
	/* made dense in place (a one-thread group's copy): the same series, no arena */
	thread_stats_make_dense(comp);
	CHECK(comp->arena == NULL);
	thread_stats_normalize(comp);
	CHECK(series_equal(comp, dense));
	stats_delete(t1);
	stats_delete(t2);
	stats_delete(dense);
	stats_delete(comp);
	free(a);
	range_table_free(rt);
}

/* Every bucket of every series touched: the arena hands out exactly every (series, chunk) pair
 * a low chunk, within its capacity, and still merges equal to the dense histograms; then every
 * count past 2^16: every pair its high units too, the arena exactly full. */
static void test_worst_case(void)
{
	struct stats_arena *a = zalloc(sizeof(*a));
	struct thread_stats *dense = stats_make(NULL, NULL), *comp = stats_make(NULL, a);
	for (int round = 0; round < 2; round++)
		for (unsigned s = 0; s < CHIST_SERIES; s++)
			for (unsigned i = 0; i < HIST_BUCKETS; i++) {
				uint64_t ns = hist_bucket_high(i) - (i == HIST_BUCKETS - 1);
				if (s < OP_COUNT) {
					stats_op_record(dense, (enum op_id)s, ns);
					stats_op_record(comp, (enum op_id)s, ns);
				} else {
					stats_sys_record(dense, (enum sys_id)(s - OP_COUNT), ns);
					stats_sys_record(comp, (enum sys_id)(s - OP_COUNT), ns);
				}
			}
	/* a table and one low chunk each */
	CHECK_EQ_U(a->hist.used, CHIST_SERIES * (CHIST_ROW_CHUNKS + CHIST_CHUNKS));
	for (unsigned s = 0; s < CHIST_SERIES; s++)
		for (unsigned c = 0; c < CHIST_CHUNKS; c++)
			CHECK(chist_chunk_of(&a->hist, s, c, 0) >= 1 &&
			      chist_chunk_of(&a->hist, s, c, 0) < CHIST_CAPACITY &&
			      chist_chunk_of(&a->hist, s, c, 1) == 0);
	struct thread_stats *t = stats_make(NULL, NULL);
	CHECK_EQ_I(thread_stats_merge(t, comp), 0);
	CHECK(series_equal(t, dense));
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		CHECK_EQ_U(t->sys_lat[SYS_read].h.bucket[i], 2);
	/* every count of every series past 2^16 (the low words set to 2^16 - 1, then one more):
	 * every pair gets its high units too, and the arena is exactly full */
	for (unsigned s = 0; s < CHIST_SERIES; s++)
		for (unsigned c = 0; c < CHIST_CHUNKS; c++)
			for (unsigned j = 0; j < CHIST_CHUNK; j++)
				a->hist.chunk[chist_chunk_of(&a->hist, s, c, 0)].bucket[j] =
				    UINT16_MAX;
	for (unsigned s = 0; s < CHIST_SERIES; s++)
		for (unsigned i = 0; i < HIST_BUCKETS; i++)
			chist_record(&a->hist, s, hist_bucket_low(i));
	CHECK_EQ_U(a->hist.used, CHIST_CAPACITY - 1);
	for (unsigned s = 0; s < CHIST_SERIES; s++)
		for (unsigned c = 0; c < CHIST_CHUNKS; c++)
			CHECK(chist_chunk_of(&a->hist, s, c, 1) >= 1 &&
			      chist_chunk_of(&a->hist, s, c, 1) < CHIST_CAPACITY);
	struct thread_stats *t2 = stats_make(NULL, NULL);
	CHECK_EQ_I(thread_stats_merge(t2, comp), 0);
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		CHECK_EQ_U(t2->op_lat[OP_read].h.bucket[i], UINT64_C(1) << 16);
		CHECK_EQ_U(t2->sys_lat[SYS_COUNT - 1].h.bucket[i], UINT64_C(1) << 16);
	}
	stats_delete(t2);
	stats_delete(t);
	stats_delete(dense);
	stats_delete(comp);
	free(a);
}

/* A count past 2^16 in one bucket, then past 2^32 and 2^48 in its high word: exact, 64 bits,
 * as the dense histogram's. */
static void test_carry(void)
{
	struct stats_arena *a = zalloc(sizeof(*a));
	struct thread_stats *comp = stats_make(NULL, a);
	stats_op_record(comp, OP_stat, 5000);
	unsigned i = hist_index(5000);
	unsigned k = chist_chunk_of(&a->hist, CHIST_OP(OP_stat), i / CHIST_CHUNK, 0);
	a->hist.chunk[k].bucket[i % CHIST_CHUNK] = UINT16_MAX - 1; /* as after 2^16 - 1 samples */
	for (int r = 0; r < 3; r++)
		stats_op_record(comp, OP_stat, 5000);
	unsigned h = chist_chunk_of(&a->hist, CHIST_OP(OP_stat), i / CHIST_CHUNK, 1);
	CHECK(h != 0);
	/* two tables, a low unit and the high units */
	CHECK_EQ_U(a->hist.used, 2 * CHIST_ROW_CHUNKS + 1 + CHIST_HIGH_UNITS);
	struct thread_stats *t = stats_make(NULL, NULL);
	CHECK_EQ_I(thread_stats_merge(t, comp), 0);
	CHECK_EQ_U(t->op_lat[OP_stat].h.bucket[i], (UINT64_C(1) << 16) + 1);
	CHECK_EQ_U(t->op_lat[OP_stat].n, 4);
	/* a high word past 2^32 and 2^48 (as after that many samples): the count is still exact */
	unsigned j = i % CHIST_CHUNK;
	for (int shift = 32; shift <= 48; shift += 16) {
		a->hist.chunk[h + j / 4].high[j % 4] = (UINT64_C(1) << (shift - 16)) - 1;
		a->hist.chunk[k].bucket[j] = UINT16_MAX;
		stats_op_record(comp, OP_stat, 5000);
		struct thread_stats *t3 = stats_make(NULL, NULL);
		CHECK_EQ_I(thread_stats_merge(t3, comp), 0);
		CHECK_EQ_U(t3->op_lat[OP_stat].h.bucket[i], UINT64_C(1) << shift);
		stats_delete(t3);
	}
	CHECK_EQ_U(a->hist.used, 2 * CHIST_ROW_CHUNKS + 1 + CHIST_HIGH_UNITS); /* no more units */
	stats_delete(t);
	stats_delete(comp);
	free(a);
}

/* The ramp's reset: everything empty again, the chunks kept for the next samples. */
static void test_reset(void)
{
	struct stats_arena *a = zalloc(sizeof(*a));
	struct thread_stats *comp = stats_make(NULL, a), *dense = stats_make(NULL, NULL);
	for (uint64_t ns = 1; ns < 1000000; ns = ns * 3 + 1)
		stats_sys_record(comp, SYS_write, ns);
	uint32_t used = a->hist.used;
	thread_stats_reset(comp);
	struct thread_stats *t = stats_make(NULL, NULL), *empty = stats_make(NULL, NULL);
	CHECK_EQ_I(thread_stats_merge(t, comp), 0);
	CHECK(series_equal(t, empty));
	for (uint64_t ns = 1; ns < 1000000; ns = ns * 3 + 1) {
		stats_sys_record(comp, SYS_write, ns);
		stats_sys_record(dense, SYS_write, ns);
	}
	CHECK_EQ_U(a->hist.used, used); /* the same chunks again */
	CHECK_EQ_I(thread_stats_merge(t, comp), 0);
	CHECK(series_equal(t, dense));
	stats_delete(t);
	stats_delete(empty);
	stats_delete(comp);
	stats_delete(dense);
	free(a);
}

/* The bound and the sizes quoted in chist.h. */
static void test_sizes(void)
{
	CHECK_EQ_U(CHIST_CHUNKS * CHIST_CHUNK, HIST_BUCKETS);
	CHECK(CHIST_CAPACITY <= 65536u);
	if (OP_COUNT == 22 && SYS_COUNT == 15) {
		CHECK_EQ_U(CHIST_ROW_CHUNKS, 10);
		CHECK_EQ_U(CHIST_HIGH_UNITS, 4);
		CHECK_EQ_U(CHIST_CAPACITY, 29601);
		CHECK_EQ_U(sizeof(struct chist_arena), 947456);
		CHECK_EQ_U(sizeof(union chist_chunk), 32);
		CHECK_EQ_U(sizeof(struct lat_moments) * CHIST_SERIES, 1776);
	}
}

int main(void)
{
	RUN(test_random_equal);
	RUN(test_worst_case);
	RUN(test_carry);
	RUN(test_reset);
	RUN(test_sizes);
	return test_summary();
}
