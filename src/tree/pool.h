/* pool.h - the shared, lock-free file pool of one filesystem.
 *
 * Every worker of every thread group on a filesystem picks files from one pool, as in FFSB:
 * creates add files, deletes remove them, any thread may pick any file. FFSB serialised this
 * behind one global rwlock per file set (taken twice per op); here there is no global lock, no
 * malloc and no shared counter written per pick.
 *
 * Layout. A slot array indexed by file id (the id is also the on-disk name f<id>, see tree.h),
 * and beside it one 8-byte word per file of content generation (pool_gen). Each slot is 16
 * bytes: a 32-bit atomic state word, a 32-bit directory index (which doubles as
 * the "next" link while the slot is on the free stack), and a 64-bit file size. The array is one
 * mmap(MAP_PRIVATE|MAP_ANONYMOUS|MAP_NORESERVE) of `capacity` slots made at pool_init, so the pool
 * grows while running without realloc and only touched pages cost memory (about 1.6 MiB resident
 * for 100 000 files). The capacity is address space (16 B a slot, counted by ulimit -v): the
 * caller sizes it by what the workload can reach (populate.c: the tree plus its groups' creates,
 * or the filesystem's inode count), not by POOL_MAX_CAPACITY.
 *
 * State word:  0            never used / hole not yet on the free stack
 *              FREE         free, on the free stack
 *              IDLE + n     the file exists and n >= 0 readers hold it (shared)
 *              DRAIN+IDLE+n the same, and a writer waits for the n readers to leave; no new
 *                           reader enters (pool_drain_begin)
 *              WRITE        held exclusively by a writer or deleter (pool_pick POOL_WRITE)
 *              NEW          reserved by a creator, not visible to pickers yet
 * Pickers only ever acquire IDLE+n slots, so a file is never written by two workers at once and
 * never read while written; readers share.
 *
 * Frozen pools (pool_freeze): when nothing will create, delete, write or rename a file of the
 * pool for a while (the engine knows this from the profile before the run: no group that may
 * use the filesystem has weight on such an op), the read share count has no one to protect a
 * file from, so a reader of a frozen pool only checks that the slot holds a file: no atomic
 * read-modify-write per pick, no release, and the slots' cache lines are only ever read, so
 * they are not bounced between the readers' CPUs. Every way of changing a frozen pool (a
 * POOL_WRITE pick or try_acquire, a reserve) is refused with -EROFS, so a wrong freeze fails
 * loudly instead of letting a writer meet uncounted readers.
 *
 * Free slots: a Treiber stack of slot ids whose 64-bit head word is (tag << 32 | top id); the tag
 * is bumped on every push and pop so a stale CAS cannot succeed after an ABA (2^32 operations
 * would have to happen between one thread's load and its CAS). When the stack is empty a create
 * takes a fresh slot by bumping high_water. Deleted slots are pushed back, so with creates ~
 * deletes the pool stays bounded.
 *
 * Memory ordering (C11):
 *   - acquiring a slot (pick, reserve) is a CAS with memory_order_acquire on the state word;
 *   - releasing it (pool_release, pool_publish, pool_remove) stores or RMWs with
 *     memory_order_release.
 *   So everything a holder did before releasing (including pool_set_size and the file's on-disk
 *   contents as far as the kernel is concerned) happens-before whatever the next holder does.
 *   Readers' increments/decrements form a release sequence, so a writer that acquires after the
 *   last reader leaves sees all readers' effects. The free stack uses acquire on pop and release
 *   on push. high_water and live are updated with relaxed/acq_rel RMWs; they are hints for
 *   pickers (any id below capacity is mapped), never a synchronisation point.
 *
 * Concurrency contract:
 *   - pool_init/pool_destroy/pool_add_initial/pool_collect_holes/pool_foreach_live: setup or
 *     teardown only, never concurrently with pickers (pool_add_initial may run from several
 *     threads on disjoint ids).
 *   - pool_freeze/pool_thaw: setup only, while no picker runs.
 *   - pool_pick/pool_release/pool_reserve/pool_publish/pool_unreserve/pool_remove/pool_set_size/
 *     pool_size/pool_dir/pool_live/pool_high_water: any thread, any time during the run.
 *   - pool_set_size/pool_set_gen/pool_set_dir/pool_set_link only while holding the slot
 *     exclusively (POOL_WRITE pick or reserved, or at setup); pool_size/pool_dir/pool_gen/
 *     pool_link_dir only while holding the slot in any mode (or after the run).
 *   - pool_links_init: setup only. A slot freed (pool_remove) has no second name: its holder
 *     removed it first (asserted).
 */
#ifndef FSMIX_POOL_H
#define FSMIX_POOL_H

#include <errno.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check.h"
#include "compiler.h"
#include "rng.h"

/* Largest capacity accepted by pool_init: 2^30 slots = 16 GiB of reserved address space. Ids
 * must stay below POOL_NONE and readers below the exclusive states, both far above this. */
#define POOL_MAX_CAPACITY (1u << 30)
/* The "no slot" id (empty free stack, end of a free list). */
#define POOL_NONE UINT32_MAX
/* Random probes in pool_pick before falling back to a scan. With a fraction b of slots busy or
 * free, 32 probes all miss with probability b^32: 3e-10 for b = 0.5, 3.4% for b = 0.9. */
#define POOL_PICK_TRIES 32

/* State word values (above). Readers count up from POOL_ST_IDLE, so "exists and n readers" is
 * POOL_ST_IDLE + n; POOL_ST_READ_MAX caps n far below the exclusive states (4 billion concurrent
 * readers never happen, the cap only keeps the encoding unambiguous). */
#define POOL_ST_UNUSED   0u          /* zero page: never used, or a hole not on the free stack */
#define POOL_ST_FREE     1u          /* on the free stack */
#define POOL_ST_IDLE     2u          /* exists, no holder */
#define POOL_ST_READ_MAX 0xffff0000u /* POOL_ST_IDLE + readers stays below this */
#define POOL_ST_DRAIN    0x80000000u /* added to IDLE + n: a writer drains it; readers refuse it */
#define POOL_ST_WRITE    0xfffffffeu /* held exclusively by a writer or deleter */
#define POOL_ST_NEW      0xffffffffu /* reserved by a creator, invisible to pickers */
/* CAS attempts on one slot when only other readers are changing its count. */
#define POOL_READ_CAS_SPINS 16

enum pool_mode {
	POOL_READ,  /* shared: any number of readers at once, no writer */
	POOL_WRITE, /* exclusive: no other reader or writer (write, append, delete) */
};

struct pool_slot {
	_Atomic uint32_t state;
	_Atomic uint32_t dir; /* directory index while the file exists; next free id on the stack */
	_Atomic uint64_t size; /* bytes, as last recorded by the creator or a writer */
};

/* A file's content generation (content.h) and when it was written, in one word per file, in an
 * array of its own beside the slots (the slots stay 16 bytes, four to a cache line): low 32
 * bits the generation (1 as created, +1 per writing op; 0: unknown, a file of an old
 * manifest), high 32 bits the wall-clock second its last writer began (0: unknown). Read
 * under any hold, set under an exclusive one, like the size. */
#define POOL_GEN_UNKNOWN 0u

struct pool {
	struct pool_slot *slots; /* mmap'd, capacity entries, zero-filled */
	_Atomic uint64_t *gens;  /* mmap'd, capacity entries: generation | written second << 32 */
	_Atomic uint32_t *links; /* pool_links_init: a file's second name's directory + 2 (0: none;
	                          * TREE_DIR_TOP, data/, is 1), under the slot's hold; NULL when no
	                          * op of the run links */
	uint32_t capacity;       /* slots reserved; ids are in [0, capacity) */
	bool frozen;             /* pool_freeze: readers take no share; changes are refused */
	uint32_t part_n, part_r; /* pool_partition: this process owns the ids id % part_n == part_r
	                          * (part_n 0: every id) */
	size_t map_bytes;        /* length of the mapping, for munmap */
	/* Each shared word sits on its own cache line: free_head is written by creates and deletes,
	 * high_water only when the pool grows, live by creates and deletes; pickers only read
	 * high_water and live. */
	alignas(CACHELINE) _Atomic uint64_t free_head; /* (tag << 32) | top id, POOL_NONE = empty */
	alignas(CACHELINE) _Atomic uint32_t high_water; /* 1 + highest slot id ever used */
	alignas(CACHELINE) _Atomic uint64_t live; /* published files (exist, any holder state) */
};

/* pool_init - reserve `capacity` slots (1..POOL_MAX_CAPACITY) of address space and start empty.
 * Returns 0, -EINVAL for a bad capacity, or -ENOMEM when mmap fails. */
MUST_CHECK int pool_init(struct pool *p, uint32_t capacity);

/* pool_destroy - unmap the slots. Only after every user is gone (after pthread_join). */
void pool_destroy(struct pool *p);

/* pool_add_initial - mark file `id` (built by the tree builder or listed in a manifest) as
 * existing and idle in directory `dir` with `size` bytes; raises high_water to id + 1 and bumps
 * live. Setup only; several threads may add disjoint ids at once. Returns 0, -ERANGE when
 * id >= capacity, or -EEXIST when the slot is already in use. Call pool_collect_holes once
 * afterwards if the ids are not dense. */
int pool_add_initial(struct pool *p, uint32_t id, uint32_t dir, uint64_t size);

/* pool_put_initial - pool_add_initial without touching the shared live count and high_water:
 * parallel tree builders would otherwise bounce those cache lines between CPUs once per file.
 * Each builder counts its own puts and highest id + 1, and calls pool_settle_initial once at the
 * end; until then pool_live/pool_high_water do not include its files. Same returns. */
int pool_put_initial(struct pool *p, uint32_t id, uint32_t dir, uint64_t size);

/* pool_settle_initial - add `added` files put with pool_put_initial to live and raise
 * high_water to at least `high_water`. Setup only; any number of threads. */
void pool_settle_initial(struct pool *p, uint64_t added, uint32_t high_water);

/* pool_collect_holes - push every never-used slot below high_water onto the free stack, lowest id
 * on top, so creates refill holes left by a sparse initial set before the pool grows. Setup only
 * (single-threaded); idempotent. Returns the number of slots pushed. */
uint32_t pool_collect_holes(struct pool *p);

/* pool_freeze - from now until pool_thaw, no file of the pool is created, deleted or held
 * exclusively (see "Frozen pools" above): POOL_READ picks only check that a slot holds a file
 * and pool_release(POOL_READ) does nothing; POOL_WRITE picks and try_acquires and pool_reserve
 * return -EROFS. Setup only, while no picker runs and no reader holds a file (the workers that
 * start afterwards see the flag through their thread start). */
static inline void pool_freeze(struct pool *p)
{
	p->frozen = true;
}

/* pool_thaw - back to counted readers and allowed changes. Setup only (after the readers of the
 * frozen period are joined). */
static inline void pool_thaw(struct pool *p)
{
	p->frozen = false;
}

static inline int pool_st_exists(uint32_t v)
{
	return v >= POOL_ST_IDLE && v != POOL_ST_NEW;
}

/* pool_slot_try - try to acquire slot `id` (< capacity) in mode m. Returns 0 when acquired,
 * -EBUSY when the file exists but is held incompatibly, -ENOENT when the slot holds no visible
 * file, -EROFS for POOL_WRITE on a frozen pool. Inline: every pick's first probe runs it. */
static inline int pool_slot_try(struct pool *p, uint32_t id, enum pool_mode m)
{
	struct pool_slot *s = &p->slots[id];
	uint32_t v = atomic_load_explicit(&s->state, memory_order_relaxed);
	if (m == POOL_WRITE) {
		if (UNLIKELY(p->frozen))
			return -EROFS;
		if (v == POOL_ST_IDLE &&
		    atomic_compare_exchange_strong_explicit(
		        &s->state, &v, POOL_ST_WRITE, memory_order_acquire, memory_order_relaxed))
			return 0;
		return pool_st_exists(v) ? -EBUSY : -ENOENT;
	}
	/* Frozen: the files and their dir/size words were all set before the readers started
	 * (happens-before through their thread start), and none changes until they are joined. */
	if (p->frozen)
		return pool_st_exists(v) ? 0 : -ENOENT;
	for (int spin = 0; spin < POOL_READ_CAS_SPINS; spin++) {
		if (v < POOL_ST_IDLE || v >= POOL_ST_DRAIN) /* none, held, or a writer drains it */
			break;
		/* A failed CAS reloads v: other readers came or went, or a writer/deleter won. */
		if (atomic_compare_exchange_weak_explicit(
		        &s->state, &v, v + 1, memory_order_acquire, memory_order_relaxed))
			return 0;
	}
	return pool_st_exists(v) ? -EBUSY : -ENOENT;
}

/* pool_partition - from now on this process creates and deletes only the ids it owns, those
 * with id % n == r (a shared tree of an MPI job: rank r of n, docs/distributed.md): pool_reserve
 * takes only owned ids (holes from pool_collect_holes, or the next owned id above high_water),
 * and pool_pick_owned picks only owned files. Other ids stay pickable by pool_pick (reads, stats,
 * appends of another rank's files). n 0 or 1: no partition. Setup only, before
 * pool_collect_holes. */
static inline void pool_partition(struct pool *p, uint32_t n, uint32_t r)
{
	p->part_n = n > 1 ? n : 0;
	p->part_r = n > 1 ? r % n : 0;
}

/* pool_owns - does this process own id (pool_partition)? */
static inline bool pool_owns(const struct pool *p, uint32_t id)
{
	return p->part_n == 0 || id % p->part_n == p->part_r;
}

/* pool_pick_owned - pool_pick among the ids this process owns (pool_partition; without one,
 * pool_pick). Same returns. */
int pool_pick_owned(struct pool *p, struct rng *r, enum pool_mode mode, uint32_t *id);

/* pool_pick_rest - pool_pick after its first probe missed (pool.c): the other probes, then the
 * scan. hw is the high water the first probe used. */
int pool_pick_rest(struct pool *p, struct rng *r, enum pool_mode mode, uint32_t hw, uint32_t *id);

/* pool_pick - pick a uniformly random existing file and acquire it in `mode`.
 * Expected O(1): up to POOL_PICK_TRIES random probes in [0, high_water), then one scan of all
 * slots from a random start. Returns 0 with *id acquired (release it with pool_release, or with
 * pool_remove after a POOL_WRITE pick), -ENOENT when no file exists, -EBUSY when files exist
 * but every one is held incompatibly (the caller may yield and retry), or -EROFS for POOL_WRITE
 * on a frozen pool. Uses only `r`, which belongs to the calling thread. The first probe is
 * inline (on every operation's path); the rest is pool_pick_rest. */
static inline int pool_pick(struct pool *p, struct rng *r, enum pool_mode mode, uint32_t *id)
{
	/* live counts every visible file (publish counts before making a file visible, remove
	 * uncounts after hiding it), so 0 here means no file can be acquired. */
	if (atomic_load_explicit(&p->live, memory_order_relaxed) == 0)
		return -ENOENT;
	uint32_t hw = atomic_load_explicit(&p->high_water, memory_order_acquire);
	if (hw == 0)
		return -ENOENT;
	uint32_t c = (uint32_t)rng_below(r, hw);
	int rc = pool_slot_try(p, c, mode);
	if (LIKELY(rc == 0)) {
		*id = c;
		return 0;
	}
	return rc == -EROFS ? rc : pool_pick_rest(p, r, mode, hw, id);
}

/* pool_pick_next - file_order=sequential: the first file at or after *cur (wrapping at the high
 * water) that can be acquired in `mode`, each slot tried at most once; *cur moves past it, so a
 * thread that takes its files in turn (and, deleting, empties the pool) pays O(1) amortized
 * per pick, where random probes of an emptying pool miss more and more. dir_mod > 0: only
 * files whose directory d (not the top, data/) has d % dir_mod == dir_rem (dir_per_thread: the
 * thread's own). Returns 0 with *id acquired, -EBUSY when only held files matched, -ENOENT
 * when none did, -EROFS for POOL_WRITE on a frozen pool. */
int pool_pick_next(struct pool *p, uint32_t *cur, enum pool_mode mode, uint32_t dir_mod,
                   uint32_t dir_rem, uint32_t *id);

/* pool_try_acquire - acquire a specific existing file `id` in `mode` without waiting.
 * Returns 0, -EBUSY when held incompatibly, -ENOENT when no file uses that slot, or -EROFS
 * for POOL_WRITE on a frozen pool. */
static inline int pool_try_acquire(struct pool *p, uint32_t id, enum pool_mode mode)
{
	if (id >= p->capacity)
		return -ENOENT;
	return pool_slot_try(p, id, mode);
}

/* A writer's way into a file that readers keep taking (a sequence_hold writer's file, which its
 * readers take back every loop): a POOL_WRITE try waits for a moment with no reader, which may
 * never come. pool_drain_begin marks the existing file `id` drained: no new reader enters (its
 * try is -EBUSY), those in it leave. pool_drain_finish then makes it the writer's (held as a
 * POOL_WRITE try_acquire: give it back with pool_release POOL_WRITE) once the last reader left,
 * or pool_drain_cancel takes the mark back. One drainer a file: a second, or a writer, finds it
 * busy. begin: 0, -EBUSY (held or drained by another writer), -ENOENT, -EROFS (frozen). finish:
 * 0, or -EBUSY while readers remain. */
static inline int pool_drain_begin(struct pool *p, uint32_t id)
{
	if (UNLIKELY(p->frozen))
		return -EROFS;
	if (id >= p->capacity)
		return -ENOENT;
	struct pool_slot *s = &p->slots[id];
	uint32_t v = atomic_load_explicit(&s->state, memory_order_relaxed);
	while (v >= POOL_ST_IDLE && v < POOL_ST_DRAIN) /* a failed CAS reloads v */
		if (atomic_compare_exchange_weak_explicit(&s->state, &v, v + POOL_ST_DRAIN,
		                                          memory_order_relaxed,
		                                          memory_order_relaxed))
			return 0;
	return pool_st_exists(v) ? -EBUSY : -ENOENT;
}

static inline int pool_drain_finish(struct pool *p, uint32_t id)
{
	uint32_t v = POOL_ST_DRAIN + POOL_ST_IDLE; /* drained, the last reader gone */
	return atomic_compare_exchange_strong_explicit(&p->slots[id].state, &v, POOL_ST_WRITE,
	                                               memory_order_acquire, memory_order_relaxed)
	           ? 0
	           : -EBUSY;
}

static inline void pool_drain_cancel(struct pool *p, uint32_t id)
{
	atomic_fetch_sub_explicit(&p->slots[id].state, POOL_ST_DRAIN, memory_order_release);
}

/* pool_release - give back a slot acquired by pool_pick/pool_try_acquire in the same mode. */
static inline void pool_release(struct pool *p, uint32_t id, enum pool_mode mode)
{
	struct pool_slot *s = &p->slots[id];
	if (mode == POOL_WRITE) {
		atomic_store_explicit(&s->state, POOL_ST_IDLE, memory_order_release);
	} else if (!p->frozen) { /* a frozen pool's readers took no share */
		uint32_t was = atomic_fetch_sub_explicit(&s->state, 1, memory_order_release);
		/* a read hold: IDLE + n readers, n >= 1 (one unsigned compare on the value the RMW
		 * returns anyway) */
		FSMIX_ASSERT_MSG(was - (POOL_ST_IDLE + 1) < POOL_ST_READ_MAX - (POOL_ST_IDLE + 1),
		                 "file %u released by a reader in state %#x", id, was);
	}
}

/* The free stack's pop in its two steps, which free_pop (pool_reserve) runs in a loop; public so
 * that a test can put other pool calls between them (tests/unit/test_pool.c: the ABA
 * interleaving). pool_pop_begin reads the head (tag << 32 | top) and the top's link: false when
 * the stack is empty. pool_pop_commit swings the head to the link with one compare-and-swap,
 * bumping the tag: false when the head changed since the begin -- also when other pops and
 * pushes brought the same top back with another link (the ABA problem: the tag differs). */
struct pool_pop {
	uint64_t head;
	uint32_t top, next;
};
bool pool_pop_begin(struct pool *p, struct pool_pop *op);
bool pool_pop_commit(struct pool *p, struct pool_pop *op);

/* pool_reserve - take a free slot for a file about to be created: from the free stack, else by
 * growing high_water. The slot is held exclusively and invisible to pickers until pool_publish
 * or pool_unreserve. Returns 0 with *id, -ENOSPC when all `capacity` slots are in use, or
 * -EROFS when the pool is frozen. */
int pool_reserve(struct pool *p, uint32_t *id);

/* pool_publish - the reserved file now exists on disk in `dir` with `size` bytes: make it
 * pickable (release) and count it live. */
void pool_publish(struct pool *p, uint32_t id, uint32_t dir, uint64_t size);

/* pool_unreserve - creating the file failed: return the reserved slot to the free stack. */
void pool_unreserve(struct pool *p, uint32_t id);

/* pool_remove - the file held by a POOL_WRITE pick was unlinked: free the slot (pushed on the
 * free stack for reuse by creates) and count it no longer live. */
void pool_remove(struct pool *p, uint32_t id);

/* pool_set_size - record the size in bytes of a file held exclusively (after write/append). */
static inline void pool_set_size(struct pool *p, uint32_t id, uint64_t size)
{
	atomic_store_explicit(&p->slots[id].size, size, memory_order_relaxed);
}

/* pool_set_gen - record the generation of a file held exclusively (or reserved, or at setup)
 * and the wall-clock second it was written (0: unknown). */
static inline void pool_set_gen(struct pool *p, uint32_t id, uint32_t gen, uint32_t at_s)
{
	atomic_store_explicit(&p->gens[id], (uint64_t)at_s << 32 | gen, memory_order_relaxed);
}

/* pool_gen - the generation of a file held in any mode (POOL_GEN_UNKNOWN: unknown). */
static inline uint32_t pool_gen(const struct pool *p, uint32_t id)
{
	return (uint32_t)atomic_load_explicit(&p->gens[id], memory_order_relaxed);
}

/* pool_gen_time - the wall-clock second (since the epoch) the file's generation was written,
 * 0 when unknown; under any hold. */
static inline uint32_t pool_gen_time(const struct pool *p, uint32_t id)
{
	return (uint32_t)(atomic_load_explicit(&p->gens[id], memory_order_relaxed) >> 32);
}

/* pool_size - size in bytes of a file held in any mode. */
static inline uint64_t pool_size(const struct pool *p, uint32_t id)
{
	return atomic_load_explicit(&p->slots[id].size, memory_order_relaxed);
}

/* pool_links_init - map the second names' array (pool.links): setup only, when an op of the run
 * may give files a second name (link). 0 or -ENOMEM. Unmapped by pool_destroy. */
int pool_links_init(struct pool *p);

/* The "no second name" directory of pool_link_dir. */
#define POOL_NO_LINK (UINT32_MAX - 1)

/* pool_link_dir - the directory of the second name of a file held in any mode (POOL_NO_LINK:
 * none, also when the pool keeps no second names). */
static inline uint32_t pool_link_dir(const struct pool *p, uint32_t id)
{
	return p->links ? atomic_load_explicit(&p->links[id], memory_order_relaxed) - 2u
	                : POOL_NO_LINK;
}

/* pool_set_link - record the second name's directory (POOL_NO_LINK: none) of a file held
 * exclusively; the pool keeps second names (pool_links_init). */
static inline void pool_set_link(struct pool *p, uint32_t id, uint32_t dir)
{
	atomic_store_explicit(&p->links[id], dir + 2u, memory_order_relaxed);
}

/* pool_set_dir - record the directory of a file held exclusively (after a rename). */
static inline void pool_set_dir(struct pool *p, uint32_t id, uint32_t dir)
{
	atomic_store_explicit(&p->slots[id].dir, dir, memory_order_relaxed);
}

/* pool_dir - directory index of a file held in any mode (tree.h: TREE_DIR_TOP = data/ itself). */
static inline uint32_t pool_dir(const struct pool *p, uint32_t id)
{
	return atomic_load_explicit(&p->slots[id].dir, memory_order_relaxed);
}

/* pool_prefetch - start loading slot `id` (< capacity) into the cache ahead of a
 * pool_put_initial or pool_add_initial, e.g. while a system call for the previous file runs. */
static inline void pool_prefetch(const struct pool *p, uint32_t id)
{
	__builtin_prefetch(&p->slots[id], 1);
}

/* pool_live - number of published files (a snapshot while the run is live). */
static inline uint64_t pool_live(const struct pool *p)
{
	return atomic_load_explicit(&p->live, memory_order_relaxed);
}

/* pool_high_water - 1 + the highest slot id ever used (a snapshot while the run is live). */
static inline uint32_t pool_high_water(const struct pool *p)
{
	return atomic_load_explicit(&p->high_water, memory_order_acquire);
}

/* pool_foreach_live - call fn(id, dir, size, arg) for every existing file in id order; stops at
 * and returns the first non-zero value fn returns, else 0. After the run only (e.g. to write a
 * manifest), or while nothing else touches the pool. */
typedef int pool_visit_fn(uint32_t id, uint32_t dir, uint64_t size, void *arg);
int pool_foreach_live(const struct pool *p, pool_visit_fn *fn, void *arg);

#endif
