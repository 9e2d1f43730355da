/* content.c - the format of verifiable content (content.h; documented in docs/output.md,
 * "Verifiable content").
 *
 * A file is cut into 512-byte blocks on the file-offset grid (block b is [512 b, 512 b + 512),
 * the device's atomic unit), each block into 64 little-endian 8-byte words on the same grid:
 *
 *   word 0   file id (low 32 bits) | generation (high 32 bits)
 *   word 1   the block's file offset
 *   word 2   check: a hash of (seed, fs, file, generation, block offset)
 *   word 3.. payload: stream(seed, fs, file, word offset) XOR (generation * GEN_MUL)
 *
 * The stream of a file is a table of STREAM_WORDS random 64-bit words (one per process, the
 * same in every one: a fixed seed), read from a per-file starting point and XORed with a
 * per-file 64-bit key: generating is one load and two XORs a word, about the speed of a
 * memory copy, so a write costs what it did when the buffer held a constant. The payload of a
 * file repeats every STREAM_WORDS words (1 MiB); the header's offset word and check tell such
 * blocks apart.
 *
 * Every word is a function of (key, generation, its offset) alone, so a fill of any range is
 * the same bytes whatever pieces it is cut into. GEN_MUL is odd, so a payload word gives its
 * generation back: (word XOR stream) * GEN_MUL^-1; any other bytes (another file, another
 * offset, zeros, garbage) give a "generation" of 32 random high bits, so above 2^32 and told
 * apart (a 2^-32 chance of a false generation per word). Word 0 gives its generation directly,
 * word 2 through fmix64's inverse.
 *
 * The check is content_check.c's; what both files share is in content_int.h.
 *
 * Content modes (content.h): zero and compressible:PCT keep words [0, nrand) of a block as
 * above and make the rest 0; dedupe:PCT makes a 4 KiB chunk (on the file-offset grid) whose
 * hash of (file key, chunk) mod 100 is below PCT a copy of one of CONTENT_DEDUPE_POOL pool
 * chunks (table words XOR a per-seed key), whole. Those words are the same in every generation
 * (fixed_word): they decode to no generation and are accepted when equal. header (auto's
 * choice when the run checks) makes payload word w (3..63) of every block content_table[w] XOR a
 * per-seed key: fixed too, so only a block's 3 header words tell its file, offset and generation.
 * fixed has no header: every block is content_fixed_blk, whatever the file, generation and seed.
 */
#include "content.h"

#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "content_int.h"

uint64_t content_table[STREAM_WORDS];
unsigned char content_fixed_blk[CB];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void table_make(void)
{
	uint64_t x = 0x66736d6978636f6eull; /* "fsmixcon": the same table in every process */
	for (uint32_t i = 0; i < STREAM_WORDS; i++)
		content_table[i] = fmix64(x += 0x9e3779b97f4a7c15ull);
	for (unsigned j = 0; j < CB; j++) /* little-endian words, as every other mode's */
		content_fixed_blk[j] =
		    (unsigned char)(fmix64(0x6669786564000000ull + j / 8) >> (8 * (j % 8)));
}

void content_tables(void)
{
	(void)pthread_once(&table_once, table_make);
}

/* buf[0, len) = the bytes of file offsets [off, off + len) of content that repeats block blk every
 * 512 bytes: runs of it from phase off % 512. */
static void block_runs(unsigned char *buf, size_t len, const unsigned char *blk, uint64_t off)
{
	for (size_t j = 0, ph = (size_t)(off % CB); j < len; ph = 0) {
		size_t n = CB - ph < len - j ? CB - ph : len - j;
		memcpy(buf + j, blk + ph, n);
		j += n;
	}
}

/* The payload loop is a load, an XOR and a store per word: vectorised, it runs at the speed of
 * a memory copy (gcc vectorises at -O2 only with the cheapest cost model, which skips it). */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("tree-vectorize", "vect-cost-model=dynamic")))
#endif
void content_fill(void *buf, size_t len, const struct content_key *key, uint32_t gen, uint64_t off)
{
	struct ck c = ck_of(key);
	if (key->mode == CONTENT_MODE_FIXED) {
		block_runs(buf, len, content_fixed_blk, off);
		return;
	}
	if (c.hkey) { /* the pattern, then the headers over it */
		unsigned char blk[CB] = {0};
		for (unsigned w = 3; w < CW; w++)
			put_word(blk + 8 * w, pattern_word(&c, w));
		block_runs(buf, len, blk, off);
		content_headers(buf, len, key, gen, off);
		return;
	}
	unsigned char *p = buf;
	const uint64_t g = (uint64_t)gen * GEN_MUL;
	uint64_t i = off / 8;
	size_t head = (size_t)(off % 8);
	if (head) { /* a partial first word */
		unsigned char w[8];
		put_word(w, word_at(&c, gen, i));
		size_t n = 8 - head < len ? 8 - head : len;
		memcpy(p, w + head, n);
		p += n;
		len -= n;
		i++;
	}
	while (len >= 8) {
		int dj = c.dup ? dup_of(&c, i / DW) : -1;
		if (dj >= 0) { /* a duplicate chunk: the pool's words, up to the chunk's end */
			uint64_t n = DW - i % DW < len / 8 ? DW - i % DW : len / 8;
			for (uint64_t q = 0; q < n; q++)
				put_word(p + 8 * q, pool_word(&c, dj, i % DW + q));
			i += n;
			p += 8 * n;
			len -= 8 * n;
			continue;
		}
		if (i % CW < 3 || len < 8 * (CW - i % CW)) { /* a header word, or the tail */
			put_word(p, word_at(&c, gen, i));
			p += 8;
			len -= 8;
			i++;
			continue;
		}
		/* The rest of a block's payload: the hot loop, in runs that do not wrap around
		 * the table's end, then the zeros after nrand words. */
		const uint64_t x = c.base ^ g, bend = i - i % CW + CW;
		for (uint64_t end = i - i % CW + c.nrand; i < end;) {
			uint64_t t = (i + c.rot) % STREAM_WORDS;
			uint64_t n = end - i < STREAM_WORDS - t ? end - i : STREAM_WORDS - t;
			const uint64_t *src = content_table + t;
			for (uint64_t j = 0; j < n; j++)
				put_word(p + 8 * j, src[j] ^ x);
			i += n;
			p += 8 * n;
			len -= 8 * n;
		}
		if (i < bend) {
			memset(p, 0, 8 * (bend - i));
			p += 8 * (bend - i);
			len -= 8 * (bend - i);
			i = bend;
		}
	}
	if (len) {
		unsigned char w[8];
		put_word(w, word_at(&c, gen, i));
		memcpy(p, w, len);
	}
}

const char *content_verdict_name(enum content_verdict v)
{
	switch (v) {
	case CONTENT_OK:
		return "ok";
	case CONTENT_ZERO:
		return "zeroed";
	case CONTENT_STALE:
		return "stale";
	case CONTENT_TORN:
		return "torn";
	case CONTENT_FOREIGN:
		return "foreign";
	case CONTENT_SHORT:
		return "short";
	}
	return "?";
}

void content_pattern(void *buf, size_t len, const struct content_key *key)
{
	struct ck c = ck_of(key);
	unsigned char blk[CB] = {0}; /* header bytes: unspecified (zeros) */
	for (unsigned w = 3; w < CW; w++)
		put_word(blk + 8 * w, pattern_word(&c, w));
	unsigned char *p = buf;
	memcpy(p, blk, len < CB ? len : CB);
	/* the pattern repeats every block: the rest copied from the front, doubling (a few large
	 * copies at memory-copy speed, not one per block) */
	for (size_t done = CB; done < len;) {
		size_t k = done < len - done ? done : len - done;
		memcpy(p + done, p, k);
		done += k;
	}
}

void content_headers(void *buf, size_t len, const struct content_key *key, uint32_t gen,
                     uint64_t off)
{
	struct ck c = ck_of(key);
	unsigned char *p = buf;
	uint64_t end = off + len;
	for (uint64_t b = off - off % CB; b < end; b += CB) { /* the blocks in range */
		unsigned char h[24];
		uint64_t i = b / 8;
		if (!c.dup && b >= off && b + 24 <= end) {
			/* From here to the last block whose header is whole: the headers stored in
			 * place, word_at's words 0, 1 and 2 of blocks that are no duplicate chunk,
			 * in one loop with what is the same for every block (word 0, the check
			 * key's generation part) taken out of it and check_word's product of the
			 * offset stepped by addition (no memcpy call, no dispatch). */
			const uint64_t w0 = (uint64_t)c.file | (uint64_t)gen << 32;
			const uint64_t kg = c.chk ^ ((uint64_t)gen << 1);
			const uint64_t last = b + (end - 24 - b) / CB * CB;
			unsigned char *q = p + (b - off);
			for (uint64_t bm = b * CHECK_MUL;; b += CB, q += CB, bm += CB * CHECK_MUL) {
				put_word(q, w0);
				put_word(q + 8, b);
				put_word(q + 16, fmix64(kg ^ bm));
				if (b == last)
					break;
			}
			continue;
		}
		put_word(h, word_at(&c, gen, i));
		put_word(h + 8, word_at(&c, gen, i + 1));
		put_word(h + 16, word_at(&c, gen, i + 2));
		uint64_t s = b > off ? b : off, e = b + 24 < end ? b + 24 : end;
		if (s < e)
			memcpy(p + (s - off), h + (s - b), (size_t)(e - s));
	}
}
