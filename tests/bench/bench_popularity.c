/* bench_popularity.c - the cost of a file pick by popularity: nanoseconds per pick + release
 * (POOL_READ, one thread, 100 000 files) for pool_pick (uniform) and pool_pick_ranked with
 * zipf:1.2, pareto:0.8 and hotset:10:90; rounds alternate, medians of 7. Prints figures,
 * asserts nothing. Picks per point: env BENCH_POP_PICKS (default 2 000 000). */
#include <stdio.h>
#include <stdlib.h>

#include "popularity.h"

#define FILES  100000u
#define ROUNDS 7

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(void)
{
	const char *env = getenv("BENCH_POP_PICKS");
	long picks = env ? atol(env) : 2000000;
	struct pool p;
	if (pool_init(&p, 1u << 20))
		return 1;
	for (uint32_t i = 0; i < FILES; i++)
		pool_add_initial(&p, i, 0, 0);
	struct rankperm perm;
	rankperm_init(&perm, FILES, 1);
	static const char *names[] = {"uniform (pool_pick)", "zipf:1.2", "pareto:0.8",
	                              "hotset:10:90"};
	struct popdist d[4] = {{.kind = POP_UNIFORM},
	                       {.kind = POP_ZIPF, .theta = 1.2},
	                       {.kind = POP_PARETO, .h = 0.8},
	                       {.kind = POP_HOTSET, .hot_files = 0.1, .hot_ops = 0.9}};
	double ns[4][ROUNDS];
	uint64_t sink = 0;
	for (int k = 0; k < 4; k++)
		popdist_init(&d[k]);
	for (int r = 0; r < ROUNDS; r++)
		for (int j = 0; j < 4; j++) {
			int k = (r & 1) ? 3 - j : j;
			struct rng rng;
			struct popcache c = {0};
			rng_seed(&rng, 42, (uint64_t)r);
			uint64_t t0 = now_ns();
			for (long i = 0; i < picks; i++) {
				uint32_t id;
				int rc = k == 0 ? pool_pick(&p, &rng, POOL_READ, &id)
				                : pool_pick_ranked(&p, &d[k], &perm, &c, &rng,
				                                   POOL_READ, &id);
				if (rc == 0) {
					sink += id;
					pool_release(&p, id, POOL_READ);
				}
			}
			ns[k][r] = (double)(now_ns() - t0) / (double)picks;
		}
	for (int k = 0; k < 4; k++) {
		qsort(ns[k], ROUNDS, sizeof(double), cmp_d);
		printf("pick + release, 1 thread, %u files, %-20s %6.1f ns (median of %d)\n", FILES,
		       names[k], ns[k][ROUNDS / 2], ROUNDS);
	}
	pool_destroy(&p);
	return sink == 1; /* keep the loop */
}
