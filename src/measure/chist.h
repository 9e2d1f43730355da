/* chist.h - a worker's compact histograms: every latency series of one thread, with struct hist's
 * buckets (hist.h: the same index, exact 64-bit totals) stored in chunks of CHIST_CHUNK buckets
 * that are handed out on first touch, so a series costs the chunks its samples land in rather
 * than its whole 19.5 KiB.
 *
 * Layout (one struct chist_arena, all zero when fresh: memory from an anonymous mmap):
 *   tab[s][c]   the chunk that counts buckets [c * CHIST_CHUNK, (c + 1) * CHIST_CHUNK) of series
 *               s, as an index into chunk[]; 0 = none yet (chunk[0] is never handed out)
 *   hi[s][c]    the chunk holding the high 32 bits of those counts, handed out when one of them
 *               first wraps past 2^32 - 1 (chist_carry: after 4.3e9 samples in one bucket of
 *               one thread, so practically never); 0 = none: the high words are 0
 *   chunk[]     the chunks, bump-allocated in the order they are first touched (used: how many)
 * A bucket's count is tab's 32-bit word + 2^32 * hi's: 64 bits, exactly as struct hist's.
 * Series s is op s for s < OP_COUNT, syscall s - OP_COUNT after (CHIST_OP, CHIST_SYS).
 *
 * Bound: each (series, chunk) pair is given at most one low and one high chunk, so at most
 * 2 * CHIST_SERIES * CHIST_CHUNKS chunks are ever handed out, and chunk[] has that many plus
 * chunk 0: the arena cannot run out, whatever the samples (the worst case, every count of every
 * series past 2^32, is 11 544 chunks = 738 816 B, the dense size). A 16-bit index holds them.
 *
 * Memory (x86-64, OP_COUNT = 22, SYS_COUNT = 15, CHIST_CHUNK = 16): tab and hi = 2 * 37 * 156 *
 * 2 B = 23 088 B, chunk[] = 11 545 * 64 B = 738 880 B; sizeof = 761 984 B of address space, of
 * which a worker writes only the pages its samples touch: the tab rows of its series (312 B
 * each, 3 pages for all) and its chunks packed one after another (the 2010 profile: ~18 series,
 * 330-500 chunks = 21-31 KiB); hi stays unwritten.
 *
 * Contract: one writer (the worker), nothing atomic or locked. chist_merge_series reads it after
 * that thread has been joined. Recording is chist_record: no malloc, no lock, no syscall; the
 * first sample in a chunk costs one predictable branch, the wrap test another.
 */
#ifndef FSMIX_CHIST_H
#define FSMIX_CHIST_H

#include <stdint.h>

#include "compiler.h"
#include "hist.h"
#include "ops.h"

#define CHIST_CHUNK_BITS 4
#define CHIST_CHUNK      (1u << CHIST_CHUNK_BITS)     /* buckets per chunk */
#define CHIST_CHUNKS     (HIST_BUCKETS / CHIST_CHUNK) /* chunks per series */
#define CHIST_SERIES     (OP_COUNT + SYS_COUNT)
#define CHIST_OP(op)     ((unsigned)(op))
#define CHIST_SYS(s)     ((unsigned)OP_COUNT + (unsigned)(s))
/* chunk[] entries: every (series, chunk) pair a low and a high chunk, plus the unused chunk 0 */
#define CHIST_CAPACITY (2u * CHIST_SERIES * CHIST_CHUNKS + 1u)

_Static_assert(HIST_BUCKETS % CHIST_CHUNK == 0, "a series is a whole number of chunks");
_Static_assert(CHIST_CAPACITY <= 65536u, "a chunk index fits tab's 16 bits");

struct chist_chunk {
	uint32_t bucket[CHIST_CHUNK]; /* low (tab) or high (hi) 32 bits of these buckets' counts */
};

struct chist_arena {
	uint32_t used;                            /* chunks handed out: chunk[1..used] */
	uint16_t tab[CHIST_SERIES][CHIST_CHUNKS]; /* low words of (series, c), 0 = none */
	uint16_t hi[CHIST_SERIES][CHIST_CHUNKS];  /* high words of (series, c), 0 = none */
	_Alignas(64) struct chist_chunk chunk[CHIST_CAPACITY];
};

/* chist_carry - bucket i of series s wrapped its low word: one more in its high word. Cold. */
void chist_carry(struct chist_arena *a, unsigned s, unsigned i);

/* chist_record - count one sample of `ns` in series s (< CHIST_SERIES): the bucket hist_record
 * would count. Hot path. */
static inline void chist_record(struct chist_arena *a, unsigned s, uint64_t ns)
{
	unsigned i = hist_index(ns);
	uint16_t *slot = &a->tab[s][i >> CHIST_CHUNK_BITS];
	unsigned k = *slot;
	if (UNLIKELY(!k)) /* first sample in this chunk: the next one of the arena */
		*slot = (uint16_t)(k = ++a->used);
	if (UNLIKELY(++a->chunk[k].bucket[i & (CHIST_CHUNK - 1)] == 0)) /* 2^32 samples */
		chist_carry(a, s, i);
}

/* chist_merge_series - dst += series s of a, bucket by bucket (as hist_merge would add the dense
 * histogram holding the same samples). Reads only the chunks s was given. */
void chist_merge_series(struct hist *dst, const struct chist_arena *a, unsigned s);

/* chist_clear - every count back to zero, the chunks kept where they were handed out (written
 * only where chunks were handed out: an unused arena stays untouched). */
void chist_clear(struct chist_arena *a);

#endif
