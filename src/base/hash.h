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
#define HASH_FNV1A_SEED 0xcbf29ce484222325ull

/* hash_fnv1a - continue hash h (HASH_FNV1A_SEED to start) over len bytes of data. Feeding the
 * bytes in pieces gives the same result as in one call. */
static inline uint64_t hash_fnv1a(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull; /* the FNV 64-bit prime */
	return h;
}

#endif
