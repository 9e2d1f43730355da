/* iodist.h - inside a file: the size of each operation's calls (fio's bssplit and bsrange) and
 * where its offset falls (fio's random_distribution). Built once from the profile (plan.c), then
 * read-only and shared by every worker; a draw uses the calling thread's RNG and cache only, with
 * no allocation and no lock.
 *
 * Sizes (struct iosize):
 *   split   sizes with percentages: size i is drawn with probability pct_i / 100 (a scan of at
 *           most IOSIZE_MAX entries, one random word)
 *   range   lo..hi: a multiple of lo, k * lo for k uniform in [1, hi / lo] (fio's bsrange: every
 *           size a multiple of the smallest; hi need not be one, the largest is floor(hi/lo)*lo)
 * Offsets (struct offdist): a slot k in [0, n) of a file cut into n slots of the extent's size
 * (slot k starts at k * extent), the hottest at the start of the file:
 *   random     uniform (the engine keeps its byte-granular draw for it: today's offsets)
 *   zipf:T     P(k) proportional to 1 / (k + 1)^T (popdist.h's sampler)
 *   pareto:H   a share H of the draws in the first 1 - H of the slots (popdist.h's sampler):
 *              P(slot < m) = (m / n)^(1 / e), e = ln(1 - H) / ln H
 *   normal:S   a normal of mean n / 2 and standard deviation S % of n, floored to a slot; a draw
 *              outside [0, n) is drawn again (truncated)
 *   zoned      zones in file order, zone i the next size_i % of the file and getting access_i %
 *              of the draws, uniform inside it; zone i's slots are [floor(s * n), floor(e * n))
 *              for its start and end fractions s, e (a zone that rounds to no slot gets the
 *              slot at floor(s * n), or the last)
 */
#ifndef FSMIX_IODIST_H
#define FSMIX_IODIST_H

#include <stdbool.h>
#include <stdint.h>

#include "popdist.h"
#include "rng.h"

/* Most entries of a bssplit and zones of a zoned distribution. */
#define IOSIZE_MAX  64
#define OFFZONE_MAX 64

/* The draw of a share: the top 53 bits of a random word against cumulative thresholds of 2^53. */
#define IODIST_ONE (1ull << 53)

struct iosize {
	uint32_t n;                /* split entries; 0 for a range or no mix */
	bool range;                /* lo..hi */
	uint64_t lo, hi;           /* range: bytes, lo > 0, hi >= lo */
	uint64_t size[IOSIZE_MAX]; /* split: bytes, > 0 */
	double pct[IOSIZE_MAX];    /* split: share in percent (a blank filled in), summing to 100 */
	uint64_t cum[IOSIZE_MAX];  /* split: cumulative share of IODIST_ONE; cum[n - 1] = ONE */
};

/* iosize_set - true if the mix is set (a split or a range). */
static inline bool iosize_set(const struct iosize *s)
{
	return s->n || s->range;
}

/* iosize_init - derive cum[] from pct[] (a split's sizes and shares set). */
void iosize_init(struct iosize *s);

/* iosize_draw - one size in bytes drawn from the set mix s. */
uint64_t iosize_draw(const struct iosize *s, struct rng *r);

/* iosize_max - the largest size s can draw (0 when unset): the worker's buffer must hold it. */
uint64_t iosize_max(const struct iosize *s);

/* iosize_call - an op's call size: drawn from mix when it is set, else `fixed` (the blocksize
 * key). */
static inline uint64_t iosize_call(const struct iosize *mix, uint64_t fixed, struct rng *r)
{
	return iosize_set(mix) ? iosize_draw(mix, r) : fixed;
}

/* iosize_op_bytes - an op's bytes in a file of `file` bytes: the size key, or with a mix and no
 * size key one call of `bs`; never past the file's end. */
static inline uint64_t iosize_op_bytes(const struct iosize *mix, uint64_t key, uint64_t bs,
                                       uint64_t file)
{
	uint64_t want = iosize_set(mix) && !key ? bs : key;
	return want < file ? want : file;
}

enum offdist_kind { OFF_RANDOM = 0, OFF_ZIPF, OFF_PARETO, OFF_NORMAL, OFF_ZONED };

struct offdist {
	enum offdist_kind kind;
	struct popdist pop; /* zipf, pareto */
	double sigma;       /* normal: standard deviation as a fraction of the file (> 0) */
	uint32_t
	    pct_random; /* percentage_random: share of drawn offsets (%), the rest sequential */
	bool align;     /* alignio: offsets rounded down to 4 KiB */
	uint32_t n_zones;
	double zone_access[OFFZONE_MAX]; /* zoned: share of the draws, percent */
	double zone_size[OFFZONE_MAX];   /* zoned: share of the file, percent */
	/* derived by offdist_init */
	uint64_t zone_cum[OFFZONE_MAX]; /* cumulative access share of IODIST_ONE */
	double zone_lo[OFFZONE_MAX], zone_hi[OFFZONE_MAX]; /* start and end fractions */
};

/* A thread's state for offdist_pick: where its previous extent ended, zipf's cache. */
struct offstate {
	uint64_t seq;
	struct popcache c;
};

/* offdist_init - derive the constants of d (its kind and parameters set). */
void offdist_init(struct offdist *d);

/* offdist_slot - a slot in [0, n), n >= 1, drawn from d (not OFF_RANDOM: the caller draws
 * those); c is the calling thread's cache for zipf (popdist.h). */
uint64_t offdist_slot(const struct offdist *d, struct popcache *c, uint64_t n, struct rng *r);

/* offdist_pick - where an extent of `unit` bytes starts, in [0, limit] (limit: the file's size -
 * unit). With probability (100 - d->pct_random) % it continues at s->seq (where the thread's
 * previous extent ended; 0 past limit); else it is drawn from d: OFF_RANDOM any byte,
 * rng_below(limit + 1) (the engine's draw before these keys: with the defaults the same
 * numbers), the others offdist_slot of the limit / unit + 1 slots times unit. Rounded down to
 * 4 KiB with d->align. Sets s->seq to the extent's end. */
uint64_t offdist_pick(const struct offdist *d, struct offstate *s, struct rng *r, uint64_t limit,
                      uint64_t unit);

/* offdist_prob - the exact probability of slot k of n under d (tests, docs). */
double offdist_prob(const struct offdist *d, uint64_t n, uint64_t k);

#endif
