/* chist.c - the cold half of a worker's compact histograms: merge into a dense one, clear. */
#include "chist.h"

#include <string.h>

void chist_carry(struct chist_arena *a, unsigned s, unsigned i)
{
	uint16_t *slot = &a->hi[s][i >> CHIST_CHUNK_BITS];
	if (!*slot)
		*slot = (uint16_t)++a->used;
	a->chunk[*slot].bucket[i & (CHIST_CHUNK - 1)]++; /* 2^64 samples would wrap it */
}

void chist_merge_series(struct hist *dst, const struct chist_arena *a, unsigned s)
{
	for (unsigned c = 0; c < CHIST_CHUNKS; c++) {
		unsigned k = a->tab[s][c], h = a->hi[s][c];
		if (!k)
			continue;
		const uint32_t *lo = a->chunk[k].bucket, *hi = h ? a->chunk[h].bucket : NULL;
		uint64_t *d = dst->bucket + (size_t)c * CHIST_CHUNK;
		for (unsigned j = 0; j < CHIST_CHUNK; j++)
			d[j] += lo[j] + (hi ? (uint64_t)hi[j] << 32 : 0);
	}
}

void chist_clear(struct chist_arena *a)
{
	if (a->used)
		memset(&a->chunk[1], 0, (size_t)a->used * sizeof(a->chunk[0]));
}
