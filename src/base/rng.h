/* rng.h - per-thread pseudo-random numbers: xoshiro256** seeded through splitmix64.
 *
 * Contract: a struct rng belongs to one thread; nothing here is shared or locked. Every worker
 * gets its own stream from (run seed, worker index), so a run is repeatable for a given seed.
 * rng_below() is exactly uniform (Lemire's multiply-shift with rejection: no modulo bias, which
 * skewed FFSB's op mix and file sizes by up to 2:1).
 */
#ifndef FSMIX_RNG_H
#define FSMIX_RNG_H

#include <stdint.h>

struct rng {
	uint64_t s[4];
};

/* splitmix64 - one step of Vigna's splitmix64; used for seeding and for hashing small ids. */
static inline uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* rng_seed - start the stream number `stream` of run seed `seed` (streams are independent). */
static inline void rng_seed(struct rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t st = seed ^ (stream * 0xd1342543de82ef95ull);
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&st);
}

static inline uint64_t rng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* rng_next - 64 uniformly random bits. */
static inline uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rng_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rng_rotl(s[3], 45);
	return result;
}

/* rng_below - uniform integer in [0, n); n must be > 0. No modulo bias. */
static inline uint64_t rng_below(struct rng *r, uint64_t n)
{
	unsigned __int128 m = (unsigned __int128)rng_next(r) * n;
	uint64_t low = (uint64_t)m;
	if (low < n) {
		uint64_t threshold = -n % n;
		while (low < threshold) {
			m = (unsigned __int128)rng_next(r) * n;
			low = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

/* rng_unit - uniform double in [0, 1) with 53 random bits. */
static inline double rng_unit(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

#endif
