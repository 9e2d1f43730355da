/* popdist.h - file popularity (file_popularity): how often each rank of a file set is picked,
 * and the seeded permutation that turns ranks into file ids.
 *
 * A rank is 0 for the hottest file, n - 1 for the coldest of n. The samplers draw a rank in
 * [0, n) in O(1) for any n (n may change between draws: the set grows):
 *   zipf:THETA   P(k) proportional to 1 / (k + 1)^THETA. For n > POPDIST_HEAD the draw is a
 *                composition: the hottest POPDIST_HEAD ranks (88 % of the picks at THETA 1.2
 *                and n 2000) from a read-only alias table (Walker/Vose, built by popdist_init:
 *                one random word, a lookup, no log and no division), the others by
 *                rejection-inversion restricted to [POPDIST_HEAD, n) (Hoermann and Derflinger
 *                1996: a few exp/log per draw); a rejected tail draw starts again from the
 *                choice between the two, so the mix is exact. For n <= POPDIST_HEAD all of it
 *                is rejection-inversion. Expected < 1.1 rounds either way.
 *   pareto:H     the self-similar "H / (1 - H)" rule: a fraction H of the picks goes to the
 *                hottest fraction 1 - H of the ranks, and so on inside them (0.5 < H < 1):
 *                rank = floor(n * U^(ln(1 - H) / ln H))
 *   hotset:F:O   a fraction O of the picks goes uniformly to the hottest ceil(F * n) ranks, the
 *                rest uniformly to the others
 * The rank permutation is a bijection of [0, n0) (n0: the initial file set) from a 4-round
 * Feistel network on the next power of two with cycle walking: no table, O(1) expected (fewer
 * than 4 rounds of walking on average), the same for every thread; the ids of the
 * POPDIST_HEAD hottest ranks are kept in a table (read-only once built). Ranks at or above n0
 * (files the run added at new ids) map to themselves: they are the coldest, in creation order.
 */
#ifndef FSMIX_POPDIST_H
#define FSMIX_POPDIST_H

#include <stdbool.h>
#include <stdint.h>

#include "rng.h"

enum popdist_kind { POP_UNIFORM = 0, POP_ZIPF, POP_PARETO, POP_HOTSET };

/* zipf: ranks [0, POPDIST_HEAD) come from the alias table (a power of two: the table index is
 * the top 8 bits of one random word, the coin its low 56 bits). */
#define POPDIST_HEAD      256
#define POPDIST_HEAD_BITS 8

struct popdist {
	enum popdist_kind kind;
	double theta;     /* zipf */
	double h;         /* pareto: H */
	double hot_files; /* hotset: fraction of the ranks that are hot (0, 1) */
	double hot_ops;   /* hotset: fraction of the picks that go to them [0, 1] */
	/* derived by popdist_init */
	double p_exp;      /* pareto: ln(1 - H) / ln H */
	double z_hx1, z_s; /* zipf: H(1.5) - 1, and the squeeze constant */
	double z_head;     /* zipf: sum of (k + 1)^-THETA over the head ranks k < POPDIST_HEAD */
	double z_hk;       /* zipf: H(POPDIST_HEAD + 0.5), where the tail's hat starts */
	/* zipf's head alias table: rank i is kept when the coin (56 bits) is below z_thr[i],
	 * else z_alias[i] is drawn. Read-only once built. */
	uint64_t z_thr[POPDIST_HEAD];
	uint16_t z_alias[POPDIST_HEAD];
};

/* Per-thread cache of the zipf constant that depends on n (recomputed when n changes). */
struct popcache {
	uint64_t n;
	double z_hn;  /* H(n + 0.5) */
	double z_tot; /* n > POPDIST_HEAD: z_head + the tail's hat, H(n + 0.5) - z_hk */
};

/* popdist_init - derive the constants of d (after its parameters are set). */
void popdist_init(struct popdist *d);

/* popdist_rank - a rank in [0, n), n >= 1, drawn from d; c is the calling thread's cache. */
uint64_t popdist_rank(const struct popdist *d, struct popcache *c, uint64_t n, struct rng *r);

/* popdist_prob - the exact probability of rank k of n under d (tests, docs). */
double popdist_prob(const struct popdist *d, uint64_t n, uint64_t k);

struct rankperm {
	uint64_t n;      /* ranks [0, n) are permuted; 0: identity */
	unsigned half;   /* bits of each Feistel half */
	uint64_t mask;   /* (1 << half) - 1 */
	uint64_t key[4]; /* round keys */
	/* the ids of the hottest ranks, min(n, POPDIST_HEAD) of them, worked out once: most picks
	 * of a skewed popularity land there, and skip the network */
	uint32_t head[POPDIST_HEAD];
};

/* rankperm_init - the permutation of [0, n) for `seed`. */
void rankperm_init(struct rankperm *p, uint64_t n, uint64_t seed);

/* rankperm_map - the id of rank k (k >= n: k itself). */
uint64_t rankperm_map(const struct rankperm *p, uint64_t k);

#endif
