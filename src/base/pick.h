/* pick.h - O(1) weighted choice (Vose's alias method), for picking an operation by its
 * <op>_weight and a file size by size_weight.
 *
 * Built once before the run (allocates), then read-only and shared by every worker; a pick
 * costs one bounded random draw and one comparison, whatever the number of choices. Exactly
 * proportional to the integer weights (no modulo bias, unlike FFSB's getrandom()).
 */
#ifndef FSMIX_PICK_H
#define FSMIX_PICK_H

#include <stdbool.h>
#include <stdint.h>

#include "rng.h"

struct pick_table {
	uint32_t n;      /* choices with weight > 0 */
	uint64_t total;  /* sum of the weights */
	uint32_t *value; /* value[i]: the choice (caller's index) of column i */
	uint32_t *alias; /* alias[i]: the choice taken when the draw exceeds threshold[i] */
	uint64_t
	    *thresh; /* scaled by n: draw r in [0,total) picks column r/total*n ... see pick.c */
};

/* pick_build - table over weights[0..count); indices with weight 0 are never picked.
 * Returns 0, -EINVAL (no positive weight, or the sum overflows 2^63), -ENOMEM. */
int pick_build(struct pick_table *t, const uint64_t *weights, uint32_t count);

void pick_free(struct pick_table *t);

/* FFSB 6.0's biased choice (--fidelity ffsb6). FFSB picked `1 + getrandom(sum)` and scanned the
 * weights in order (ffsb_tg.c:104, fileops.c:437, ffsb_fs.c:121), and getrandom(mod) is k random
 * bytes modulo mod, k = 1 for mod < 2^8, 2 below 2^16, 3 below 2^24, else 4 (rand.c:138-162): of
 * the 256^k values, the first 256^k % mod residues come once more often than the rest, so the
 * choices at the start of the scan gain. pick_ffsb_weights writes the exact weights of that
 * distribution (summing to 256^k) into out[0..count), the scan running from the first index to the
 * last, or from the last to the first with `reversed` (size_weight lines, which FFSB stored in
 * reverse). A pick_table built from them draws exactly FFSB's shares, at the same cost as any
 * other. Returns 0, or -EINVAL when the weights sum to 0 or to 2^32 or more (FFSB's sum is 32
 * bits). */
int pick_ffsb_weights(const uint64_t *weights, uint32_t count, bool reversed, uint64_t *out);

/* pick_ffsb_span - 256^k: the count of values k bytes hold, for FFSB's getrandom(mod). */
static inline uint64_t pick_ffsb_span(uint32_t mod)
{
	return mod >> 8 == 0    ? 1u << 8
	       : mod >> 16 == 0 ? 1u << 16
	       : mod >> 24 == 0 ? 1u << 24
	                        : 1ull << 32;
}

/* pick_ffsb_mod - FFSB 6.0's getrandom(mod): k uniform random bytes modulo mod (0 for mod 0
 * or 1), with its modulo bias. */
static inline uint64_t pick_ffsb_mod(struct rng *r, uint32_t mod)
{
	if (mod <= 1)
		return 0;
	return (rng_next(r) & (pick_ffsb_span(mod) - 1)) % mod;
}

/* pick_one - an index i with probability weights[i] / total. */
static inline uint32_t pick_one(const struct pick_table *t, struct rng *r)
{
	/* One draw in [0, n * total): its column and its position inside the column. */
	uint64_t col = rng_below(r, t->n);
	uint64_t x = rng_below(r, t->total);
	return x < t->thresh[col] ? t->value[col] : t->alias[col];
}

#endif
