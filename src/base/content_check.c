/* content_check.c - the check of verifiable content (content.h: content_check, content_newest;
 * the format is content.c's, shared through content_int.h).
 *
 * The check walks the words with the generation of the last good one and accepts a word that
 * matches it; where it does not, the word's own generation (decoded) and the next decodable
 * word's are tried byte by byte, so two generations may meet at any byte (a write that began or
 * ended there). Bytes a generation left too few of to decode are searched for among the
 * acceptable generations (search). A byte that no generation explains is the first bad place.
 */
#include "content.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "content_int.h"

/* Generations tried one by one for bytes too few to decode, per search (about 1-2 ns each):
 * a window up to this wide is searched whole, a wider one from its ends (search). */
#define BRUTE_MAX (1u << 24)

/* CONTENT_MODE_FIXED's check: the first byte of buf (file offsets [off, off + len)) that is not
 * the pattern, zeroed when it and the rest of its block in range are zeros, else foreign (no
 * generation: the pattern has none). */
static int fixed_check(const unsigned char *buf, size_t len, uint64_t off,
                       struct content_finding *finding)
{
	size_t j = 0;
	while (j < len && buf[j] == content_fixed_blk[(off + j) % CB])
		j++;
	if (j == len) {
		if (finding)
			*finding = (struct content_finding){.verdict = CONTENT_OK};
		return 0;
	}
	if (finding) {
		size_t end = j + (CB - (off + j) % CB), z = j; /* the end of the bad byte's block */
		if (end > len)
			end = len;
		while (z < end && !buf[z])
			z++;
		*finding = (struct content_finding){
		    .verdict = z == end ? CONTENT_ZERO : CONTENT_FOREIGN,
		    .off = off + j,
		    .shown = len - j < CONTENT_SHOW ? len - j : CONTENT_SHOW};
		for (size_t i = 0; i < finding->shown; i++) {
			finding->expected[i] = content_fixed_blk[(off + j + i) % CB];
			finding->found[i] = buf[j + i];
		}
	}
	return 1;
}

/* The generation a whole word claims, 0 when it carries none this file could have written
 * (word 1 carries none; word 2, a hash of it, gives it back through fmix64_inv: a check word
 * whose header the next write overwrote is decoded as a payload word is). */
static uint32_t decode(const struct ck *c, uint64_t i, uint64_t w)
{
	uint64_t g;
	if (fixed_word(c, i))
		return 0;
	switch (i % CW) {
	case 0:
		return (uint32_t)w == c->file ? (uint32_t)(w >> 32) : 0;
	case 1:
		return 0;
	case 2:
		g = fmix64_inv(w) ^ c->chk ^ ((i / CW) * CB * CHECK_MUL);
		return g & 1 || g >> 33 ? 0 : (uint32_t)(g >> 1);
	default:
		g = (w ^ stream(c, i)) * GEN_INV;
		return g <= UINT32_MAX ? (uint32_t)g : 0;
	}
}

/* The state of one check. */
struct walk {
	struct ck c;
	const unsigned char *buf;
	uint64_t off, end; /* the range [off, end) */
	/* acceptable generations: lo, lo + 1, ..., hi = lo + span, counted on the 32-bit circle
	 * (content.h: the window may cross the wrap), 0 never */
	uint32_t lo, hi, span;
	/* CONTENT_MODE_HEADER: one block as it reads, payload words 3..63 (the same in every block,
	 * file and generation of the seed) at bytes [24, 512); NULL in the other modes */
	const unsigned char *pat;
};

static inline bool acceptable(const struct walk *k, uint32_t g)
{
	return g && (uint32_t)(g - k->lo) <= k->span;
}

/* Is word i entirely inside the range? */
static inline bool whole(const struct walk *k, uint64_t i)
{
	return i * 8 >= k->off && i * 8 + 8 <= k->end;
}

static inline uint64_t word_read(const struct walk *k, uint64_t i)
{
	return get_word(k->buf + (i * 8 - k->off));
}

/* The generation the first bytes of payload word i carry, from its n low bytes (n >= 4: the
 * low 8n bits of gen * GEN_MUL give the low 8n bits of gen, all of it), when those bytes are
 * that generation's; 0 otherwise. A word where a later write began gives its first
 * generation so. */
static uint32_t prefix_gen(const struct walk *k, uint64_t i, unsigned n)
{
	uint64_t mask = n >= 8 ? ~0ull : (1ull << (8 * n)) - 1;
	if (fixed_word(&k->c, i))
		return 0;
	uint64_t w = word_read(k, i);
	uint64_t g = (((w ^ stream(&k->c, i)) & mask) * GEN_INV) & mask;
	if (!g || g > UINT32_MAX || ((word_at(&k->c, (uint32_t)g, i) ^ w) & mask))
		return 0;
	return (uint32_t)g;
}

/* The generation of the first whole word from i on (at most `look` words) that decodes to
 * one, whole or by its first bytes; 0 when none does. */
static uint32_t hint(const struct walk *k, uint64_t i, unsigned look)
{
	for (unsigned n = 0; n < look && i * 8 < k->end; n++, i++) {
		if (!whole(k, i))
			continue;
		uint32_t g = decode(&k->c, i, word_read(k, i));
		for (unsigned b = 7; !acceptable(k, g) && b >= 4 && i % CW >= 3; b--)
			g = prefix_gen(k, i, b);
		if (acceptable(k, g))
			return g;
	}
	return 0;
}

static inline unsigned char byte_of(uint64_t w, unsigned b)
{
	return (unsigned char)(w >> (8 * b)); /* the word is stored little-endian */
}

/* Does the block's content (within the range) show an acceptable generation: a payload word
 * of one, or a whole header (file and generation, offset, check) of one? */
static bool block_has_ok(const struct walk *k, uint64_t block)
{
	uint64_t i0 = block * CW;
	for (uint64_t i = i0; i < i0 + CW; i++) {
		if (!whole(k, i) || i == i0 + 1 || i == i0 + 2)
			continue;
		uint64_t w = word_read(k, i);
		uint32_t g = decode(&k->c, i, w);
		if (!acceptable(k, g))
			continue;
		if (i > i0 + 2)
			return true;
		if (whole(k, i0 + 2) && word_read(k, i0 + 1) == word_at(&k->c, g, i0 + 1) &&
		    word_read(k, i0 + 2) == word_at(&k->c, g, i0 + 2))
			return true;
	}
	return false;
}

/* Fills in the finding for the bad byte at file offset p; `shown_gen` is the generation the
 * expected bytes are shown for. */
static void describe(const struct walk *k, const struct content_key *key, uint64_t p,
                     uint32_t shown_gen, struct content_finding *f)
{
	uint64_t i = p / 8, block = p / CB;
	uint64_t bend = (block + 1) * CB < k->end ? (block + 1) * CB : k->end;
	bool zero = true;
	for (uint64_t q = p; q < bend && zero; q++)
		zero = k->buf[q - k->off] == 0;
	/* The generation the bad bytes carry: their word's, or the next decodable one's in the
	 * block, if the bad byte is that generation's. */
	uint32_t g = whole(k, i) ? decode(&k->c, i, word_read(k, i)) : 0;
	if (!g)
		g = hint(k, i + 1, (unsigned)(CW - (i + 1) % CW) % CW);
	if (g && byte_of(word_at(&k->c, g, i), (unsigned)(p % 8)) != k->buf[p - k->off])
		g = 0;
	bool ok_too = block_has_ok(k, block);
	enum content_verdict v;
	/* Bad bytes next to acceptable ones in one block: torn (the device wrote part of it);
	 * else what the bad bytes are. */
	if (ok_too)
		v = CONTENT_TORN;
	else if (zero)
		v = CONTENT_ZERO;
	else if (g && gen_after(k->lo, g))
		v = CONTENT_STALE;
	else
		v = CONTENT_FOREIGN;
	if (zero)
		g = 0;
	f->verdict = v;
	f->off = p;
	f->gen_found = g;
	f->gen_expected = shown_gen;
	f->shown = (size_t)(k->end - p < CONTENT_SHOW ? k->end - p : CONTENT_SHOW);
	content_fill(f->expected, f->shown, key, shown_gen, p);
	memcpy(f->found, k->buf + (p - k->off), f->shown);
}

/* Do byte b and the bytes after it of word i depend on the generation (word 0's generation
 * bytes, the check word, a payload word that is not the same in every generation)? */
static inline bool varies(const struct ck *c, uint64_t i, unsigned b)
{
	return !fixed_word(c, i) && (i % CW >= 2 || (i % CW == 0 && b >= 4));
}

/* What search found: the generation (0: none) whose word explains bytes [b, q) of the range,
 * and whether every acceptable generation was tried. */
struct found {
	uint32_t gen;
	unsigned q;
	bool all;
};

/* The acceptable generation whose word i explains the longest prefix of bytes [b, end) of the
 * range, longer than [b, least): bytes a generation left too few of to decode (a remnant
 * between two later writes, the check word of a write that began on the offset word, the
 * range's first partial word). Tried from three ends of the window at once -- the newest
 * down, the oldest up and, where the window holds it, 1 up (the file as built: a large file
 * keeps its bytes longest) -- so a remnant costs about as many tries as generations lie between
 * it and the nearest end; stops at one that explains all of [b, end), or after BRUTE_MAX
 * tries (then .all is false). */
static struct found search(const struct walk *k, uint64_t i, unsigned b, unsigned end,
                           unsigned least)
{
	struct found r = {0, least, false};
	uint64_t got = 0, mask = 0;
	for (unsigned j = b; j < end; j++) {
		got |= (uint64_t)k->buf[i * 8 + j - k->off] << (8 * j);
		mask |= 0xffull << (8 * j);
	}
	if (i % CW == 0 && b < 4) { /* the file id: no generation explains past a wrong byte */
		uint64_t x = (got ^ k->c.file) & mask & 0xffffffffull;
		if (x && (unsigned)__builtin_ctzll(x) / 8 < end)
			end = (unsigned)__builtin_ctzll(x) / 8;
	}
	if (end <= least) {
		r.all = true;
		return r;
	}
	/* word i of generation g: base ^ (g << shift) for word 0, fmix64(base ^ g << 1) for the
	 * check word, base ^ g * GEN_MUL for a payload word; the same for all where it is fixed */
	unsigned kind = fixed_word(&k->c, i) || i % CW == 1 ? 3u
	                : i % CW == 0                       ? 0u
	                : i % CW == 2                       ? 2u
	                                                    : 1u;
	uint64_t base = kind == 0   ? k->c.file
	                : kind == 2 ? k->c.chk ^ ((i / CW) * CB * CHECK_MUL)
	                : kind == 1 ? stream(&k->c, i)
	                            : word_at(&k->c, k->lo, i);
	/* offsets from lo: (z, span] tried (newest), [0, a) tried, [o1, u) tried (from 1) */
	int64_t z = k->span, a = 0, o1 = -1, u = 0;
	uint32_t d1 = 1u - k->lo;
	if (d1 && d1 <= k->span && kind != 3)
		o1 = u = d1;
	if (kind == 3)
		z = 0; /* one try tells */
	for (uint64_t tried = 0; tried < BRUTE_MAX;) {
		int64_t o[3];
		int n = 0;
		if (o1 >= 0 && z >= o1 && z < u)
			z = o1 - 1;
		if (z >= a)
			o[n++] = z--;
		if (o1 >= 0 && a >= o1 && a < u)
			a = u;
		if (a <= z)
			o[n++] = a++;
		if (o1 >= 0 && u <= z)
			o[n++] = u++;
		if (!n) {
			r.all = true;
			break;
		}
		for (int t = 0; t < n; t++) {
			uint32_t g = k->lo + (uint32_t)o[t];
			if (!g)
				continue;
			tried++;
			uint64_t e = kind == 0   ? base | (uint64_t)g << 32
			             : kind == 2 ? fmix64(base ^ ((uint64_t)g << 1))
			             : kind == 1 ? base ^ ((uint64_t)g * GEN_MUL)
			                         : base;
			uint64_t x = (e ^ got) & mask;
			unsigned q = x ? (unsigned)__builtin_ctzll(x) / 8 : end;
			if (q > r.q) {
				r.gen = g;
				r.q = q;
				if (q >= end)
					return r;
			}
		}
	}
	return r;
}

/* Word i did not match generation *cur as a whole: explain its bytes [b0, b1) with *cur, its
 * own generation (decoded whole or by its first bytes), the next decodable word's and, for
 * bytes every generation shares (the file id, the offset word), any acceptable one. Returns
 * the first byte no acceptable generation explains (8: all are), and updates *cur to the
 * generation of the word's last byte; *edge is set to i when that byte began a generation (so
 * that a lone byte at the next word's start counts as lying between two). */
static unsigned explain(const struct walk *k, uint64_t i, unsigned b0, unsigned b1, uint32_t *cur,
                        uint64_t *edge)
{
	uint32_t cand[4] = {k->hi, *cur, 0, hint(k, i + 1, 8)};
	unsigned sw = 8;     /* the byte where *cur last changed (8: none in this word) */
	unsigned shared = 8; /* the last byte taken as one every generation has (8: none) */
	if (i % CW == 0 && b0 <= 4 && b1 == 8) { /* the header's generation, as it reads */
		const unsigned char *h = k->buf + i * 8 + 4 - k->off;
		cand[2] = (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 |
		          (uint32_t)h[3] << 24;
	} else if (b0 == 0 && b1 == 8) {
		cand[2] = decode(&k->c, i, word_read(k, i));
		for (unsigned n = 7; !acceptable(k, cand[2]) && n >= 4 && i % CW >= 3; n--)
			cand[2] = prefix_gen(k, i, n);
	}
	uint64_t exp[4];
	for (int n = 0; n < 4; n++)
		exp[n] = acceptable(k, cand[n]) ? word_at(&k->c, cand[n], i) : 0;
	for (unsigned b = b0; b < b1; b++) {
		unsigned char got = k->buf[i * 8 + b - k->off];
		/* The generation of the byte before, if it explains this one (bytes that many
		 * generations share stay with the run they are in), else the next word's, the
		 * word's own, the one before the word. */
		if (acceptable(k, *cur) && byte_of(word_at(&k->c, *cur, i), b) == got)
			continue;
		int hit = -1;
		for (int n = 3; n >= 1 && hit < 0; n--)
			if (acceptable(k, cand[n]) && byte_of(exp[n], b) == got)
				hit = n;
		if (hit >= 0) {
			*cur = cand[hit];
			sw = b;
			continue;
		}
		if (acceptable(k, cand[0]) && byte_of(exp[0], b) == got &&
		    byte_of(word_at(&k->c, cand[0] == 1 ? 2 : 1, i), b) == got) {
			shared = b;
			continue; /* a byte every generation has here */
		}
		/* Bytes a generation left too few of here to decode (a remnant between two later
		 * writes, the check word of a write that began on the offset word, the range's
		 * first partial word): search the acceptable generations on the whole run of bytes
		 * no candidate explains. A run of
		 * one byte only where it lies between two generations (a remnant between two
		 * later writes) or at the range's start: a byte inside one generation's bytes
		 * that one of thousands of generations explains would hide a flipped byte. */
		uint32_t left = *cur, right = cand[3];
		unsigned run = b + 1;
		while (run < b1) {
			unsigned char c = k->buf[i * 8 + run - k->off];
			bool any = false;
			for (int n = 1; n < 4 && !any; n++)
				any = acceptable(k, cand[n]) && byte_of(exp[n], run) == c;
			if (any)
				break;
			run++;
		}
		if (run == b + 1 && run < b1) { /* the generation of the byte after */
			unsigned char c = k->buf[i * 8 + run - k->off];
			right = 0;
			for (int n = 3; n >= 1 && !right; n--)
				if (acceptable(k, cand[n]) && byte_of(exp[n], run) == c)
					right = cand[n];
		} else if (run == 8 && (i + 1) * 8 < k->end) { /* ... in the next word */
			unsigned char c = k->buf[(i + 1) * 8 - k->off];
			if (!acceptable(k, right) || byte_of(word_at(&k->c, right, i + 1), 0) != c)
				right = 0;
		}
		/* (in word 0, whose bytes many generations share, which one a neighbour belongs
		 * to says little: there any generation may explain a byte) */
		bool between = run - b >= 2 || b0 > 0 || i * 8 + b == k->off || left != right ||
		               i % CW == 0 || (i % CW == 2 && k->off > (i - 2) * 8) ||
		               (b == 0 && *edge == i - 1);
		/* The generation that explains the longest prefix of the run: all of it, or at
		 * least two bytes (one where it lies between two generations), and the rest of
		 * the run is tried again from there. */
		struct found s = search(k, i, b, run, b);
		if (s.gen && s.q - b < 2 && !between) /* (then run == b + 1) */
			/* A lone byte inside a run of one generation: a flipped byte, unless a
			 * byte after it only seemed to belong to that run (1 in 256): then some
			 * generation explains it and the next one too. */
			s = search(k, i, b, b1, b + 1);
		if (!s.gen && !between && (sw == b - 1 || shared == b - 1))
			/* ... or the byte before, where the generation after began or that the
			 * newest and the oldest generations happened to share, only seemed to be
			 * theirs (1 in 256), and a remnant of two bytes or more begins there */
			s = search(k, i, b - 1, b1, b);
		if (!s.gen) {
			/* Bytes of a generation-dependent part of a word (not all 8) that no
			 * generation of a window wider than BRUTE_MAX tried explains may be of
			 * one not tried: accepted unchecked, as a search would most likely find
			 * one for so few bytes. A whole word is decoded, not searched for. */
			if (s.all || run - b == 8 || !varies(&k->c, i, b))
				return b;
			b = run - 1;
			continue;
		}
		*cur = s.gen;
		sw = b;
		b = s.q - 1;
	}
	if (sw == 7)
		*edge = i;
	return 8;
}

/* CONTENT_MODE_HEADER's block_whole: the three header words of one acceptable generation, as
 * the file's block at this offset has them, and the 488 payload bytes equal to the pattern,
 * compared by memcmp (the C library's vector compare: 2-3x the speed of a loop of 8-byte words
 * XORed against the table, which is what the check of a read costs most of). */
static bool block_whole_header(const struct walk *k, const unsigned char *p, uint64_t i)
{
	uint64_t w0 = get_word(p);
	uint32_t g = (uint32_t)(w0 >> 32);
	return (uint32_t)w0 == k->c.file && acceptable(k, g) && get_word(p + 8) == i * 8 &&
	       get_word(p + 16) == check_word(&k->c, g, i * 8) &&
	       !memcmp(p + 24, k->pat + 24, CB - 24);
}

/* Is the whole block from word i (a block's first, inside the range) one acceptable
 * generation's, as its header says? One pass that compares without branching. */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("tree-vectorize", "vect-cost-model=dynamic")))
#endif
static bool
block_whole(const struct walk *k, uint64_t i)
{
	const unsigned char *p = k->buf + (i * 8 - k->off);
	if (k->pat)
		return block_whole_header(k, p, i);
	uint64_t w0 = get_word(p);
	uint32_t g = (uint32_t)(w0 >> 32);
	if ((k->c.dup && dup_of(&k->c, i / DW) >= 0) || (uint32_t)w0 != k->c.file ||
	    !acceptable(k, g) || get_word(p + 8) != word_at(&k->c, g, i + 1) ||
	    get_word(p + 16) != word_at(&k->c, g, i + 2))
		return false;
	const uint64_t x = k->c.base ^ ((uint64_t)g * GEN_MUL);
	const unsigned nr = k->c.nrand;
	uint64_t t = (i + 3 + k->c.rot) % STREAM_WORDS, diff = 0;
	if (t + nr - 3 <= STREAM_WORDS) {
		const uint64_t *src = content_table + t;
		for (unsigned j = 0; j < nr - 3; j++)
			diff |= get_word(p + 24 + 8 * j) ^ src[j] ^ x;
	} else {
		for (unsigned j = 0; j < nr - 3; j++)
			diff |= get_word(p + 24 + 8 * j) ^ stream(&k->c, i + 3 + j) ^
			        ((uint64_t)g * GEN_MUL);
	}
	for (unsigned j = nr; j < CW;
	     j++) /* the zeros of CONTENT_MODE_ZERO, CONTENT_MODE_COMPRESS */
		diff |= get_word(p + 8 * j);
	return diff == 0;
}

/* Is the duplicate chunk from word i (a chunk's first, inside the range) the pool's, whole?
 * (false when the chunk is one of the file's own) */
static bool dup_chunk_whole(const struct walk *k, uint64_t i)
{
	int j = dup_of(&k->c, i / DW);
	if (j < 0)
		return false;
	const unsigned char *p = k->buf + (i * 8 - k->off);
	uint64_t diff = 0;
	for (unsigned w = 0; w < DW; w++)
		diff |= get_word(p + 8 * w) ^ pool_word(&k->c, j, w);
	return diff == 0;
}

int content_check(const void *buf, size_t len, const struct content_key *key, uint64_t off,
                  uint32_t gen_min, uint32_t gen_max, struct content_finding *finding)
{
	if (key->mode == CONTENT_MODE_FIXED) {
		content_tables();
		return fixed_check(buf, len, off, finding);
	}
	struct walk k = {.c = ck_of(key),
	                 .buf = buf,
	                 .off = off,
	                 .end = off + len,
	                 .lo = gen_min ? gen_min : 1,
	                 .hi = gen_max};
	k.span = gen_max - k.lo; /* gen_max = lo - 1: the whole circle */
	unsigned char pat[CB];
	if (k.c.hkey && len >= CB) { /* (a range with no whole block never reads it) */
		/* block_whole_header asks of no dedupe chunk: the modes are apart */
		FSMIX_ASSERT(!k.c.dup);
		for (unsigned w = 3; w < CW; w++)
			put_word(pat + 8 * w, pattern_word(&k.c, w));
		k.pat = pat;
	}
	uint32_t cur = 0;           /* the generation of the last good byte */
	uint64_t edge = UINT64_MAX; /* the last word whose last byte began a generation */
	for (uint64_t i = off / 8; i * 8 < k.end; i++) {
		if (i % CW == 0 && i * 8 >= off && (i + CW) * 8 <= k.end && block_whole(&k, i)) {
			cur = (uint32_t)(word_read(&k, i) >> 32);
			i += CW - 1; /* the common case: a whole block of one generation */
			continue;
		}
		if (k.c.dup && i % DW == 0 && i * 8 >= off && (i + DW) * 8 <= k.end &&
		    dup_chunk_whole(&k, i)) {
			i += DW - 1; /* a whole duplicate chunk, as it should be */
			continue;
		}
		if (whole(&k, i)) {
			uint64_t got = word_read(&k, i);
			if ((cur || fixed_word(&k.c, i)) && got == word_at(&k.c, cur ? cur : 1, i))
				continue;
			uint32_t g = decode(&k.c, i, got);
			if (acceptable(&k, g) && got == word_at(&k.c, g, i)) {
				cur = g;
				continue;
			}
		}
		unsigned b0 = i * 8 < off ? (unsigned)(off - i * 8) : 0;
		unsigned b1 = i * 8 + 8 > k.end ? (unsigned)(k.end - i * 8) : 8;
		unsigned bad = explain(&k, i, b0, b1, &cur, &edge);
		if (bad < 8) {
			if (finding)
				describe(&k, key, i * 8 + bad,
				         acceptable(&k, cur) ? cur
				         : k.hi              ? k.hi
				                             : 1,
				         finding);
			return 1;
		}
	}
	if (finding)
		*finding = (struct content_finding){.verdict = CONTENT_OK};
	return 0;
}

uint32_t content_newest(const void *buf, size_t len, const struct content_key *key, uint64_t off)
{
	if (key->mode == CONTENT_MODE_FIXED) /* no generation in it */
		return 0;
	struct walk k = {.c = ck_of(key), .buf = buf, .off = off, .end = off + len};
	uint32_t top = 0;
	for (uint64_t i = (off + 7) / 8; (i + 1) * 8 <= k.end; i++) {
		uint64_t w = word_read(&k, i);
		uint32_t g = decode(&k.c, i, w);
		if (g > top && w == word_at(&k.c, g, i))
			top = g;
	}
	return top;
}
