/* bench_stats.c - cost of recording a latency sample and of merging per-thread statistics.
 *
 * Prints ns per hist_record and ival_hist_record (the two instances of hist.h), per
 * stats_sys_record (with and without msec_ranges) and per thread_stats_merge, each into dense
 * histograms; then a worker's compact series (a stats_arena, chist.h) against the dense ones,
 * interleaved round by round, with the ratio compact/dense. Values are
 * pre-generated so the RNG is not timed; one figure with the RNG inside the loop is printed for
 * comparison. The target is <= 25 ns per recorded sample. Prints figures and asserts nothing.
 * Optional argument: millions of samples (default 50).
 */
#include "compiler.h"
#include "hist.h"
#include "interval.h"
#include "rng.h"
#include "stats.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* The value buffer is cycled: 1 Mi values = 8 MiB, bigger than L2 so loads are not free. */
enum { NVALS = 1 << 20 };

/* next_value - a latency spread over ~2^9 .. 2^40 ns, log-uniform-ish: 64 random bits shifted
 * right by 24..55. Cheap enough that the RNG-inclusive figure is mostly the RNG. */
static inline uint64_t next_value(struct rng *r)
{
	uint64_t x = rng_next(r);
	return x >> (24 + (x & 31));
}

static double per_sample(uint64_t t0, uint64_t t1, uint64_t n)
{
	return (double)(t1 - t0) / (double)n;
}

int main(int argc, char **argv)
{
	uint64_t millions = argc > 1 ? strtoull(argv[1], NULL, 10) : 50;
	uint64_t passes = (millions * 1000000 + NVALS - 1) / NVALS;
	uint64_t n = passes * NVALS;

	uint64_t *vals = malloc(NVALS * sizeof(*vals));
	uint8_t *sys = malloc(NVALS);
	struct hist *h = malloc(sizeof(*h));
	struct ival_hist *ih = malloc(sizeof(*ih));
	struct thread_stats *st = malloc(sizeof(*st)), *plain = malloc(sizeof(*plain));
	struct thread_stats *dst = malloc(sizeof(*dst));
	struct range_table *t = NULL;
	/* FFSB-style ranges: 0-0.01-0.1-1-10-100-1000 ms, 6 ranges, touching. */
	const double ms[] = {0, 0.01, 0.01, 0.1, 0.1, 1, 1, 10, 10, 100, 100, 1000};
	if (!vals || !sys || !h || !ih || !st || !plain || !dst || range_table_new(&t, ms, 6) ||
	    thread_stats_init(st, t) || thread_stats_init(plain, NULL) ||
	    thread_stats_init(dst, t)) {
		fprintf(stderr, "bench_stats: out of memory\n");
		return 1;
	}
	struct rng r;
	rng_seed(&r, 12345, 0);
	for (int i = 0; i < NVALS; i++) {
		vals[i] = next_value(&r);
		sys[i] = (uint8_t)(rng_next(&r) % SYS_COUNT);
	}
	printf("bench_stats: %" PRIu64 " samples per figure, %u distinct values cycled\n", n,
	       (unsigned)NVALS);

	hist_reset(h);
	uint64_t t0 = now_ns();
	for (uint64_t p = 0; p < passes; p++)
		for (int i = 0; i < NVALS; i++)
			hist_record(h, vals[i]);
	uint64_t t1 = now_ns();
	printf("hist_record:                      %6.2f ns/sample\n", per_sample(t0, t1, n));

	/* The interval rows' instance (4 sub-bits, 32-bit counts): what ival_add adds per timed op.
	 */
	ival_hist_reset(ih);
	t0 = now_ns();
	for (uint64_t p = 0; p < passes; p++)
		for (int i = 0; i < NVALS; i++)
			ival_hist_record(ih, vals[i]);
	t1 = now_ns();
	printf("ival_hist_record:                 %6.2f ns/sample\n", per_sample(t0, t1, n));

	t0 = now_ns();
	for (uint64_t p = 0; p < passes; p++)
		for (int i = 0; i < NVALS; i++)
			stats_sys_record(plain, (enum sys_id)sys[i], vals[i]);
	t1 = now_ns();
	printf("stats_sys_record (no ranges):     %6.2f ns/sample\n", per_sample(t0, t1, n));

	t0 = now_ns();
	for (uint64_t p = 0; p < passes; p++)
		for (int i = 0; i < NVALS; i++)
			stats_sys_record(st, (enum sys_id)sys[i], vals[i]);
	t1 = now_ns();
	printf("stats_sys_record (6 ranges):      %6.2f ns/sample\n", per_sample(t0, t1, n));

	t0 = now_ns();
	for (uint64_t p = 0; p < passes; p++)
		for (int i = 0; i < NVALS; i++)
			stats_sys_record(st, (enum sys_id)(i % SYS_COUNT), vals[i]);
	t1 = now_ns();
	printf("stats_sys_record (6 ranges, i%%%d):%6.2f ns/sample\n", SYS_COUNT,
	       per_sample(t0, t1, n));

	/* RNG inside the timed loop: the value and the syscall both come from one draw. */
	t0 = now_ns();
	for (uint64_t i = 0; i < n; i++) {
		uint64_t x = rng_next(&r);
		stats_sys_record(st, (enum sys_id)((x >> 56) % SYS_COUNT), x >> (24 + (x & 31)));
	}
	t1 = now_ns();
	printf("stats_sys_record + RNG:           %6.2f ns/sample\n", per_sample(t0, t1, n));

	/* Merge: the cost the main thread pays per worker after the join. */
	enum { MERGES = 2000 };
	t0 = now_ns();
	for (int i = 0; i < MERGES; i++)
		thread_stats_merge(dst, st);
	t1 = now_ns();
	printf("thread_stats_merge:               %6.0f ns/merge (%zu B per thread_stats)\n",
	       per_sample(t0, t1, MERGES), sizeof(struct thread_stats));

	/* A worker's compact series (stats_arena) against the dense ones, round by round. */
	struct stats_arena *arena = calloc(1, sizeof(*arena));
	struct thread_stats *wst = malloc(sizeof(*wst)), *dense = malloc(sizeof(*dense));
	if (!arena || !wst || !dense || thread_stats_init_zeroed(wst, t) ||
	    thread_stats_init(dense, t)) {
		fprintf(stderr, "bench_stats: out of memory\n");
		return 1;
	}
	thread_stats_use_arena(wst, arena);
	double sum_d = 0, sum_c = 0;
	for (int round = 0; round < 3; round++) {
		struct thread_stats *order[2] = {dense, wst};
		double ns[2];
		for (int k = 0; k < 2; k++) {
			t0 = now_ns();
			for (uint64_t p = 0; p < passes; p++)
				for (int i = 0; i < NVALS; i++)
					stats_sys_record(order[k], (enum sys_id)sys[i], vals[i]);
			t1 = now_ns();
			ns[k] = per_sample(t0, t1, n);
		}
		printf(
		    "round %d: stats_sys_record (6 ranges) dense %6.2f, compact %6.2f ns/sample: "
		    "compact/dense %.3f\n",
		    round + 1, ns[0], ns[1], ns[1] / ns[0]);
		sum_d += ns[0];
		sum_c += ns[1];
	}
	printf("stats_sys_record compact/dense, 3 rounds: %.3f (%u chunks of %zu B touched)\n",
	       sum_c / sum_d, arena->hist.used, sizeof(arena->hist.chunk[0]));
	t0 = now_ns();
	for (int i = 0; i < MERGES; i++)
		thread_stats_merge(dst, wst);
	t1 = now_ns();
	printf("thread_stats_merge (compact src): %6.0f ns/merge\n", per_sample(t0, t1, MERGES));

	/* Print something derived from every result so no loop can be optimised away. */
	uint64_t check = hist_count(h) + ival_hist_count(ih) + plain->sys_lat[0].n +
	                 dense->sys_lat[4].n + arena->mom[CHIST_SYS(4)].n + st->sys_lat[1].n +
	                 dst->sys_lat[2].n + lat_percentile_ns(&dst->sys_lat[3], 99);
	printf("checksum %" PRIu64 "\n", check);

	thread_stats_free(st);
	thread_stats_free(wst);
	thread_stats_free(dense);
	free(wst);
	free(dense);
	free(arena);
	thread_stats_free(plain);
	thread_stats_free(dst);
	range_table_free(t);
	free(vals);
	free(sys);
	free(h);
	free(ih);
	free(st);
	free(plain);
	free(dst);
	return 0;
}
