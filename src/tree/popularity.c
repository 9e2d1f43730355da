/* popularity.c - the ranked pick (see popularity.h). */
#include "popularity.h"

int pool_pick_ranked(struct pool *p, const struct popdist *d, const struct rankperm *perm,
                     struct popcache *c, struct rng *r, enum pool_mode mode, uint32_t *id)
{
	if (atomic_load_explicit(&p->live, memory_order_relaxed) == 0)
		return -ENOENT;
	uint32_t hw = atomic_load_explicit(&p->high_water, memory_order_acquire);
	if (hw == 0)
		return -ENOENT;
	for (int t = 0; t < POOL_PICK_TRIES; t++) {
		uint64_t s = rankperm_map(perm, popdist_rank(d, c, hw, r));
		if (s >=
		    hw) /* the permutation covers more ids than exist now: never, in practice */
			continue;
		int rc = pool_slot_try(p, (uint32_t)s, mode);
		if (rc == 0) {
			*id = (uint32_t)s;
			return 0;
		}
		if (rc == -EROFS)
			return rc;
	}
	return pool_pick_rest(p, r, mode, hw, id);
}
