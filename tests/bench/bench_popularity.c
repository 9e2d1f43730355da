/* bench_popularity.c - the cost of a file pick by popularity: CPU nanoseconds per pick +
 * release (POOL_READ on a pool that is not frozen, so every pick and release is an atomic
 * read-modify-write of the file's slot, as in a run that writes) for pool_pick (uniform) and
 * pool_pick_ranked with zipf:1.2, pareto:0.8 and hotset:10:90, at 1 and 16 threads sharing one
 * pool, on 2000 files (bench_engine.sh popularity's tree) and 100 000. Each thread measures its
 * own CPU time (CLOCK_THREAD_CPUTIME_ID), so threads waiting for a core do not count and a
 * loaded machine changes little; what 16 threads add is their contention on the hot files'
 * slots (cache lines moved between CPUs). Rounds alternate the order; medians of 5. Prints
 * figures, asserts nothing. Environment: BENCH_POP_PICKS (picks per point, default 2 000 000),
 * BENCH_POP_THREADS (default "1 16"). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "popularity.h"

#define ROUNDS 5
#define KINDS  4
#define MAX_T  64

struct job {
	struct pool *p;
	const struct popdist *d;
	const struct rankperm *perm;
	long picks;
	uint64_t seed;
	uint64_t cpu_ns, sink;
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *picker(void *arg)
{
	struct job *j = arg;
	struct rng rng;
	struct popcache c = {0};
	rng_seed(&rng, 42, j->seed);
	uint64_t t0 = thread_cpu_ns();
	for (long i = 0; i < j->picks; i++) {
		uint32_t id;
		int rc = j->d->kind == POP_UNIFORM
		             ? pool_pick(j->p, &rng, POOL_READ, &id)
		             : pool_pick_ranked(j->p, j->d, j->perm, &c, &rng, POOL_READ, &id);
		if (rc == 0) {
			j->sink += id;
			pool_release(j->p, id, POOL_READ);
		}
	}
	j->cpu_ns = thread_cpu_ns() - t0;
	return NULL;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* CPU ns per pick, all threads together, of `threads` threads making `picks` picks in all. */
static double point(struct pool *p, const struct popdist *d, const struct rankperm *perm,
                    int threads, long picks, uint64_t round, uint64_t *sink)
{
	struct job jobs[MAX_T];
	pthread_t th[MAX_T];
	uint64_t cpu = 0;
	for (int t = 0; t < threads; t++) {
		jobs[t] = (struct job){.p = p,
		                       .d = d,
		                       .perm = perm,
		                       .picks = picks / threads,
		                       .seed = round * MAX_T + (uint64_t)t};
		if (pthread_create(&th[t], NULL, picker, &jobs[t]))
			exit(1);
	}
	for (int t = 0; t < threads; t++) {
		pthread_join(th[t], NULL);
		cpu += jobs[t].cpu_ns;
		*sink += jobs[t].sink;
	}
	return (double)cpu / (double)(picks / threads * threads);
}

int main(void)
{
	const char *env = getenv("BENCH_POP_PICKS");
	long picks = env ? atol(env) : 2000000;
	const char *tenv = getenv("BENCH_POP_THREADS");
	char tlist[64];
	snprintf(tlist, sizeof(tlist), "%s", tenv ? tenv : "1 16");
	static const char *names[KINDS] = {"uniform (pool_pick)", "zipf:1.2", "pareto:0.8",
	                                   "hotset:10:90"};
	struct popdist d[KINDS] = {{.kind = POP_UNIFORM},
	                           {.kind = POP_ZIPF, .theta = 1.2},
	                           {.kind = POP_PARETO, .h = 0.8},
	                           {.kind = POP_HOTSET, .hot_files = 0.1, .hot_ops = 0.9}};
	for (int k = 0; k < KINDS; k++)
		popdist_init(&d[k]);
	static const uint32_t sizes[] = {2000, 100000};
	uint64_t sink = 0;
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		uint32_t files = sizes[s];
		struct pool p;
		if (pool_init(&p, 1u << 20))
			return 1;
		for (uint32_t i = 0; i < files; i++)
			pool_add_initial(&p, i, 0, 0);
		struct rankperm perm;
		rankperm_init(&perm, files, 1);
		char buf[64];
		snprintf(buf, sizeof(buf), "%s", tlist);
		for (char *save = NULL, *tok = strtok_r(buf, " ,", &save); tok;
		     tok = strtok_r(NULL, " ,", &save)) {
			int threads = atoi(tok);
			if (threads < 1 || threads > MAX_T)
				continue;
			double ns[KINDS][ROUNDS];
			for (int r = 0; r < ROUNDS; r++)
				for (int j = 0; j < KINDS; j++) {
					int k = (r & 1) ? KINDS - 1 - j : j;
					ns[k][r] = point(&p, &d[k], &perm, threads, picks,
					                 (uint64_t)r, &sink);
				}
			double u = 0;
			for (int k = 0; k < KINDS; k++) {
				qsort(ns[k], ROUNDS, sizeof(double), cmp_d);
				double m = ns[k][ROUNDS / 2];
				if (k == 0)
					u = m;
				printf(
				    "pick + release, %2d thread%s, %6u files, %-20s %6.1f CPU ns "
				    "(+%5.1f over uniform; median of %d)\n",
				    threads, threads == 1 ? " " : "s", files, names[k], m, m - u,
				    ROUNDS);
			}
		}
		pool_destroy(&p);
	}
	return sink == 1; /* keep the loops */
}
