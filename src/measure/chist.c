/* chist.c - the cold half of a worker's compact histograms: merge into a dense one, clear. */
#include "chist.h"

#include <string.h>

void chist_merge_series(struct hist *dst, const struct chist_arena *a, unsigned s)
{
	for (unsigned c = 0; c < CHIST_CHUNKS; c++) {
		unsigned k = a->tab[s][c];
		if (!k)
			continue;
		const uint64_t *src = a->chunk[k].bucket;
		uint64_t *d = dst->bucket + (size_t)c * CHIST_CHUNK;
		for (unsigned j = 0; j < CHIST_CHUNK; j++)
			d[j] += src[j];
	}
}

void chist_clear(struct chist_arena *a)
{
	if (a->used)
		memset(&a->chunk[1], 0, (size_t)a->used * sizeof(a->chunk[0]));
}
