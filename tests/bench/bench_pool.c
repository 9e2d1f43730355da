/* bench_pool.c - throughput of the shared file pool: picks/s with 1..64 threads doing
 * pick(READ)+release on a 100k-file pool, a mix with writes, creates and deletes, and, for
 * contrast, the same read picks behind one global mutex taken twice per op (FFSB's fileslock
 * pattern, filelist.c). Prints figures, asserts nothing. Run time per point: env
 * BENCH_POOL_MS (default 300 ms). */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "compiler.h"
#include "pool.h"
#include "rng.h"

#define FILES      100000u
#define CAPACITY   (1u << 20)
#define MAX_THREAD 64

enum workload { W_READ, W_MIX, W_GLOBAL_LOCK };

struct bench_thread {
	alignas(CACHELINE) uint64_t ops;
	uint64_t busy, none;
	struct rng rng;
	unsigned idx;
};

static struct pool pool;
static atomic_bool stop;
static _Atomic unsigned ready;
static enum workload workload;
static pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER;
static struct bench_thread th[MAX_THREAD];

static void one_read(struct bench_thread *t)
{
	uint32_t id;
	int rc = pool_pick(&pool, &t->rng, POOL_READ, &id);
	if (rc == 0)
		pool_release(&pool, id, POOL_READ);
	else if (rc == -EBUSY)
		t->busy++;
	else
		t->none++;
}

/* 60% read, 20% write, 10% create, 10% delete: creates ~ deletes, so the pool stays ~100k. */
static void one_mix(struct bench_thread *t)
{
	uint64_t dice = rng_below(&t->rng, 10);
	uint32_t id;
	int rc;
	if (dice < 6) {
		one_read(t);
		return;
	}
	if (dice == 8) {
		if (pool_reserve(&pool, &id) == 0)
			pool_publish(&pool, id, (uint32_t)(id % 100), 4096);
		return;
	}
	rc = pool_pick(&pool, &t->rng, POOL_WRITE, &id);
	if (rc) {
		if (rc == -EBUSY)
			t->busy++;
		else
			t->none++;
		return;
	}
	if (dice == 9) {
		pool_remove(&pool, id);
	} else {
		pool_set_size(&pool, id, pool_size(&pool, id) + 4096);
		pool_release(&pool, id, POOL_WRITE);
	}
}

/* FFSB's shape: global lock around the pick, and again around the release. */
static void one_global(struct bench_thread *t)
{
	uint32_t id;
	pthread_mutex_lock(&global_lock);
	int rc = pool_pick(&pool, &t->rng, POOL_READ, &id);
	pthread_mutex_unlock(&global_lock);
	if (rc == 0) {
		pthread_mutex_lock(&global_lock);
		pool_release(&pool, id, POOL_READ);
		pthread_mutex_unlock(&global_lock);
	}
}

static void *run_thread(void *arg)
{
	struct bench_thread *t = arg;
	atomic_fetch_add(&ready, 1);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		/* Check the flag every 256 ops: a relaxed load is cheap, but not free. */
		for (int i = 0; i < 256; i++) {
			switch (workload) {
			case W_READ:
				one_read(t);
				break;
			case W_MIX:
				one_mix(t);
				break;
			case W_GLOBAL_LOCK:
				one_global(t);
				break;
			}
		}
		t->ops += 256;
	}
	return NULL;
}

static void setup_pool(void)
{
	if (pool_init(&pool, CAPACITY)) {
		fprintf(stderr, "bench_pool: pool_init failed\n");
		exit(1);
	}
	for (uint32_t id = 0; id < FILES; id++)
		(void)pool_add_initial(&pool, id, id % 100, 4096);
}

static void run_point(enum workload w, unsigned nthreads, unsigned ms, const char *label)
{
	pthread_t tids[MAX_THREAD];
	workload = w;
	atomic_store(&stop, false);
	atomic_store(&ready, 0);
	for (unsigned i = 0; i < nthreads; i++) {
		th[i] = (struct bench_thread){.idx = i};
		rng_seed(&th[i].rng, 12345, i);
		if (pthread_create(&tids[i], NULL, run_thread, &th[i])) {
			fprintf(stderr, "bench_pool: pthread_create failed\n");
			exit(1);
		}
	}
	while (atomic_load(&ready) < nthreads)
		sched_yield();
	uint64_t t0 = now_ns();
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
	atomic_store(&stop, true);
	for (unsigned i = 0; i < nthreads; i++)
		pthread_join(tids[i], NULL);
	double secs = (double)(now_ns() - t0) / 1e9;
	uint64_t ops = 0, busy = 0, none = 0;
	for (unsigned i = 0; i < nthreads; i++) {
		ops += th[i].ops;
		busy += th[i].busy;
		none += th[i].none;
	}
	/* CPU-ns per op: wall time x CPUs actually usable / ops (threads beyond the CPU count
	 * only time-share). */
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	double used = (double)(nthreads < (unsigned)cpus ? nthreads : (unsigned)cpus);
	printf("%-22s %3u threads  %12.0f ops/s  %8.1f cpu-ns/op  busy %-8" PRIu64
	       " none %-4" PRIu64 " live %" PRIu64 " high_water %u\n",
	       label, nthreads, (double)ops / secs, secs * 1e9 * used / (double)(ops ? ops : 1),
	       busy, none, pool_live(&pool), pool_high_water(&pool));
}

int main(void)
{
	static const unsigned counts[] = {1, 2, 4, 16, 64};
	const char *env = getenv("BENCH_POOL_MS");
	unsigned ms = env ? (unsigned)atoi(env) : 300;
	if (ms == 0)
		ms = 300;
	printf("bench_pool: %u files, %u ms per point, %ld CPUs online\n", FILES, ms,
	       sysconf(_SC_NPROCESSORS_ONLN));
	setup_pool();
	for (size_t i = 0; i < ARRAY_SIZE(counts); i++)
		run_point(W_READ, counts[i], ms, "pick(READ)+release");
	for (size_t i = 0; i < ARRAY_SIZE(counts); i++)
		run_point(W_MIX, counts[i], ms, "mix r60/w20/c10/d10");
	pool_destroy(&pool);
	setup_pool();
	for (size_t i = 0; i < ARRAY_SIZE(counts); i++)
		run_point(W_GLOBAL_LOCK, counts[i], ms, "global mutex (FFSB)");
	pool_destroy(&pool);
	return 0;
}
