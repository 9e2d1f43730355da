/* cache.h - the volatile write cache of fsmix-powercut (docs/fsmix-powercut.1,
 * docs/durability.md): a disk's writes land here, block by block, and become durable only when
 * they reach the store (the backing image): at a flush (every block cached), when they have
 * been cached longer than the destage delay (in random order, as a drive writes back), when the
 * cache is full (a random block makes room), or, at a power cut, for the random share the cut
 * persists. The rest of the cache is lost at the cut.
 *
 * Pure logic: no threads, no FUSE; the caller holds its lock around every call, and the store
 * is two callbacks (unit-tested with a store in memory: tests/unit/test_powercut_cache.c).
 * Blocks are PC_BLOCK bytes; a write that covers part of a block not in the cache reads the rest
 * from the store first (what was durable stays so: the block is whole in the cache). Every
 * function returns 0 or -errno (the store's error, ENOMEM). */
#ifndef FSMIX_POWERCUT_CACHE_H
#define FSMIX_POWERCUT_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PC_BLOCK 4096u
/* How many flushes late --reorder-across-flush persists: an ext4 fsync is about two flushes
 * (the commit's preflush and its FUA), so the cut loses the last two or so transactions, not
 * only the last commit block (which lost one acknowledged fsync in three cuts of
 * tests/e2e/crash_reorder.sh, too rarely to be seen) */
#define PC_REORDER_LAG 4u

/* The backing image: read or write block number blk (PC_BLOCK bytes); 0 or -errno. */
struct pc_store {
	void *ctx;
	int (*read)(void *ctx, uint64_t blk, void *buf);
	int (*write)(void *ctx, uint64_t blk, const void *buf);
};

struct pc_stats {
	uint64_t writes, write_bytes;      /* write requests and their bytes */
	uint64_t reads, read_bytes;        /* read requests and their bytes */
	uint64_t flushes, flushes_ignored; /* flush requests; of them ignored (--ignore-flush) */
	uint64_t flushed_bytes;            /* made durable by flushes */
	uint64_t destaged_bytes;           /* written back after the delay */
	uint64_t evicted_bytes;            /* written back to make room (cache full) */
	uint64_t cut_persisted_bytes;      /* persisted by the power cut (its random share) */
	uint64_t dropped_bytes;            /* lost at the power cut */
	uint64_t cached_bytes, max_cached; /* in the cache now; the most ever */
	uint64_t cuts;                     /* 0 or 1 */
};

struct pc_entry {
	uint64_t blk;
	uint64_t since_ns; /* first write since the block was last durable */
	uint32_t dense;    /* its index in pc_cache.dense */
	uint32_t epoch;    /* pc_cache.epoch at its last write: the flushes before it */
	bool used;
};

struct pc_cache {
	size_t max_blocks;      /* capacity */
	struct pc_entry *slots; /* open addressing, linear probing: nslots (a power of two) */
	size_t nslots;
	uint32_t *dense; /* the used slots, n of them, in no order: random picks, iteration */
	size_t n;
	uint8_t
	    *data; /* max_blocks * PC_BLOCK bytes: the data of dense[i] is data + i * PC_BLOCK */
	uint64_t *pick; /* scratch for pc_cache_destage: max_blocks block numbers */
	uint64_t rng;   /* splitmix64 state: which blocks destage and persist */
	bool dead;      /* after pc_cache_cut: every read, write and flush fails with EIO */
	/* --reorder-across-flush, a broken disk (0: off): a flush is acknowledged at once and
	 * persists only the blocks last written before the reorder-th flush back (1: the one
	 * before it), and the cut persists the blocks written since the last flush and drops the
	 * older ones: writes issued after a flush reach the store while those it acknowledged
	 * are lost */
	unsigned reorder;
	uint32_t epoch; /* flushes so far (wraps; only equality and "before" of neighbours) */
	struct pc_stats st;
};

/* pc_cache_init - a cache of at most max_blocks blocks (>= 1), random choices from seed. */
int pc_cache_init(struct pc_cache *c, size_t max_blocks, uint64_t seed);
void pc_cache_free(struct pc_cache *c);

/* pc_cache_write - len bytes at byte offset off into the cache (now: CLOCK_MONOTONIC ns). */
int pc_cache_write(struct pc_cache *c, const struct pc_store *s, uint64_t off, const void *buf,
                   size_t len, uint64_t now);
/* pc_cache_read - len bytes at off: the cached blocks from the cache, the others from s. */
int pc_cache_read(struct pc_cache *c, const struct pc_store *s, uint64_t off, void *buf,
                  size_t len);
/* pc_cache_flush - every cached block written to s and the cache emptied (ignore: counted, and
 * nothing is written: --ignore-flush; c->reorder: only the blocks last written at least
 * c->reorder flushes ago). */
int pc_cache_flush(struct pc_cache *c, const struct pc_store *s, bool ignore);
/* pc_cache_destage - at most max blocks cached since before now - delay_ns written to s, in
 * random order, and removed; *done gets how many. */
int pc_cache_destage(struct pc_cache *c, const struct pc_store *s, uint64_t now, uint64_t delay_ns,
                     size_t max, size_t *done);
/* pc_cache_cut - the power cut: each cached block is written to s with probability
 * persist_pct/100, in random order, the others lost (c->reorder: the blocks written since the
 * last flush are written, the others lost); the cache is empty and dead after it. */
int pc_cache_cut(struct pc_cache *c, const struct pc_store *s, unsigned persist_pct);
/* pc_cache_has - whether block blk is in the cache (tests). */
bool pc_cache_has(const struct pc_cache *c, uint64_t blk);

#endif
