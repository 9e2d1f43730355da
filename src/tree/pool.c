/* pool.c - the shared, lock-free file pool (see pool.h for the design and the contracts). */
#include "pool.h"

#include "check.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

int pool_init(struct pool *p, uint32_t capacity)
{
	memset(p, 0, sizeof(*p));
	atomic_init(&p->free_head, (uint64_t)POOL_NONE);
	atomic_init(&p->high_water, 0);
	atomic_init(&p->live, 0);
	if (capacity == 0 || capacity > POOL_MAX_CAPACITY)
		return -EINVAL;
	size_t bytes = (size_t)capacity * sizeof(struct pool_slot);
	/* MAP_NORESERVE: no swap is reserved for the whole array; pages are zero-filled on first
	 * touch, and zero is POOL_ST_UNUSED, so no initialisation pass is needed. */
	void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return -ENOMEM;
	/* Picks and tree builds touch slots at random: with 2 MB pages a pool of a million files
	 * needs 8 TLB entries instead of 4000 (a TLB miss costs a two-level page walk in a VM).
	 * Memory grows by 2 MB steps as slots are first touched. Advice only: failure is fine. */
	(void)madvise(m, bytes, MADV_HUGEPAGE);
	void *g = mmap(NULL, (size_t)capacity * sizeof(*p->gens), PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (g == MAP_FAILED) {
		(void)munmap(m, bytes);
		return -ENOMEM;
	}
	p->slots = m;
	p->gens = g;
	p->capacity = capacity;
	p->map_bytes = bytes;
	return 0;
}

int pool_links_init(struct pool *p)
{
	if (p->links)
		return 0;
	void *l = mmap(NULL, (size_t)p->capacity * sizeof(*p->links), PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (l == MAP_FAILED)
		return -ENOMEM;
	p->links = l; /* zero: no second name */
	return 0;
}

void pool_destroy(struct pool *p)
{
	if (p->links)
		(void)munmap(p->links, (size_t)p->capacity * sizeof(*p->links));
	p->links = NULL;
	if (p->slots)
		(void)munmap(p->slots, p->map_bytes);
	if (p->gens)
		(void)munmap(p->gens, (size_t)p->capacity * sizeof(*p->gens));
	p->slots = NULL;
	p->gens = NULL;
	p->capacity = 0;
	p->map_bytes = 0;
}

/* The state word of slot id, for the assertions (off: not read at all). */
static inline uint32_t slot_state(const struct pool *p, uint32_t id)
{
	return atomic_load_explicit(&p->slots[id].state, memory_order_relaxed);
}

/* Raise high_water to at least `hw` (several setup threads may race here). */
static void raise_high_water(struct pool *p, uint32_t hw)
{
	uint32_t cur = atomic_load_explicit(&p->high_water, memory_order_relaxed);
	while (cur < hw &&
	       !atomic_compare_exchange_weak_explicit(&p->high_water, &cur, hw,
	                                              memory_order_release, memory_order_relaxed))
		;
}

int pool_put_initial(struct pool *p, uint32_t id, uint32_t dir, uint64_t size)
{
	if (id >= p->capacity)
		return -ERANGE;
	struct pool_slot *s = &p->slots[id];
	uint32_t expect = POOL_ST_UNUSED;
	/* Claim the slot first so two adds of the same id cannot both succeed. */
	if (!atomic_compare_exchange_strong_explicit(&s->state, &expect, POOL_ST_NEW,
	                                             memory_order_acquire, memory_order_relaxed))
		return -EEXIST;
	atomic_store_explicit(&s->dir, dir, memory_order_relaxed);
	atomic_store_explicit(&s->size, size, memory_order_relaxed);
	atomic_store_explicit(&s->state, POOL_ST_IDLE, memory_order_release);
	return 0;
}

void pool_settle_initial(struct pool *p, uint64_t added, uint32_t high_water)
{
	atomic_fetch_add_explicit(&p->live, added, memory_order_relaxed);
	raise_high_water(p, high_water);
}

int pool_add_initial(struct pool *p, uint32_t id, uint32_t dir, uint64_t size)
{
	int rc = pool_put_initial(p, id, dir, size);
	if (rc == 0)
		pool_settle_initial(p, 1, id + 1);
	return rc;
}

/* Treiber push: link `id` above the current top and swing the head, bumping the tag. The slot's
 * dir word holds the link; it is atomic because a concurrent pop may read the link of a slot
 * that another thread has just popped and is reusing (that pop's CAS then fails on the tag). */
static void free_push(struct pool *p, uint32_t id)
{
	uint64_t h = atomic_load_explicit(&p->free_head, memory_order_relaxed);
	uint64_t nh;
	do {
		atomic_store_explicit(&p->slots[id].dir, (uint32_t)h, memory_order_relaxed);
		nh = (((h >> 32) + 1) << 32) | id;
	} while (!atomic_compare_exchange_weak_explicit(&p->free_head, &h, nh, memory_order_release,
	                                                memory_order_relaxed));
}

bool pool_pop_begin(struct pool *p, struct pool_pop *op)
{
	/* Acquire pairs with the pusher's release, so the link read below and the slot's state
	 * are those the pusher left. */
	op->head = atomic_load_explicit(&p->free_head, memory_order_acquire);
	op->top = (uint32_t)op->head;
	if (op->top == POOL_NONE)
		return false;
	FSMIX_ASSERT_MSG(op->top < p->capacity, "free stack top %u, capacity %u", op->top,
	                 p->capacity);
	op->next = atomic_load_explicit(&p->slots[op->top].dir, memory_order_relaxed);
	return true;
}

bool pool_pop_commit(struct pool *p, struct pool_pop *op)
{
	uint64_t nh = (((op->head >> 32) + 1) << 32) | op->next;
	return atomic_compare_exchange_strong_explicit(&p->free_head, &op->head, nh,
	                                               memory_order_acquire, memory_order_acquire);
}

/* Treiber pop: returns the top id or POOL_NONE. */
static uint32_t free_pop(struct pool *p)
{
	struct pool_pop op;
	while (pool_pop_begin(p, &op))
		if (pool_pop_commit(p, &op))
			return op.top;
	return POOL_NONE;
}

uint32_t pool_collect_holes(struct pool *p)
{
	uint32_t hw = atomic_load_explicit(&p->high_water, memory_order_acquire);
	uint32_t n = 0;
	/* Descending, so the lowest id ends on top and creates fill the tree from the front. */
	for (uint32_t id = hw; id-- > 0;) {
		struct pool_slot *s = &p->slots[id];
		if (atomic_load_explicit(&s->state, memory_order_relaxed) != POOL_ST_UNUSED ||
		    !pool_owns(p, id))
			continue;
		atomic_store_explicit(&s->state, POOL_ST_FREE, memory_order_relaxed);
		free_push(p, id);
		n++;
	}
	return n;
}

/* pool_scan - the slow end of a pick: ids first + stride * j for j in [0, count), each tried
 * once, from a random j on. Returns 0 with *id, -EBUSY when only busy files were met, else
 * -ENOENT. */
static int pool_scan(struct pool *p, struct rng *r, enum pool_mode mode, uint32_t count,
                     uint32_t stride, uint32_t first, uint32_t *id)
{
	uint32_t start = (uint32_t)rng_below(r, count);
	int busy = 0;
	for (uint32_t k = 0; k < count; k++) {
		uint32_t j = start + k;
		if (j >= count)
			j -= count;
		uint32_t c = j * stride + first;
		int rc = pool_slot_try(p, c, mode);
		if (rc == 0) {
			*id = c;
			return 0;
		}
		if (rc == -EBUSY)
			busy = 1;
	}
	return busy ? -EBUSY : -ENOENT;
}

int pool_pick_rest(struct pool *p, struct rng *r, enum pool_mode mode, uint32_t hw, uint32_t *id)
{
	/* The first of the POOL_PICK_TRIES probes was pool_pick's. */
	for (int i = 1; i < POOL_PICK_TRIES; i++) {
		uint32_t c = (uint32_t)rng_below(r, hw);
		if (pool_slot_try(p, c, mode) == 0) {
			*id = c;
			return 0;
		}
	}
	/* Most slots are holes or busy: visit each once from a random start (O(high_water), but
	 * only after 32 misses). Files published during the scan may be missed; that is fine. */
	return pool_scan(p, r, mode, hw, 1, 0, id);
}

int pool_pick_next(struct pool *p, uint32_t *cur, enum pool_mode mode, uint32_t dir_mod,
                   uint32_t dir_rem, uint32_t *id)
{
	if (mode == POOL_WRITE && p->frozen)
		return -EROFS;
	uint32_t hw = atomic_load_explicit(&p->high_water, memory_order_acquire);
	if (hw == 0 || atomic_load_explicit(&p->live, memory_order_relaxed) == 0)
		return -ENOENT;
	uint32_t c = *cur < hw ? *cur : 0;
	int busy = 0;
	for (uint32_t k = 0; k < hw; k++, c = c + 1 < hw ? c + 1 : 0) {
		if (dir_mod) {
			/* A hint read before the acquire (the slot may change under it), checked
			 * again once held. */
			uint32_t d = atomic_load_explicit(&p->slots[c].dir, memory_order_relaxed);
			if (d == UINT32_MAX || d % dir_mod != dir_rem)
				continue;
		}
		int rc = pool_slot_try(p, c, mode);
		if (rc == -EBUSY)
			busy = 1;
		if (rc)
			continue;
		uint32_t d = atomic_load_explicit(&p->slots[c].dir, memory_order_relaxed);
		if (dir_mod && (d == UINT32_MAX || d % dir_mod != dir_rem)) {
			pool_release(p, c, mode);
			continue;
		}
		*cur = c + 1 < hw ? c + 1 : 0;
		*id = c;
		return 0;
	}
	return busy ? -EBUSY : -ENOENT;
}

int pool_pick_owned(struct pool *p, struct rng *r, enum pool_mode mode, uint32_t *id)
{
	if (p->part_n == 0)
		return pool_pick(p, r, mode, id);
	uint32_t hw = atomic_load_explicit(&p->high_water, memory_order_acquire);
	uint32_t n = p->part_n, own = hw > p->part_r ? (hw - p->part_r - 1) / n + 1 : 0;
	if (own == 0 || atomic_load_explicit(&p->live, memory_order_relaxed) == 0)
		return -ENOENT;
	for (int i = 0; i < POOL_PICK_TRIES; i++) {
		uint32_t c = (uint32_t)rng_below(r, own) * n + p->part_r;
		int rc = pool_slot_try(p, c, mode);
		if (rc == 0 || rc == -EROFS) {
			*id = c;
			return rc;
		}
	}
	/* As pool_pick_rest: each owned id once from a random start. */
	return pool_scan(p, r, mode, own, n, p->part_r, id);
}

int pool_reserve(struct pool *p, uint32_t *id)
{
	if (p->frozen)
		return -EROFS;
	uint32_t c = free_pop(p);
	if (c == POOL_NONE) {
		/* Grow: every id >= high_water is POOL_ST_UNUSED, so the claimed id is ours alone.
		 */
		uint32_t hw = atomic_load_explicit(&p->high_water, memory_order_relaxed);
		do {
			c = hw; /* the next id this process owns (pool_partition) */
			if (p->part_n)
				c += (p->part_r + p->part_n - hw % p->part_n) % p->part_n;
			if (c >= p->capacity)
				return -ENOSPC;
		} while (!atomic_compare_exchange_weak_explicit(
		    &p->high_water, &hw, c + 1, memory_order_relaxed, memory_order_relaxed));
	}
	/* Ours alone now: popped from the free stack (FREE) or above the old high water (UNUSED);
	 * anything else is a slot two holders share (a broken free stack: an ABA). */
	FSMIX_ASSERT_MSG(slot_state(p, c) == POOL_ST_FREE || slot_state(p, c) == POOL_ST_UNUSED,
	                 "reserved slot %u in state %#x", c, slot_state(p, c));
	atomic_store_explicit(&p->slots[c].state, POOL_ST_NEW, memory_order_relaxed);
	*id = c;
	return 0;
}

/* Slot id is held by the caller as `want` (the transitions of pool.h). */
static void assert_held(const struct pool *p, uint32_t id, uint32_t want)
{
	FSMIX_ASSERT_MSG(id < p->capacity, "file id %u, capacity %u", id, p->capacity);
	FSMIX_ASSERT_MSG(slot_state(p, id) == want, "slot %u in state %#x, not %#x", id,
	                 slot_state(p, id), want);
}

void pool_publish(struct pool *p, uint32_t id, uint32_t dir, uint64_t size)
{
	assert_held(p, id, POOL_ST_NEW); /* reserved by pool_reserve */
	struct pool_slot *s = &p->slots[id];
	atomic_store_explicit(&s->dir, dir, memory_order_relaxed);
	atomic_store_explicit(&s->size, size, memory_order_relaxed);
	/* Count before the file becomes visible: live never under-counts visible files. */
	atomic_fetch_add_explicit(&p->live, 1, memory_order_relaxed);
	atomic_store_explicit(&s->state, POOL_ST_IDLE, memory_order_release);
}

void pool_unreserve(struct pool *p, uint32_t id)
{
	assert_held(p, id, POOL_ST_NEW);
	atomic_store_explicit(&p->slots[id].state, POOL_ST_FREE, memory_order_release);
	free_push(p, id);
}

void pool_remove(struct pool *p, uint32_t id)
{
	assert_held(p, id, POOL_ST_WRITE); /* a POOL_WRITE pick */
	/* a free slot has no second name (delete removes it first: oplink.c) */
	FSMIX_ASSERT_MSG(pool_link_dir(p, id) == POOL_NO_LINK,
	                 "a removed file kept its second name");
	atomic_store_explicit(&p->slots[id].state, POOL_ST_FREE, memory_order_release);
	/* Uncount after hiding (see pool_publish). */
	atomic_fetch_sub_explicit(&p->live, 1, memory_order_relaxed);
	free_push(p, id);
}

int pool_foreach_live(const struct pool *p, pool_visit_fn *fn, void *arg)
{
	uint32_t hw = atomic_load_explicit(&p->high_water, memory_order_acquire);
	for (uint32_t id = 0; id < hw; id++) {
		const struct pool_slot *s = &p->slots[id];
		if (!pool_st_exists(atomic_load_explicit(&s->state, memory_order_acquire)))
			continue;
		int rc = fn(id, atomic_load_explicit(&s->dir, memory_order_relaxed),
		            atomic_load_explicit(&s->size, memory_order_relaxed), arg);
		if (rc)
			return rc;
	}
	return 0;
}
