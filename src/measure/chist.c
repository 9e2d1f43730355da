/* chist.c - the cold half of a worker's compact histograms: merge into a dense one, clear. */
#include "chist.h"

#include "check.h"

#include <string.h>

unsigned chist_new_row(struct chist_arena *a, uint16_t *row)
{
	/* every series gets at most two tables, within CHIST_CAPACITY (chist.h's bound) */
	FSMIX_ASSERT_MSG(a->used + CHIST_ROW_CHUNKS < CHIST_CAPACITY, "arena full: %u units used",
	                 a->used);
	unsigned k = a->used + 1; /* CHIST_ROW_CHUNKS chunks, all zero: none handed out yet */
	a->used += CHIST_ROW_CHUNKS;
	*row = (uint16_t)k;
	return k;
}

void chist_carry(struct chist_arena *a, unsigned s, unsigned i)
{
	FSMIX_ASSERT_MSG(s < CHIST_SERIES && i < HIST_BUCKETS, "series %u, bucket %u", s, i);
	unsigned row = a->hirow[s] ? a->hirow[s] : chist_new_row(a, &a->hirow[s]);
	uint16_t *slot = chist_slot(a, row, i >> CHIST_CHUNK_BITS);
	if (!*slot) { /* CHIST_HIGH_UNITS zero units */
		FSMIX_ASSERT_MSG(a->used + CHIST_HIGH_UNITS < CHIST_CAPACITY,
		                 "arena full: %u units used", a->used);
		*slot = (uint16_t)(a->used + 1);
		a->used += CHIST_HIGH_UNITS;
	}
	unsigned j = i & (CHIST_CHUNK - 1);
	a->chunk[*slot + j / 4].high[j % 4]++; /* the count wraps at 2^64, as struct hist's */
}

void chist_merge_series(struct hist *dst, const struct chist_arena *a, unsigned s)
{
	FSMIX_ASSERT_MSG(s < CHIST_SERIES, "series %u", s);
	for (unsigned c = 0; c < CHIST_CHUNKS; c++) {
		unsigned k = chist_chunk_of(a, s, c, 0), h = chist_chunk_of(a, s, c, 1);
		if (!k)
			continue;
		const uint16_t *lo = a->chunk[k].bucket;
		uint64_t *d = dst->bucket + (size_t)c * CHIST_CHUNK;
		for (unsigned j = 0; j < CHIST_CHUNK; j++)
			d[j] += lo[j] + (h ? a->chunk[h + j / 4].high[j % 4] << 16 : 0);
	}
}

void chist_clear(struct chist_arena *a)
{
	for (unsigned s = 0; s < CHIST_SERIES; s++) /* the counting chunks, not the tables */
		for (unsigned c = 0; a->row[s] && c < CHIST_CHUNKS; c++)
			for (int high = 0; high < 2; high++) {
				unsigned k = chist_chunk_of(a, s, c, high);
				if (k)
					memset(&a->chunk[k], 0,
					       sizeof(a->chunk[k]) * (high ? CHIST_HIGH_UNITS : 1));
			}
}
