/* content_int.h - what content.c (the generator) and content_check.c (the check) share: the
 * format's constants, the prepared key and every word of every generation (word_at), as static
 * inline functions. Included by those two files only; the format is documented in content.c. */
#ifndef FSMIX_CONTENT_INT_H
#define FSMIX_CONTENT_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "content.h"

#define CB           512u /* block */
#define CW           64u  /* words a block */
#define GEN_MUL      0x9e3779b97f4a7c15ull
#define GEN_INV      0xf1de83e19937733dull       /* GEN_MUL * GEN_INV == 1 (mod 2^64) */
#define STREAM_WORDS (1u << 17)                  /* 1 MiB */
#define DW           (CONTENT_DEDUPE_CHUNK / 8u) /* words a dedupe chunk */

static inline uint64_t fmix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

/* The stream table and CONTENT_MODE_FIXED's one block (byte j is that of every file offset o
 * with o % 512 == j), made once per process (content_tables) before any use. */
extern uint64_t content_table[STREAM_WORDS];
extern unsigned char content_fixed_blk[CB];
void content_tables(void);

/* One key, prepared. */
struct ck {
	uint64_t base; /* stream key of the file */
	uint64_t chk;  /* check key of the file */
	uint32_t rot;  /* the file's starting point in the table */
	uint32_t file;
	uint32_t nrand; /* words of a block [0, nrand) that are header and random payload; the
	                 * rest are zeros (CONTENT_MODE_ZERO, CONTENT_MODE_COMPRESS) */
	uint32_t dup;   /* CONTENT_MODE_DEDUPE: a chunk is a duplicate when its hash % 100 < dup */
	uint64_t dkey;  /* ... that hash's key (per file) */
	uint64_t pkey;  /* the duplicate chunks' key (per seed: shared by the tree's files) */
	uint32_t prot;  /* ... and their starting point in the table */
	uint64_t hkey;  /* CONTENT_MODE_HEADER: the pattern's key (per seed), 0 otherwise */
};

static inline struct ck ck_of(const struct content_key *k)
{
	content_tables();
	uint64_t f = fmix64(((uint64_t)k->fs << 32 | k->file) ^ 0x636f6e74656e7421ull);
	uint64_t b = fmix64(k->seed ^ f);
	struct ck c = {.base = b,
	               .chk = fmix64(k->seed + f + 0x636865636b000000ull),
	               .rot = (uint32_t)(fmix64(b) % STREAM_WORDS),
	               .file = k->file,
	               .nrand = CW};
	unsigned pct = k->pct > 100 ? 100 : k->pct;
	if (k->mode == CONTENT_MODE_HEADER)
		c.hkey = fmix64(k->seed ^ 0x6865616465723a21ull) | 1;
	else if (k->mode == CONTENT_MODE_ZERO)
		c.nrand = 3;
	else if (k->mode == CONTENT_MODE_COMPRESS) /* (100 - pct) % of the block's words random */
		c.nrand = (CW * (100 - pct) + 50) / 100 < 3 ? 3 : (CW * (100 - pct) + 50) / 100;
	else if (k->mode == CONTENT_MODE_DEDUPE && pct) {
		c.dup = pct;
		c.dkey = fmix64(b ^ 0x6465647570653a21ull);
		c.pkey = fmix64(k->seed ^ 0x706f6f6c3a000000ull);
		c.prot = (uint32_t)(fmix64(c.pkey) % STREAM_WORDS);
	}
	return c;
}

/* CONTENT_MODE_DEDUPE: the pool chunk chunk `ch` (file offset 4096 ch) copies, or -1 when it is
 * one of the file's own. */
static inline int dup_of(const struct ck *c, uint64_t ch)
{
	if (!c->dup)
		return -1;
	uint64_t h = fmix64(c->dkey ^ (ch * 0x9fb21c651e98df25ull));
	if (h % 100 >= c->dup)
		return -1;
	return (int)((h / 100) % CONTENT_DEDUPE_POOL);
}

/* Word w (0..DW-1) of pool chunk j. */
static inline uint64_t pool_word(const struct ck *c, int j, uint64_t w)
{
	return content_table[((uint64_t)j * DW + w + c->prot) % STREAM_WORDS] ^ c->pkey;
}

/* Is word i the same in every generation (a zero word, a word of a duplicate chunk)? */
static inline bool fixed_word(const struct ck *c, uint64_t i)
{
	return i % CW >= c->nrand || (c->hkey && i % CW >= 3) || dup_of(c, i / DW) >= 0;
}

/* CONTENT_MODE_HEADER: payload word w (3..CW-1) of every block. */
static inline uint64_t pattern_word(const struct ck *c, uint64_t w)
{
	return content_table[w] ^ c->hkey;
}

/* The stream word of word index i (file offset 8 i). */
static inline uint64_t stream(const struct ck *c, uint64_t i)
{
	return content_table[(i + c->rot) % STREAM_WORDS] ^ c->base;
}

#define CHECK_MUL 0xa0761d6478bd642full

static inline uint64_t check_word(const struct ck *c, uint32_t gen, uint64_t block_off)
{
	return fmix64(c->chk ^ (block_off * CHECK_MUL) ^ ((uint64_t)gen << 1));
}

/* fmix64's inverse (each of its steps is invertible: x ^= x >> 33 is its own inverse, the
 * multipliers are odd), so a whole check word gives its generation back. */
static inline uint64_t fmix64_inv(uint64_t x)
{
	x ^= x >> 33;
	x *= 0x9cb4b2f8129337dbull; /* 0xc4ceb9fe1a85ec53^-1 mod 2^64 */
	x ^= x >> 33;
	x *= 0x4f74430c22a54005ull; /* 0xff51afd7ed558ccd^-1 mod 2^64 */
	x ^= x >> 33;
	return x;
}

/* Word i (file offset 8 i) of generation gen, as a number (stored little-endian). */
static inline uint64_t word_at(const struct ck *c, uint32_t gen, uint64_t i)
{
	int j = dup_of(c, i / DW);
	if (j >= 0)
		return pool_word(c, j, i % DW);
	if (i % CW >= c->nrand)
		return 0;
	if (c->hkey && i % CW >= 3)
		return pattern_word(c, i % CW);
	switch (i % CW) {
	case 0:
		return (uint64_t)c->file | (uint64_t)gen << 32;
	case 1:
		return (i / CW) * CB;
	case 2:
		return check_word(c, gen, (i / CW) * CB);
	default:
		return stream(c, i) ^ ((uint64_t)gen * GEN_MUL);
	}
}

static inline uint64_t le64(uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return __builtin_bswap64(v);
#else
	return v;
#endif
}

static inline void put_word(unsigned char *p, uint64_t v)
{
	v = le64(v);
	memcpy(p, &v, 8);
}

static inline uint64_t get_word(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return le64(v);
}

#endif
