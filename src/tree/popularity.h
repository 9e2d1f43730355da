/* popularity.h - picking an existing file of a pool by popularity rank (file_popularity).
 *
 * Ranks belong to slots (file ids), not to files: the initial set's ids get their ranks from
 * the filesystem's seeded permutation (popdist.h), an id the run adds above them ranks after
 * them in id order, and a file created into a freed slot (a create after a delete reuses it,
 * pool.h) takes over the rank of the file deleted there. A draw whose rank holds no file right
 * now (deleted, not yet re-created) or whose file is held incompatibly is drawn again, so the
 * picks follow the distribution restricted to the files that can be had; after
 * POOL_PICK_TRIES such draws the pick falls back to pool_pick's uniform scan. n is the pool's
 * high water at the pick. No lock, no shared write: O(1) expected like pool_pick.
 */
#ifndef FSMIX_POPULARITY_H
#define FSMIX_POPULARITY_H

#include "pool.h"
#include "popdist.h"

/* pool_pick_ranked - pool_pick with ranks drawn from d and mapped through perm; c is the
 * calling thread's cache. Same returns as pool_pick. */
int pool_pick_ranked(struct pool *p, const struct popdist *d, const struct rankperm *perm,
                     struct popcache *c, struct rng *r, enum pool_mode mode, uint32_t *id);

#endif
