/* hash.h - the one non-cryptographic hash fsmix keeps on disk: 64-bit FNV-1a. It names what a
 * tree was built for (the filesystem spec's hash in the reuse manifest) and checks the manifest
 * itself (its trailer). Both are compared with values written by earlier runs, so the function
 * and its seed never change. Not for untrusted keys in hash tables (no resistance to crafted
 * collisions). */
#ifndef FSMIX_HASH_H
#define FSMIX_HASH_H

#include <stddef.h>
#include <stdint.h>

/* The FNV-1a 64-bit offset basis: the hash of no bytes, where every hash starts. */
#define HASH_FNV1A_SEED  0xcbf29ce484222325ull
#define HASH_FNV1A_PRIME 0x100000001b3ull /* the FNV 64-bit prime */

/* hash_fnv1a - continue hash h (HASH_FNV1A_SEED to start) over len bytes of data. Feeding the
 * bytes in pieces gives the same result as in one call. */
static inline uint64_t hash_fnv1a(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * HASH_FNV1A_PRIME;
	return h;
}

/* hash_fnv1a_4 - the hashes (from HASH_FNV1A_SEED) of four pieces of len bytes each, at data,
 * data + stride, data + 2 * stride and data + 3 * stride: out[k] == hash_fnv1a(HASH_FNV1A_SEED,
 * data + k * stride, len). Each hash is a chain of len dependent multiplies; one hash at a time
 * waits on the multiplier's latency, four side by side keep it busy (about 3x the speed of four
 * calls: the durability logger's record checks, durlog.c). */
static inline void hash_fnv1a_4(const void *data, size_t stride, size_t len, uint64_t out[4])
{
	const unsigned char *p = data;
	uint64_t h0 = HASH_FNV1A_SEED, h1 = HASH_FNV1A_SEED, h2 = HASH_FNV1A_SEED,
	         h3 = HASH_FNV1A_SEED;
	for (size_t i = 0; i < len; i++) {
		h0 = (h0 ^ p[i]) * HASH_FNV1A_PRIME;
		h1 = (h1 ^ p[stride + i]) * HASH_FNV1A_PRIME;
		h2 = (h2 ^ p[2 * stride + i]) * HASH_FNV1A_PRIME;
		h3 = (h3 ^ p[3 * stride + i]) * HASH_FNV1A_PRIME;
	}
	out[0] = h0, out[1] = h1, out[2] = h2, out[3] = h3;
}

#endif
