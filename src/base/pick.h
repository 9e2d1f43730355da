/* pick.h - O(1) weighted choice (Vose's alias method), for picking an operation by its
 * <op>_weight and a file size by size_weight.
 *
 * Built once before the run (allocates), then read-only and shared by every worker; a pick
 * costs one bounded random draw and one comparison, whatever the number of choices. Exactly
 * proportional to the integer weights (no modulo bias, unlike FFSB's getrandom()).
 */
#ifndef FSMIX_PICK_H
#define FSMIX_PICK_H

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

/* pick_one - an index i with probability weights[i] / total. */
static inline uint32_t pick_one(const struct pick_table *t, struct rng *r)
{
	/* One draw in [0, n * total): its column and its position inside the column. */
	uint64_t col = rng_below(r, t->n);
	uint64_t x = rng_below(r, t->total);
	return x < t->thresh[col] ? t->value[col] : t->alias[col];
}

#endif
