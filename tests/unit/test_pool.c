/* test_pool.c - single-thread semantics of the file pool, and a multithreaded stress that checks
 * exclusivity with a per-slot shadow counter. Meant to be clean under -fsanitize=thread and
 * -fsanitize=address,undefined. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "pool.h"
#include "test.h"

static void test_empty(void)
{
	struct pool p;
	struct rng r;
	uint32_t id = 7;
	rng_seed(&r, 1, 0);
	CHECK_EQ_I(pool_init(&p, 0), -EINVAL);
	CHECK_EQ_I(pool_init(&p, POOL_MAX_CAPACITY + 1u), -EINVAL);
	CHECK_EQ_I(pool_init(&p, 1024), 0);
	CHECK_EQ_I(pool_pick(&p, &r, POOL_READ, &id), -ENOENT);
	CHECK_EQ_I(pool_pick(&p, &r, POOL_WRITE, &id), -ENOENT);
	CHECK_EQ_U(pool_live(&p), 0);
	CHECK_EQ_U(pool_high_water(&p), 0);
	/* A reserved, unpublished slot is invisible. */
	CHECK_EQ_I(pool_reserve(&p, &id), 0);
	CHECK_EQ_U(id, 0);
	CHECK_EQ_U(pool_high_water(&p), 1);
	CHECK_EQ_I(pool_pick(&p, &r, POOL_READ, &id), -ENOENT);
	pool_unreserve(&p, 0);
	CHECK_EQ_I(pool_pick(&p, &r, POOL_READ, &id), -ENOENT);
	/* The unreserved slot is reused first. */
	CHECK_EQ_I(pool_reserve(&p, &id), 0);
	CHECK_EQ_U(id, 0);
	CHECK_EQ_U(pool_high_water(&p), 1);
	pool_unreserve(&p, 0);
	pool_destroy(&p);
}

static void test_lifecycle(void)
{
	struct pool p;
	struct rng r;
	uint32_t id, a, b;
	rng_seed(&r, 2, 0);
	CHECK_EQ_I(pool_init(&p, 8), 0);
	CHECK_EQ_I(pool_reserve(&p, &a), 0);
	pool_publish(&p, a, 3, 4096);
	CHECK_EQ_U(pool_live(&p), 1);
	CHECK_EQ_I(pool_pick(&p, &r, POOL_READ, &id), 0);
	CHECK_EQ_U(id, a);
	CHECK_EQ_U(pool_dir(&p, id), 3);
	CHECK_EQ_U(pool_size(&p, id), 4096);
	/* Readers share. */
	CHECK_EQ_I(pool_pick(&p, &r, POOL_READ, &b), 0);
	CHECK_EQ_U(b, a);
	/* A writer is excluded while readers hold it: files exist but all busy. */
	CHECK_EQ_I(pool_pick(&p, &r, POOL_WRITE, &id), -EBUSY);
	pool_release(&p, a, POOL_READ);
	CHECK_EQ_I(pool_pick(&p, &r, POOL_WRITE, &id), -EBUSY);
	pool_release(&p, a, POOL_READ);
	CHECK_EQ_I(pool_pick(&p, &r, POOL_WRITE, &id), 0);
	CHECK_EQ_U(id, a);
	/* The writer excludes readers and other writers. */
	CHECK_EQ_I(pool_pick(&p, &r, POOL_READ, &b), -EBUSY);
	CHECK_EQ_I(pool_pick(&p, &r, POOL_WRITE, &b), -EBUSY);
	CHECK_EQ_I(pool_try_acquire(&p, a, POOL_READ), -EBUSY);
	pool_set_size(&p, a, 8192);
	pool_release(&p, a, POOL_WRITE);
	CHECK_EQ_I(pool_try_acquire(&p, a, POOL_READ), 0);
	CHECK_EQ_U(pool_size(&p, a), 8192);
	pool_release(&p, a, POOL_READ);
	/* Delete: exclusive pick, then remove. */
	CHECK_EQ_I(pool_pick(&p, &r, POOL_WRITE, &id), 0);
	pool_remove(&p, id);
	CHECK_EQ_U(pool_live(&p), 0);
	CHECK_EQ_I(pool_pick(&p, &r, POOL_READ, &id), -ENOENT);
	CHECK_EQ_I(pool_try_acquire(&p, a, POOL_READ), -ENOENT);
	/* Capacity is a hard limit. */
	uint32_t ids[8];
	for (int i = 0; i < 8; i++)
		CHECK_EQ_I(pool_reserve(&p, &ids[i]), 0);
	CHECK_EQ_U(ids[0], a); /* the hole is refilled first */
	CHECK_EQ_I(pool_reserve(&p, &id), -ENOSPC);
	for (int i = 0; i < 8; i++)
		pool_publish(&p, ids[i], 0, (uint64_t)i);
	CHECK_EQ_U(pool_live(&p), 8);
	pool_destroy(&p);
}

static int count_visit(uint32_t id, uint32_t dir, uint64_t size, void *arg)
{
	uint64_t *acc = arg;
	acc[0]++;
	acc[1] += id;
	acc[2] += dir;
	acc[3] += size;
	return 0;
}

static void test_initial_and_holes(void)
{
	struct pool p;
	struct rng r;
	uint32_t id;
	rng_seed(&r, 3, 0);
	CHECK_EQ_I(pool_init(&p, 1000), 0);
	/* Sparse set, as loaded from a manifest after a run with deletes: ids 0, 2, 4, ..., 98. */
	for (uint32_t i = 0; i < 100; i += 2)
		CHECK_EQ_I(pool_add_initial(&p, i, i % 7, 100 + i), 0);
	CHECK_EQ_I(pool_add_initial(&p, 4, 0, 0), -EEXIST);
	CHECK_EQ_I(pool_add_initial(&p, 1000, 0, 0), -ERANGE);
	CHECK_EQ_U(pool_live(&p), 50);
	CHECK_EQ_U(pool_high_water(&p), 99);
	CHECK_EQ_U(pool_collect_holes(&p), 49);
	CHECK_EQ_U(pool_collect_holes(&p), 0); /* idempotent */
	uint64_t acc[4] = {0};
	CHECK_EQ_I(pool_foreach_live(&p, count_visit, acc), 0);
	CHECK_EQ_U(acc[0], 50);
	CHECK_EQ_U(acc[1], 2450);
	/* Creates refill the holes in ascending order before growing. */
	for (uint32_t i = 1; i < 99; i += 2) {
		CHECK_EQ_I(pool_reserve(&p, &id), 0);
		CHECK_EQ_U(id, i);
		pool_publish(&p, id, 0, 0);
	}
	CHECK_EQ_I(pool_reserve(&p, &id), 0);
	CHECK_EQ_U(id, 99);
	pool_unreserve(&p, id);
	/* Every file is reachable by random picks: each of 99 seen within 20000 picks. */
	static unsigned char seen[99];
	int distinct = 0;
	for (int i = 0; i < 20000; i++) {
		CHECK_EQ_I(pool_pick(&p, &r, POOL_READ, &id), 0);
		if (id < 99 && !seen[id]++)
			distinct++;
		pool_release(&p, id, POOL_READ);
	}
	CHECK_EQ_I(distinct, 99);
	pool_destroy(&p);
}

/* The free stack's ABA interleaving, made deterministic (no threads): a pop (thread A) reads the
 * head -- top 0, link 1 -- and is delayed before its compare-and-swap; meanwhile "thread B" pops
 * 0 and 1 and pushes 0 back, so the top is 0 again but its link is now 2. A's CAS must fail (the
 * head's tag moved on): without the tag it would succeed and make 1, which B holds, the top, to
 * be handed out twice. The head A reads is made by a push over a pop's head, so a tag dropped
 * from either the push or the pop shows: 30 runs of test_stress never caught it (issue 30). */
static void test_aba(void)
{
	struct pool p;
	uint32_t id, b0, b1;
	CHECK_EQ_I(pool_init(&p, 16), 0);
	pool_settle_initial(&p, 0, 4);
	CHECK_EQ_U(pool_collect_holes(&p), 4); /* the free stack: 0 1 2 3, 0 on top */
	CHECK_EQ_I(pool_reserve(&p, &id), 0);  /* a pop ... */
	CHECK_EQ_U(id, 0);
	pool_unreserve(&p, id); /* ... and a push: 0 1 2 3 again */
	struct pool_pop a;
	CHECK(pool_pop_begin(&p, &a)); /* thread A: top 0, link 1; then it is delayed */
	CHECK_EQ_U(a.top, 0);
	CHECK_EQ_U(a.next, 1);
	CHECK_EQ_I(pool_reserve(&p, &b0), 0); /* thread B: pops 0 and 1, pushes 0: 0 2 3 */
	CHECK_EQ_I(pool_reserve(&p, &b1), 0);
	CHECK_EQ_U(b0, 0);
	CHECK_EQ_U(b1, 1);
	pool_unreserve(&p, b0);
	CHECK(!pool_pop_commit(&p, &a)); /* thread A's CAS: the same top, another tag */
	/* A starts over and gets 0; the next pop is 2, never 1 (which B still holds) */
	CHECK(pool_pop_begin(&p, &a));
	CHECK_EQ_U(a.top, 0);
	CHECK_EQ_U(a.next, 2);
	CHECK(pool_pop_commit(&p, &a));
	CHECK_EQ_I(pool_reserve(&p, &id), 0);
	CHECK_EQ_U(id, 2);
	pool_destroy(&p);
}

/* The scan fallback finds the one idle file among many busy ones. */
static void test_scan_fallback(void)
{
	struct pool p;
	struct rng r;
	uint32_t id;
	rng_seed(&r, 4, 0);
	CHECK_EQ_I(pool_init(&p, 100000), 0);
	for (uint32_t i = 0; i < 100000; i++)
		CHECK_EQ_I(pool_add_initial(&p, i, 0, 0), 0);
	for (uint32_t i = 0; i < 100000; i++)
		if (i != 77777)
			CHECK_EQ_I(pool_try_acquire(&p, i, POOL_WRITE), 0);
	CHECK_EQ_I(pool_pick(&p, &r, POOL_WRITE, &id), 0);
	CHECK_EQ_U(id, 77777);
	CHECK_EQ_I(pool_pick(&p, &r, POOL_READ, &id), -EBUSY);
	pool_destroy(&p);
}

/* --- multithreaded stress ----------------------------------------------------------------- */

#define ST_THREADS 8
#define ST_OPS     200000
#define ST_CAP     4096
#define ST_INITIAL 512
#define SH_WRITER  (1u << 20)

struct stress {
	struct pool pool;
	_Atomic uint32_t shadow[ST_CAP]; /* readers + SH_WRITER * writers, as the test sees them */
	_Atomic uint32_t exists[ST_CAP]; /* 0 free, 1 reserved by a creator, 2 published */
	_Atomic uint64_t violations;
	_Atomic uint64_t published, removed;
	_Atomic int go;
};

struct stress_arg {
	struct stress *st;
	unsigned idx;
};

static void violation(struct stress *st)
{
	atomic_fetch_add(&st->violations, 1);
}

static void *stress_thread(void *argp)
{
	struct stress_arg *a = argp;
	struct stress *st = a->st;
	struct pool *p = &st->pool;
	struct rng r;
	uint64_t pub = 0, rem = 0;
	rng_seed(&r, 42, a->idx);
	while (!atomic_load(&st->go))
		;
	for (int op = 0; op < ST_OPS; op++) {
		uint64_t dice = rng_below(&r, 100);
		uint32_t id;
		if (dice < 50) { /* read */
			int rc = pool_pick(p, &r, POOL_READ, &id);
			if (rc == -EBUSY || rc == -ENOENT)
				continue;
			if (rc != 0 || atomic_load(&st->exists[id]) != 2)
				violation(st);
			uint32_t v = atomic_fetch_add(&st->shadow[id], 1);
			if (v >= SH_WRITER)
				violation(st);
			if (pool_dir(p, id) != id % 13)
				violation(st);
			atomic_fetch_sub(&st->shadow[id], 1);
			pool_release(p, id, POOL_READ);
		} else if (dice < 85) { /* write (50..69) or delete (70..84) */
			/* Deletes stop below 256 live files so the pool keeps a population; creates
			 * (15%, a tenth of them failing) then roughly balance deletes. */
			if (dice >= 70 && pool_live(p) < 256)
				continue;
			int rc = pool_pick(p, &r, POOL_WRITE, &id);
			if (rc == -EBUSY || rc == -ENOENT)
				continue;
			if (rc != 0 || atomic_load(&st->exists[id]) != 2)
				violation(st);
			if (atomic_fetch_add(&st->shadow[id], SH_WRITER) != 0)
				violation(st);
			pool_set_size(p, id, pool_size(p, id) + 1);
			atomic_fetch_sub(&st->shadow[id], SH_WRITER);
			if (dice < 70) {
				pool_release(p, id, POOL_WRITE);
			} else {
				uint32_t two = 2;
				if (!atomic_compare_exchange_strong(&st->exists[id], &two, 0))
					violation(st);
				pool_remove(p, id);
				rem++;
			}
		} else { /* create */
			if (pool_reserve(p, &id) != 0)
				continue;
			uint32_t zero = 0;
			/* No slot id is handed out twice concurrently. */
			if (!atomic_compare_exchange_strong(&st->exists[id], &zero, 1))
				violation(st);
			if (atomic_fetch_add(&st->shadow[id], SH_WRITER) != 0)
				violation(st);
			atomic_fetch_sub(&st->shadow[id], SH_WRITER);
			if (rng_below(&r, 10) == 0) { /* a failed create */
				atomic_store(&st->exists[id], 0);
				pool_unreserve(p, id);
			} else {
				atomic_store(&st->exists[id], 2);
				pool_publish(p, id, id % 13, 0);
				pub++;
			}
		}
	}
	atomic_fetch_add(&st->published, pub);
	atomic_fetch_add(&st->removed, rem);
	return NULL;
}

static void test_stress(void)
{
	static struct stress st;
	pthread_t th[ST_THREADS];
	struct stress_arg args[ST_THREADS];
	CHECK_EQ_I(pool_init(&st.pool, ST_CAP), 0);
	for (uint32_t i = 0; i < ST_INITIAL; i++) {
		CHECK_EQ_I(pool_add_initial(&st.pool, i, i % 13, 0), 0);
		atomic_store(&st.exists[i], 2);
	}
	for (unsigned i = 0; i < ST_THREADS; i++) {
		args[i] = (struct stress_arg){&st, i};
		CHECK_EQ_I(pthread_create(&th[i], NULL, stress_thread, &args[i]), 0);
	}
	atomic_store(&st.go, 1);
	for (unsigned i = 0; i < ST_THREADS; i++)
		pthread_join(th[i], NULL);
	CHECK_EQ_U(atomic_load(&st.violations), 0);
	uint64_t expect = ST_INITIAL + atomic_load(&st.published) - atomic_load(&st.removed);
	CHECK_EQ_U(pool_live(&st.pool), expect);
	uint64_t acc[4] = {0};
	CHECK_EQ_I(pool_foreach_live(&st.pool, count_visit, acc), 0);
	CHECK_EQ_U(acc[0], expect);
	uint64_t shadow_live = 0;
	for (uint32_t i = 0; i < ST_CAP; i++) {
		shadow_live += atomic_load(&st.exists[i]) == 2;
		CHECK_EQ_U(atomic_load(&st.shadow[i]), 0);
	}
	CHECK_EQ_U(shadow_live, expect);
	/* Creates ~ deletes: holes are refilled, growth stays bounded. */
	CHECK(pool_high_water(&st.pool) < ST_CAP);
	/* Everything is idle again: every live file can be taken exclusively. */
	uint64_t took = 0;
	for (uint32_t i = 0; i < pool_high_water(&st.pool); i++)
		if (pool_try_acquire(&st.pool, i, POOL_WRITE) == 0)
			took++;
	CHECK_EQ_U(took, expect);
	printf("stress: %d threads x %d ops, published %" PRIu64 ", removed %" PRIu64
	       ", live %" PRIu64 ", high_water %u\n",
	       ST_THREADS, ST_OPS, atomic_load(&st.published), atomic_load(&st.removed), expect,
	       pool_high_water(&st.pool));
	pool_destroy(&st.pool);
}

/* Parallel builders put disjoint ids without touching the shared counts, then settle once. */
struct putter {
	struct pool *p;
	uint32_t first, n;
	uint64_t added;
	uint32_t high;
};

static void *put_range(void *arg)
{
	struct putter *w = arg;
	for (uint32_t i = 0; i < w->n; i++) {
		uint32_t id = w->first + i * 4; /* interleaved with the other putters */
		if (pool_put_initial(w->p, id, id % 5, id) == 0) {
			w->added++;
			w->high = id + 1 > w->high ? id + 1 : w->high;
		}
	}
	return NULL;
}

static void test_put_and_settle(void)
{
	struct pool p;
	uint32_t id;
	CHECK_EQ_I(pool_init(&p, 5000), 0);
	struct putter w[4];
	pthread_t t[4];
	for (uint32_t k = 0; k < 4; k++) {
		w[k] = (struct putter){.p = &p, .first = k, .n = 1000};
		CHECK_EQ_I(pthread_create(&t[k], NULL, put_range, &w[k]), 0);
	}
	for (uint32_t k = 0; k < 4; k++)
		pthread_join(t[k], NULL);
	/* Put but not settled: the files exist in their slots, the counts do not show them. */
	CHECK_EQ_U(pool_live(&p), 0);
	CHECK_EQ_U(pool_high_water(&p), 0);
	CHECK_EQ_I(pool_put_initial(&p, 17, 0, 0), -EEXIST);
	CHECK_EQ_I(pool_put_initial(&p, 5000, 0, 0), -ERANGE);
	for (uint32_t k = 0; k < 4; k++)
		pool_settle_initial(&p, w[k].added, w[k].high);
	CHECK_EQ_U(pool_live(&p), 4000);
	CHECK_EQ_U(pool_high_water(&p), 4000);
	CHECK_EQ_U(pool_size(&p, 3999), 3999);
	CHECK_EQ_U(pool_dir(&p, 3999), 3999 % 5);
	CHECK_EQ_U(pool_collect_holes(&p), 0);
	/* Settled files can be picked and the pool grows past them. */
	CHECK_EQ_I(pool_reserve(&p, &id), 0);
	CHECK_EQ_U(id, 4000);
	pool_destroy(&p);
}

/* ---- frozen pools: readers take no share, changes are refused ---- */

/* A copy of every slot's state word below hw, to see that nothing wrote one. */
static void states(const struct pool *p, uint32_t hw, uint32_t *out)
{
	for (uint32_t i = 0; i < hw; i++)
		out[i] = atomic_load(&p->slots[i].state);
}

/* Sparse files 0, 3, 6, ... 297 (dir = id % 7, size = id), holes collected: as a manifest. */
static void frozen_fixture(struct pool *p)
{
	CHECK_EQ_I(pool_init(p, 1000), 0);
	for (uint32_t i = 0; i < 300; i += 3)
		CHECK_EQ_I(pool_add_initial(p, i, i % 7, i), 0);
	CHECK_EQ_U(pool_collect_holes(p), 198);
}

static void test_frozen(void)
{
	static struct pool p, q;
	static uint32_t before[298], after[298];
	struct rng r, rq;
	uint32_t id, idq;
	frozen_fixture(&p);
	frozen_fixture(&q);
	uint32_t hw = pool_high_water(&p);
	CHECK_EQ_U(hw, 298);
	pool_freeze(&p);
	states(&p, hw, before);
	/* Readers pick the same files, in the same order, as from a counted pool (the same
	 * probes and draws): freezing changes no run's choices, only what a pick writes. */
	rng_seed(&r, 7, 0);
	rng_seed(&rq, 7, 0);
	int held = 0, same = 0;
	for (int i = 0; i < 5000; i++) {
		CHECK_EQ_I(pool_pick(&p, &r, POOL_READ, &id), 0);
		CHECK_EQ_I(pool_pick(&q, &rq, POOL_READ, &idq), 0);
		same += id == idq;
		CHECK_EQ_U(id % 3, 0);
		CHECK_EQ_U(pool_dir(&p, id), id % 7);
		CHECK_EQ_U(pool_size(&p, id), id);
		/* Hold some, as concurrent readers would: a frozen pool counts none. */
		if (i % 2)
			pool_release(&p, id, POOL_READ);
		else
			held++;
		pool_release(&q, idq, POOL_READ);
	}
	CHECK_EQ_I(same, 5000);
	CHECK(held > 0);
	CHECK_EQ_I(pool_try_acquire(&p, 3, POOL_READ), 0);
	CHECK_EQ_I(pool_try_acquire(&p, 4, POOL_READ), -ENOENT); /* a hole */
	pool_release(&p, 3, POOL_READ);
	/* Every change is refused, and none touches a state word. */
	CHECK_EQ_I(pool_pick(&p, &r, POOL_WRITE, &id), -EROFS);
	CHECK_EQ_I(pool_try_acquire(&p, 3, POOL_WRITE), -EROFS);
	CHECK_EQ_I(pool_reserve(&p, &id), -EROFS);
	states(&p, hw, after);
	CHECK(memcmp(before, after, sizeof(before)) == 0);
	CHECK_EQ_U(pool_live(&p), 100);
	CHECK_EQ_U(pool_high_water(&p), hw);
	/* Thawed: readers count again, and writers, creators and deleters are let in. */
	pool_thaw(&p);
	CHECK_EQ_I(pool_try_acquire(&p, 3, POOL_READ), 0);
	CHECK_EQ_I(pool_try_acquire(&p, 3, POOL_WRITE), -EBUSY);
	pool_release(&p, 3, POOL_READ);
	CHECK_EQ_I(pool_try_acquire(&p, 3, POOL_WRITE), 0);
	pool_remove(&p, 3);
	CHECK_EQ_I(pool_reserve(&p, &id), 0);
	CHECK_EQ_U(id, 3); /* the slot just freed, on top of the free stack */
	pool_destroy(&p);
	pool_destroy(&q);
	/* An empty frozen pool has nothing to pick. */
	CHECK_EQ_I(pool_init(&p, 8), 0);
	pool_freeze(&p);
	CHECK_EQ_I(pool_pick(&p, &r, POOL_READ, &id), -ENOENT);
	pool_destroy(&p);
}

/* Readers of a frozen pool on several threads (clean under ThreadSanitizer: they only load). */
#define FR_THREADS 4
#define FR_PICKS   20000
static struct pool frozen_shared;

static void *frozen_reader(void *arg)
{
	struct rng r;
	uint32_t id;
	uintptr_t bad = 0;
	rng_seed(&r, 11, (uintptr_t)arg);
	for (int i = 0; i < FR_PICKS; i++) {
		if (pool_pick(&frozen_shared, &r, POOL_READ, &id) || id % 3 ||
		    pool_dir(&frozen_shared, id) != id % 7)
			bad++;
		pool_release(&frozen_shared, id, POOL_READ);
	}
	return (void *)bad;
}

static void test_frozen_threads(void)
{
	static uint32_t before[298], after[298];
	pthread_t th[FR_THREADS];
	frozen_fixture(&frozen_shared);
	pool_freeze(&frozen_shared);
	states(&frozen_shared, 298, before);
	for (uintptr_t i = 0; i < FR_THREADS; i++)
		CHECK_EQ_I(pthread_create(&th[i], NULL, frozen_reader, (void *)i), 0);
	for (int i = 0; i < FR_THREADS; i++) {
		void *bad;
		pthread_join(th[i], &bad);
		CHECK_EQ_U((uintptr_t)bad, 0);
	}
	states(&frozen_shared, 298, after);
	CHECK(memcmp(before, after, sizeof(before)) == 0);
	pool_destroy(&frozen_shared);
}

/* Content generations: a word per file beside the slots, unknown (0) until set, kept with its
 * write time, independent of the size and of other files. */
static void test_generations(void)
{
	struct pool p;
	uint32_t id, id2;
	CHECK_EQ_I(pool_init(&p, 1000), 0);
	CHECK_EQ_I(pool_reserve(&p, &id), 0);
	CHECK_EQ_U(pool_gen(&p, id), POOL_GEN_UNKNOWN);
	pool_set_gen(&p, id, 1, 1234);
	pool_publish(&p, id, 0, 4096);
	CHECK_EQ_I(pool_reserve(&p, &id2), 0);
	pool_set_gen(&p, id2, 1, 0);
	pool_publish(&p, id2, 0, 10);
	CHECK_EQ_I(pool_try_acquire(&p, id, POOL_WRITE), 0);
	pool_set_gen(&p, id, pool_gen(&p, id) + 1, 5678);
	pool_set_size(&p, id, 8192);
	pool_release(&p, id, POOL_WRITE);
	CHECK_EQ_I(pool_try_acquire(&p, id, POOL_READ), 0);
	CHECK_EQ_U(pool_gen(&p, id), 2);
	CHECK_EQ_U(pool_gen_time(&p, id), 5678);
	CHECK_EQ_U(pool_size(&p, id), 8192);
	pool_release(&p, id, POOL_READ);
	CHECK_EQ_U(pool_gen(&p, id2), 1);
	CHECK_EQ_U(pool_gen_time(&p, id2), 0);
	pool_set_gen(&p, 999, UINT32_MAX, UINT32_MAX); /* the last slot, the largest values */
	CHECK_EQ_U(pool_gen(&p, 999), UINT32_MAX);
	CHECK_EQ_U(pool_gen_time(&p, 999), UINT32_MAX);
	pool_destroy(&p);
	CHECK(p.gens == NULL);
}

/* A shared tree's partition (pool_partition): rank 1 of 3 reserves and picks for deletion only
 * ids 1, 4, 7, ..., while plain picks see every rank's files. */
static void test_partition(void)
{
	struct pool p;
	struct rng r;
	uint32_t id;
	rng_seed(&r, 5, 0);
	CHECK_EQ_I(pool_init(&p, 1024), 0);
	for (uint32_t i = 0; i < 10; i++) /* the tree rank 0 built: ids 0..9 */
		CHECK_EQ_I(pool_add_initial(&p, i, 0, 1), 0);
	pool_partition(&p, 3, 1);
	CHECK_EQ_U(pool_collect_holes(&p), 0);
	CHECK(pool_owns(&p, 4) && !pool_owns(&p, 5));
	/* Deletes pick only owned files: 1, 4, 7, then none is left. */
	int seen[10] = {0};
	for (int k = 0; k < 3; k++) {
		CHECK_EQ_I(pool_pick_owned(&p, &r, POOL_WRITE, &id), 0);
		CHECK_EQ_U(id % 3, 1);
		CHECK(!seen[id]);
		seen[id] = 1;
		pool_remove(&p, id);
	}
	CHECK_EQ_I(pool_pick_owned(&p, &r, POOL_WRITE, &id), -ENOENT);
	/* Other ranks' files are still there for plain picks. */
	CHECK_EQ_I(pool_pick(&p, &r, POOL_READ, &id), 0);
	CHECK(id % 3 != 1);
	pool_release(&p, id, POOL_READ);
	/* Creates reuse the owned holes, then grow by owned ids only: 10, 13. */
	uint32_t got[5];
	for (int k = 0; k < 5; k++)
		CHECK_EQ_I(pool_reserve(&p, &got[k]), 0);
	for (int k = 0; k < 5; k++)
		CHECK_EQ_U(got[k] % 3, 1);
	CHECK_EQ_U(got[3], 10);
	CHECK_EQ_U(got[4], 13);
	CHECK_EQ_U(pool_high_water(&p), 14);
	/* The other residues stay unused holes: rank 0's next id would be 15. */
	struct pool q;
	CHECK_EQ_I(pool_init(&q, 16), 0);
	pool_partition(&q, 3, 0);
	CHECK_EQ_I(pool_add_initial(&q, 13, 0, 1), 0);
	CHECK_EQ_U(pool_collect_holes(&q), 5); /* 0, 3, 6, 9, 12 */
	for (int k = 0; k < 5; k++)
		CHECK_EQ_I(pool_reserve(&q, &id), 0);
	CHECK_EQ_I(pool_reserve(&q, &id), 0);
	CHECK_EQ_U(id, 15);
	CHECK_EQ_I(pool_reserve(&q, &id), -ENOSPC);
	pool_destroy(&q);
	pool_destroy(&p);
}

/* pool_pick_next (file_order=sequential): files in turn from the cursor, wrapping; a directory
 * filter; held files skipped (-EBUSY when only they match); -ENOENT when none matches. */
static void test_pick_next(void)
{
	struct pool p;
	uint32_t id = 99, cur = 3;
	CHECK_EQ_I(pool_init(&p, 64), 0);
	CHECK_EQ_I(pool_pick_next(&p, &cur, POOL_WRITE, 0, 0, &id), -ENOENT);
	for (uint32_t i = 0; i < 8; i++) /* file i in directory i % 2; 7 in data/ */
		CHECK_EQ_I(pool_add_initial(&p, i, i == 7 ? UINT32_MAX : i % 2, 0), 0);
	const uint32_t want[] = {3, 4, 5, 6, 7, 0, 1, 2};
	for (int k = 0; k < 8; k++) {
		CHECK_EQ_I(pool_pick_next(&p, &cur, POOL_WRITE, 0, 0, &id), 0);
		CHECK_EQ_U(id, want[k]);
		pool_remove(&p, id);
	}
	CHECK_EQ_I(pool_pick_next(&p, &cur, POOL_WRITE, 0, 0, &id), -ENOENT);
	pool_destroy(&p);

	CHECK_EQ_I(pool_init(&p, 64), 0);
	for (uint32_t i = 0; i < 8; i++)
		CHECK_EQ_I(pool_add_initial(&p, i, i == 7 ? UINT32_MAX : i % 2, 0), 0);
	cur = 0;
	const uint32_t odd[] = {1, 3, 5}; /* directory 1 of 2; never 7 (data/) */
	for (int k = 0; k < 3; k++) {
		CHECK_EQ_I(pool_pick_next(&p, &cur, POOL_READ, 2, 1, &id), 0);
		CHECK_EQ_U(id, odd[k]);
		pool_release(&p, id, POOL_READ);
	}
	CHECK_EQ_I(pool_pick_next(&p, &cur, POOL_READ, 2, 1, &id), 0); /* wrapped; kept */
	CHECK_EQ_U(id, 1);
	CHECK_EQ_I(pool_try_acquire(&p, 3, POOL_WRITE), 0); /* another holder */
	CHECK_EQ_I(pool_pick_next(&p, &cur, POOL_WRITE, 2, 1, &id), 0);
	CHECK_EQ_U(id, 5); /* 3 is held: skipped */
	CHECK_EQ_I(pool_pick_next(&p, &cur, POOL_WRITE, 2, 1, &id),
	           -EBUSY); /* 1 held by us, 3, 5 */
	pool_destroy(&p);
}

/* A writer drains a file readers keep taking (pool_drain_begin): no new reader enters, it is
 * the writer's once the last leaves; one drainer a file; cancel gives the readers it back. */
static void test_drain(void)
{
	struct pool p;
	uint32_t a, b;
	CHECK_EQ_I(pool_init(&p, 8), 0);
	CHECK_EQ_I(pool_reserve(&p, &a), 0);
	pool_publish(&p, a, 0, 4096);
	CHECK_EQ_I(pool_reserve(&p, &b), 0);
	CHECK_EQ_I(pool_drain_begin(&p, b), -ENOENT); /* reserved, not published */
	pool_publish(&p, b, 0, 4096);
	CHECK_EQ_I(pool_drain_begin(&p, 7), -ENOENT); /* never used */
	CHECK_EQ_I(pool_try_acquire(&p, a, POOL_READ), 0);
	CHECK_EQ_I(pool_try_acquire(&p, a, POOL_READ), 0);
	CHECK_EQ_I(pool_drain_begin(&p, a), 0);
	CHECK_EQ_I(pool_try_acquire(&p, a, POOL_READ), -EBUSY); /* no new reader */
	CHECK_EQ_I(pool_try_acquire(&p, a, POOL_WRITE), -EBUSY);
	CHECK_EQ_I(pool_drain_begin(&p, a), -EBUSY);  /* one drainer */
	CHECK_EQ_I(pool_drain_finish(&p, a), -EBUSY); /* two readers in it */
	pool_release(&p, a, POOL_READ);
	CHECK_EQ_I(pool_drain_finish(&p, a), -EBUSY);
	pool_release(&p, a, POOL_READ);
	CHECK_EQ_I(pool_drain_finish(&p, a), 0); /* the writer's */
	CHECK_EQ_I(pool_try_acquire(&p, a, POOL_READ), -EBUSY);
	CHECK_EQ_I(pool_drain_begin(&p, a), -EBUSY);
	pool_release(&p, a, POOL_WRITE);
	CHECK_EQ_I(pool_try_acquire(&p, a, POOL_READ), 0);
	pool_release(&p, a, POOL_READ);
	/* cancelled: the readers in it stay, new ones enter again */
	CHECK_EQ_I(pool_try_acquire(&p, b, POOL_READ), 0);
	CHECK_EQ_I(pool_drain_begin(&p, b), 0);
	pool_drain_cancel(&p, b);
	CHECK_EQ_I(pool_try_acquire(&p, b, POOL_READ), 0);
	pool_release(&p, b, POOL_READ);
	pool_release(&p, b, POOL_READ);
	CHECK_EQ_I(pool_try_acquire(&p, b, POOL_WRITE), 0);
	pool_release(&p, b, POOL_WRITE);
	pool_freeze(&p);
	CHECK_EQ_I(pool_drain_begin(&p, a), -EROFS);
	pool_thaw(&p);
	pool_destroy(&p);
}

int main(void)
{
	RUN(test_partition);
	RUN(test_pick_next);
	RUN(test_empty);
	RUN(test_lifecycle);
	RUN(test_drain);
	RUN(test_generations);
	RUN(test_initial_and_holes);
	RUN(test_put_and_settle);
	RUN(test_scan_fallback);
	RUN(test_stress);
	RUN(test_aba);
	RUN(test_frozen);
	RUN(test_frozen_threads);
	return test_summary();
}
