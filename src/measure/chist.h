/* chist.h - a worker's compact histograms: every latency series of one thread, with struct hist's
 * buckets (hist.h: the same index, exact 64-bit totals) stored in chunks of CHIST_CHUNK buckets
 * that are handed out on first touch, so a series costs the chunks its samples land in rather
 * than its whole 19.5 KiB.
 *
 * Layout (one struct chist_arena, all zero when fresh: memory from an anonymous mmap): chunk[]
 * holds 32-byte units, bump-allocated in the order they are first needed (used: how many;
 * unit 0 is never handed out, so index 0 means none), for three things:
 *   a table     CHIST_ROW_CHUNKS units of 16-bit unit indices, one per group of CHIST_CHUNK
 *               buckets: row[s] is the first unit of series s's table, handed out with the
 *               series' first sample (so a series never recorded costs nothing, and the tables
 *               of the series in use are packed with their chunks, not spread over 11 KB)
 *   low words   one unit: the 16-bit low words of CHIST_CHUNK buckets' counts, handed out with
 *               the first sample in them
 *   high words  CHIST_HIGH_UNITS units: their 64-bit high words (the count >> 16), found through
 *               a second table (hirow[s]), handed out when one of the counts first wraps past
 *               2^16 - 1 (chist_carry: the buckets where a long run's samples pile up); none:
 *               the high words are 0
 * A bucket's count is its low word + 2^16 * its high word, added as uint64_t: exactly struct
 * hist's 64-bit count. 16-bit low words halve the pages of the chunks a worker touches, which
 * is most of its statistics' memory; a carry costs a cold call once per 65 536 samples of one
 * bucket. Series s is op s for s < OP_COUNT, syscall s - OP_COUNT after (CHIST_OP, CHIST_SYS).
 *
 * Bound: every series gets at most a low and a high table, and each (series, chunk) pair at most
 * a low unit and CHIST_HIGH_UNITS high units, so at most CHIST_SERIES * (2 * CHIST_ROW_CHUNKS +
 * (1 + CHIST_HIGH_UNITS) * CHIST_CHUNKS) units are ever handed out, and chunk[] has that many
 * plus unit 0: the arena cannot run out, whatever the samples (the worst case, every count of
 * every series past 2^16, is 29 600 units). A 16-bit index holds them all.
 *
 * Memory (x86-64, OP_COUNT = 22, SYS_COUNT = 15, CHIST_CHUNK = 16): sizeof = 192 B of header +
 * 29 601 * 32 B = 947 456 B of address space, of which a worker writes only the pages its
 * samples touch: a table of 320 B per series it records and 32 B per chunk its samples land in
 * (128 B more per chunk whose counts pass 65 535), packed one after another (the 2010 profile:
 * ~18 series, ~330 chunks = ~16 KB in a short run); the rest stays unwritten.
 *
 * Contract: one writer (the worker), nothing atomic or locked. chist_merge_series reads it after
 * that thread has been joined. Recording is chist_record: no malloc, no lock, no syscall; a
 * series' first sample, a chunk's first sample and the wrap test are each one predictable branch.
 */
#ifndef FSMIX_CHIST_H
#define FSMIX_CHIST_H

#include <stdint.h>

#include "check.h"
#include "compiler.h"
#include "hist.h"
#include "ops.h"

#define CHIST_CHUNK_BITS 4
#define CHIST_CHUNK      (1u << CHIST_CHUNK_BITS)     /* buckets per chunk */
#define CHIST_CHUNKS     (HIST_BUCKETS / CHIST_CHUNK) /* chunks per series */
#define CHIST_SERIES     (OP_COUNT + SYS_COUNT)
#define CHIST_OP(op)     ((unsigned)(op))
#define CHIST_SYS(s)     ((unsigned)OP_COUNT + (unsigned)(s))
/* A series' table of unit indices (CHIST_CHUNKS 16-bit words) takes this many units */
#define CHIST_ROW_CHUNKS ((CHIST_CHUNKS + CHIST_CHUNK - 1) / CHIST_CHUNK)
/* Units of a chunk's high words (CHIST_CHUNK 64-bit words) */
#define CHIST_HIGH_UNITS (CHIST_CHUNK * 8 / 32)
/* chunk[] entries: every series a low and a high table, every (series, chunk) pair a low unit
 * and its high units, plus the unused unit 0 */
#define CHIST_CAPACITY                                                                             \
	(CHIST_SERIES * (2u * CHIST_ROW_CHUNKS + (1u + CHIST_HIGH_UNITS) * CHIST_CHUNKS) + 1u)

_Static_assert(HIST_BUCKETS % CHIST_CHUNK == 0, "a series is a whole number of chunks");
_Static_assert(CHIST_CAPACITY <= 65536u, "a chunk index fits in 16 bits");

/* A unit: 16 buckets' low words, a quarter of their high words, or a part of a series' table
 * (16 indices). */
union chist_chunk {
	uint16_t bucket[CHIST_CHUNK]; /* low 16 bits of these buckets' counts (row) */
	uint64_t
	    high[CHIST_CHUNK / 4]; /* count >> 16 of 4 buckets (hirow; CHIST_HIGH_UNITS units) */
	uint16_t idx[CHIST_CHUNK]; /* a table's unit indices, 0 = none */
};

struct chist_arena {
	uint32_t used;                /* chunks handed out: chunk[1..used] */
	uint16_t row[CHIST_SERIES];   /* first chunk of series s's low-word table, 0 = none yet */
	uint16_t hirow[CHIST_SERIES]; /* first chunk of its high-word table, 0 = none yet */
	_Alignas(64) union chist_chunk chunk[CHIST_CAPACITY];
};

/* chist_new_row - a table for a series (CHIST_ROW_CHUNKS zero chunks), its first index in
 * *row. Cold: once per series. */
unsigned chist_new_row(struct chist_arena *a, uint16_t *row);

/* chist_carry - bucket i of series s wrapped its 16-bit low word: one more in its high word.
 * Cold: once per 65 536 samples of one bucket. */
void chist_carry(struct chist_arena *a, unsigned s, unsigned i);

/* chist_slot - where the index of chunk c of the table starting at chunk `row` is. */
static inline uint16_t *chist_slot(struct chist_arena *a, unsigned row, unsigned c)
{
	return &a->chunk[row + (c >> CHIST_CHUNK_BITS)].idx[c & (CHIST_CHUNK - 1)];
}

/* chist_chunk_of - the chunk counting the low (high: the high) words of buckets
 * [c * CHIST_CHUNK, (c + 1) * CHIST_CHUNK) of series s, 0 = none. */
static inline unsigned chist_chunk_of(const struct chist_arena *a, unsigned s, unsigned c, int high)
{
	unsigned row = high ? a->hirow[s] : a->row[s];
	return row ? a->chunk[row + (c >> CHIST_CHUNK_BITS)].idx[c & (CHIST_CHUNK - 1)] : 0;
}

/* chist_record - count one sample of `ns` in series s (< CHIST_SERIES): the bucket hist_record
 * would count. Hot path. */
static inline void chist_record(struct chist_arena *a, unsigned s, uint64_t ns)
{
	unsigned i = hist_index(ns);
	unsigned row = a->row[s];
	if (UNLIKELY(!row)) /* the series' first sample: its table */
		row = chist_new_row(a, &a->row[s]);
	uint16_t *slot = chist_slot(a, row, i >> CHIST_CHUNK_BITS);
	unsigned k = *slot;
	if (UNLIKELY(!k)) { /* first sample in this chunk: the next one of the arena */
		FSMIX_ASSERT(a->used + 1 < CHIST_CAPACITY); /* the bound above: never runs out */
		*slot = (uint16_t)(k = ++a->used);
	}
	if (UNLIKELY(++a->chunk[k].bucket[i & (CHIST_CHUNK - 1)] == 0)) /* 2^16 more samples */
		chist_carry(a, s, i);
}

/* chist_merge_series - dst += series s of a, bucket by bucket (as hist_merge would add the dense
 * histogram holding the same samples). Reads only the chunks s was given. */
void chist_merge_series(struct hist *dst, const struct chist_arena *a, unsigned s);

/* chist_clear - every count back to zero, the chunks kept where they were handed out (written
 * only where chunks were handed out: an unused arena stays untouched). */
void chist_clear(struct chist_arena *a);

#endif
