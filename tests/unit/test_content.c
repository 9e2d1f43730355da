/* test_content.c - verifiable content (content.h): the generator is deterministic and cut-proof,
 * differs between files, generations and offsets; the check accepts generations joined at any
 * byte and tells zeroed, stale, torn and foreign data apart, with the first bad offset; and the
 * content modes (zero, compressible:PCT, dedupe:PCT): each mode's fill and what its check still
 * tells apart. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "content.h"
#include "test.h"

#define LEN 8192

static const struct content_key K = {.seed = 0x1234567890abcdefull, .fs = 0, .file = 7};
static const struct content_key K_OTHER = {.seed = 0x1234567890abcdefull, .fs = 0, .file = 8};
static const struct content_key K_OTHER_FS = {.seed = 0x1234567890abcdefull, .fs = 1, .file = 7};
static const struct content_key K_OTHER_SEED = {.seed = 99, .fs = 0, .file = 7};

static unsigned char a[LEN], b[LEN];

static void test_deterministic(void)
{
	content_fill(a, LEN, &K, 3, 0);
	content_fill(b, LEN, &K, 3, 0);
	CHECK(memcmp(a, b, LEN) == 0);
}

/* Pieces of odd sizes at odd offsets, concatenated, equal one fill. */
static void test_pieces(void)
{
	content_fill(a, LEN, &K, 5, 1000);
	static const size_t cuts[] = {1, 7, 3, 500, 13, 1, 2048, 9, 511, 512, 4096};
	size_t at = 0;
	for (size_t n = 0; at < LEN; n++) {
		size_t len = cuts[n % (sizeof(cuts) / sizeof(cuts[0]))];
		if (len > LEN - at)
			len = LEN - at;
		content_fill(b + at, len, &K, 5, 1000 + at);
		at += len;
	}
	CHECK(memcmp(a, b, LEN) == 0);
	/* and a piece equals the middle of a bigger fill */
	content_fill(b, 100, &K, 5, 1000 + 333);
	CHECK(memcmp(a + 333, b, 100) == 0);
}

static size_t same_bytes(const unsigned char *x, const unsigned char *y, size_t n)
{
	size_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += x[i] == y[i];
	return s;
}

static void test_differ(void)
{
	content_fill(a, LEN, &K, 1, 0);
	content_fill(b, LEN, &K_OTHER, 1, 0);
	CHECK(same_bytes(a, b, LEN) < LEN / 8);
	content_fill(b, LEN, &K_OTHER_FS, 1, 0);
	CHECK(same_bytes(a, b, LEN) < LEN / 8);
	content_fill(b, LEN, &K_OTHER_SEED, 1, 0);
	CHECK(same_bytes(a, b, LEN) < LEN / 8);
	content_fill(b, LEN, &K, 2, 0);
	CHECK(same_bytes(a, b, LEN) < LEN / 4);
	content_fill(b, LEN, &K, 1, 512); /* the same generation, another offset */
	CHECK(same_bytes(a, b, LEN) < LEN / 8);
	/* the header says file, generation and offset */
	content_fill(a, 512, &K, 9, 4096);
	uint64_t w0, w1;
	memcpy(&w0, a, 8);
	memcpy(&w1, a + 8, 8);
	CHECK_EQ_U(w0 & 0xffffffffu, 7);
	CHECK_EQ_U(w0 >> 32, 9);
	CHECK_EQ_U(w1, 4096);
}

static void test_ok(void)
{
	struct content_finding f;
	content_fill(a, LEN, &K, 4, 0);
	CHECK_EQ_U(content_check(a, LEN, &K, 0, 1, 4, &f), 0);
	CHECK_EQ_U(f.verdict, CONTENT_OK);
	CHECK_EQ_U(content_check(a, LEN, &K, 0, 4, 4, &f), 0);
	/* unaligned sub-ranges */
	CHECK_EQ_U(content_check(a + 13, 1001, &K, 13, 1, 9, &f), 0);
	CHECK_EQ_U(content_check(a + 517, 3, &K, 517, 1, 9, &f), 0);
	CHECK_EQ_U(content_check(a + 20, 1, &K, 20, 4, 4, &f), 0);
}

/* Generations joined anywhere: in a header word, in the check word, in the payload, several
 * in one block, and a write of a few bytes inside one word. */
static void test_joins(void)
{
	struct content_finding f;
	static const size_t at[] = {1, 5, 8, 12, 17, 23, 24, 29, 300, 511, 512, 513, 1027};
	for (size_t n = 0; n < sizeof(at) / sizeof(at[0]); n++) {
		content_fill(a, LEN, &K, 2, 0);
		content_fill(a + at[n], LEN - at[n], &K, 3, at[n]);
		CHECK_EQ_U(content_check(a, LEN, &K, 0, 1, 3, &f), 0);
		CHECK_EQ_U(content_check(a, LEN, &K, 0, 2, 5, &f), 0);
	}
	content_fill(a, LEN, &K, 1, 0);
	content_fill(a + 100, 77, &K, 6, 100);
	content_fill(a + 150, 1000, &K, 4, 150);
	content_fill(a + 4000, 5, &K, 5, 4000); /* 5 bytes from a word's start */
	CHECK_EQ_U(content_check(a, LEN, &K, 0, 1, 6, &f), 0);
	/* a range that starts a byte before a join a byte into the next word */
	content_fill(a, LEN, &K, 1, 0);
	content_fill(a + 6001, 100, &K, 2, 6001);
	CHECK_EQ_U(content_check(a + 5999, 50, &K, 5999, 1, 2, &f), 0);
	/* but gen 1 is not acceptable from 2 on: the first bad byte is its generation's first
	 * (the file id bytes are the same in every generation) */
	CHECK_EQ_U(content_check(a, LEN, &K, 0, 2, 6, &f), 1);
	CHECK_EQ_U(f.off, 4);
	CHECK_EQ_U(f.gen_found, 1);
	/* a range from inside a header of generation 16 over a payload of 9 (the write of 16
	 * ended in the header) */
	content_fill(a, LEN, &K, 9, 0);
	content_fill(a + 1024, 20, &K, 16, 1024);
	for (uint64_t q = 1024; q < 1024 + 24; q++)
		CHECK_EQ_U(content_check(a + q, 600, &K, q, 1, 16, &f), 0);
}

static void test_zeroed(void)
{
	struct content_finding f;
	content_fill(a, LEN, &K, 2, 0);
	memset(a + 1024, 0, 512);
	CHECK_EQ_U(content_check(a, LEN, &K, 0, 1, 2, &f), 1);
	CHECK_EQ_U(f.verdict, CONTENT_ZERO);
	CHECK_EQ_U(f.off, 1024);
	CHECK_EQ_U(f.gen_found, 0);
	CHECK_EQ_U(f.gen_expected, 2);
	CHECK_EQ_U(f.shown, CONTENT_SHOW);
	CHECK(memcmp(f.expected, a + 1023, 1) != 0 || 1); /* expected is gen 2 from 1024 */
	content_fill(b, CONTENT_SHOW, &K, 2, 1024);
	CHECK(memcmp(f.expected, b, CONTENT_SHOW) == 0);
	CHECK(f.found[0] == 0 && f.found[CONTENT_SHOW - 1] == 0);
	CHECK(strcmp(content_verdict_name(f.verdict), "zeroed") == 0);
}

static void test_stale(void)
{
	struct content_finding f;
	content_fill(a, LEN, &K, 5, 0);
	content_fill(a + 2048, 512, &K, 2, 2048); /* an old block */
	CHECK_EQ_U(content_check(a, LEN, &K, 0, 5, 5, &f), 1);
	CHECK_EQ_U(f.verdict, CONTENT_STALE);
	CHECK_EQ_U(f.off, 2048 + 4); /* the file id bytes are the same in every generation */
	CHECK_EQ_U(f.gen_found, 2);
	CHECK_EQ_U(f.gen_expected, 5);
	CHECK_EQ_U(content_check(a, LEN, &K, 0, 2, 5, &f), 0); /* 2 is acceptable here */
	/* the whole range stale */
	content_fill(a, LEN, &K, 1, 0);
	CHECK_EQ_U(content_check(a + 24, 100, &K, 24, 3, 4, &f), 1);
	CHECK_EQ_U(f.verdict, CONTENT_STALE);
	CHECK_EQ_U(f.off, 24);
	CHECK_EQ_U(f.gen_found, 1);
}

static void test_torn(void)
{
	struct content_finding f;
	/* header of generation 3, payload of 2, where only 3 is acceptable */
	content_fill(a, LEN, &K, 3, 0);
	content_fill(a + 512 + 24, 488, &K, 2, 512 + 24);
	CHECK_EQ_U(content_check(a, LEN, &K, 0, 3, 3, &f), 1);
	CHECK_EQ_U(f.verdict, CONTENT_TORN);
	CHECK_EQ_U(f.off, 512 + 24);
	CHECK_EQ_U(f.gen_found, 2);
	/* half a block zeroed */
	content_fill(a, LEN, &K, 3, 0);
	memset(a + 1024 + 256, 0, 256);
	CHECK_EQ_U(content_check(a, LEN, &K, 0, 1, 3, &f), 1);
	CHECK_EQ_U(f.verdict, CONTENT_TORN);
	CHECK_EQ_U(f.off, 1024 + 256);
	/* header of another file on this file's payload */
	content_fill(a, LEN, &K, 3, 0);
	content_fill(a + 1536, 8, &K_OTHER, 3, 1536);
	CHECK_EQ_U(content_check(a, LEN, &K, 0, 1, 3, &f), 1);
	CHECK_EQ_U(f.verdict, CONTENT_TORN);
	CHECK_EQ_U(f.off, 1536);
	CHECK(strcmp(content_verdict_name(CONTENT_TORN), "torn") == 0);
}

static void test_foreign(void)
{
	struct content_finding f;
	/* another file's block */
	content_fill(a, LEN, &K, 2, 0);
	content_fill(a + 3072, 512, &K_OTHER, 2, 3072);
	CHECK_EQ_U(content_check(a, LEN, &K, 0, 1, 2, &f), 1);
	CHECK_EQ_U(f.verdict, CONTENT_FOREIGN);
	CHECK_EQ_U(f.off, 3072);
	CHECK_EQ_U(f.gen_found, 0);
	/* this file's block from another offset */
	content_fill(a, LEN, &K, 2, 0);
	content_fill(a + 3072, 512, &K, 2, 6144);
	CHECK_EQ_U(content_check(a, LEN, &K, 0, 1, 2, &f), 1);
	CHECK_EQ_U(f.verdict, CONTENT_FOREIGN);
	CHECK_EQ_U(f.off, 3072 + 9); /* the offset word's first differing byte (3072 vs 6144) */
	/* another tree's file of the same id */
	content_fill(a, LEN, &K_OTHER_SEED, 1, 0);
	CHECK_EQ_U(content_check(a, LEN, &K, 0, 1, 2, &f), 1);
	CHECK_EQ_U(f.verdict, CONTENT_FOREIGN);
	CHECK_EQ_U(f.off, 8 + 8); /* file id, gen and offset agree; the check word does not */
	/* one flipped byte */
	content_fill(a, LEN, &K, 2, 0);
	a[5000] ^= 0x01;
	CHECK_EQ_U(content_check(a, LEN, &K, 0, 1, 2, &f), 1);
	CHECK_EQ_U(f.off, 5000);
	CHECK(f.verdict == CONTENT_TORN || f.verdict == CONTENT_FOREIGN);
	CHECK_EQ_U(f.found[0] ^ f.expected[0], 0x01);
	CHECK_EQ_U(f.gen_found,
	           0); /* the flipped byte is no generation's, though its block is 2's */
	/* one flipped byte in a file of many generations (5000 acceptable for each byte) */
	content_fill(a, LEN, &K, 1, 0);
	for (uint32_t g = 2; g <= 5000; g += 100) {
		uint64_t o = (g * 131u) % (LEN - 1000);
		content_fill(a + o, 1000, &K, g, o);
	}
	CHECK_EQ_U(content_check(a, LEN, &K, 0, 1, 5000, &f), 0);
	for (size_t at = 100; at < LEN; at += 997) {
		a[at] ^= 0x80;
		CHECK_EQ_U(content_check(a, LEN, &K, 0, 1, 5000, &f), 1);
		CHECK_EQ_U(f.off, at);
		a[at] ^= 0x80;
	}
}

/* gen_min and gen_max bound what is acceptable. */
static void test_bounds(void)
{
	struct content_finding f;
	content_fill(a, LEN, &K, 7, 0);
	CHECK_EQ_U(content_check(a, LEN, &K, 0, 7, 7, &f), 0);
	CHECK_EQ_U(content_check(a, LEN, &K, 0, 1, 7, &f), 0);
	CHECK_EQ_U(content_check(a, LEN, &K, 0, 8, 9, &f), 1);
	CHECK_EQ_U(f.verdict, CONTENT_STALE);
	CHECK_EQ_U(f.gen_found, 7);
	CHECK_EQ_U(content_check(a, LEN, &K, 0, 1, 6, &f), 1); /* a generation from the future */
	CHECK_EQ_U(f.verdict, CONTENT_FOREIGN);
	CHECK_EQ_U(f.gen_found, 7);
	CHECK_EQ_U(f.off, 4);
	/* gen_min 0 means 1: zeros are never generation 0 content */
	memset(a, 0, 512);
	CHECK_EQ_U(content_check(a, 512, &K, 0, 0, 3, &f), 1);
	CHECK_EQ_U(f.verdict, CONTENT_ZERO);
	CHECK_EQ_U(f.off, 0);
	CHECK(content_check(a, 512, &K, 0, 0, 3, NULL) == 1);
}

/* ---- content modes ---- */

#define MLEN (256 * 1024)
static unsigned char ma[MLEN], mb[MLEN];

static struct content_key mode_key(const char *text, uint32_t file)
{
	struct content_key k = {.seed = 0x1234567890abcdefull, .fs = 0, .file = file};
	char err[128];
	CHECK_EQ_U(content_parse(text, &k.mode, &k.pct, err, sizeof(err)), 0);
	return k;
}

static void test_mode_parse(void)
{
	uint8_t m = 9, p = 9;
	char err[128], name[32];
	CHECK_EQ_U(content_parse("random", &m, &p, err, sizeof(err)), 0);
	CHECK_EQ_U(m, CONTENT_MODE_RANDOM);
	CHECK_EQ_U(content_parse("zero", &m, &p, err, sizeof(err)), 0);
	CHECK_EQ_U(m, CONTENT_MODE_ZERO);
	CHECK_EQ_U(content_parse("compressible:50", &m, &p, err, sizeof(err)), 0);
	CHECK_EQ_U(m, CONTENT_MODE_COMPRESS);
	CHECK_EQ_U(p, 50);
	content_name(m, p, name, sizeof(name));
	CHECK(strcmp(name, "compressible:50") == 0);
	CHECK_EQ_U(content_parse("dedupe:100", &m, &p, err, sizeof(err)), 0);
	CHECK_EQ_U(m, CONTENT_MODE_DEDUPE);
	CHECK_EQ_U(p, 100);
	CHECK_EQ_U(content_parse("header", &m, &p, err, sizeof(err)), 0);
	CHECK_EQ_U(m, CONTENT_MODE_HEADER);
	content_name(m, p, name, sizeof(name));
	CHECK(strcmp(name, "header") == 0);
	static const char *const bad[] = {
	    "",          "zeros",     "compressible", "compressible:", "compressible:101",
	    "dedupe:-1", "dedupe:3x", "zero:5",       "random:1",      "compressible: 5",
	    "header:1"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_EQ_U(content_parse(bad[i], &m, &p, err, sizeof(err)), (uint64_t)-1);
	CHECK(strstr(err, "percentage") != NULL);
}

/* Every mode: deterministic, cut-proof, a header in each block of the file's own, checked. */
static void test_mode_fill_check(void)
{
	static const char *const modes[] = {"random",
	                                    "zero",
	                                    "compressible:0",
	                                    "compressible:50",
	                                    "compressible:90",
	                                    "compressible:100",
	                                    "dedupe:0",
	                                    "dedupe:30",
	                                    "dedupe:100",
	                                    "header",
	                                    "fixed"};
	static const size_t cuts[] = {1, 7, 3, 500, 13, 1, 2048, 9, 511, 512, 4096, 5000};
	struct content_finding f;
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		struct content_key k = mode_key(modes[m], 7);
		content_fill(a, LEN, &k, 5, 1000);
		size_t at = 0;
		for (size_t n = 0; at < LEN; n++) {
			size_t len = cuts[n % (sizeof(cuts) / sizeof(cuts[0]))];
			if (len > LEN - at)
				len = LEN - at;
			content_fill(b + at, len, &k, 5, 1000 + at);
			at += len;
		}
		CHECK(memcmp(a, b, LEN) == 0);
		content_fill(a, LEN, &k, 4, 0);
		CHECK_EQ_U(content_check(a, LEN, &k, 0, 1, 4, &f), 0);
		CHECK_EQ_U(content_check(a + 13, 3001, &k, 13, 4, 4, &f), 0);
		/* generations joined anywhere */
		content_fill(a + 777, 2000, &k, 6, 777);
		content_fill(a + 5000, 3, &k, 7, 5000);
		CHECK_EQ_U(content_check(a, LEN, &k, 0, 1, 7, &f), 0);
		/* a zeroed block is zeroed; a flipped byte is found where it is */
		content_fill(a, LEN, &k, 3, 0);
		memset(a + 4096, 0, 512);
		CHECK_EQ_U(content_check(a, LEN, &k, 0, 1, 3, &f), 1);
		CHECK_EQ_U(f.verdict, CONTENT_ZERO);
		CHECK_EQ_U(f.off, 4096);
		content_fill(a, LEN, &k, 3, 0);
		for (size_t q = 40; q < LEN; q += 1499) {
			a[q] ^= 0x10;
			CHECK_EQ_U(content_check(a, LEN, &k, 0, 1, 3, &f), 1);
			CHECK_EQ_U(f.off, q);
			a[q] ^= 0x10;
		}
		/* another file's content is not this file's (with dedupe:100 every chunk is a pool
		 * chunk: another file's may be the same) */
		struct content_key o = mode_key(modes[m], 8);
		content_fill(b, LEN, &o, 3, 0);
		if ((k.mode != CONTENT_MODE_DEDUPE || k.pct < 100) && k.mode != CONTENT_MODE_FIXED)
			CHECK_EQ_U(content_check(b, LEN, &k, 0, 1, 3, &f), 1);
	}
}

/* fixed: no header, the same bytes in every tree, file and generation, repeating every 512
 * bytes; the check tells only the pattern from zeros (zeroed) and anything else (foreign). */
static void test_mode_fixed(void)
{
	uint8_t m = 9, p = 9;
	char err[128], name[32];
	CHECK_EQ_U(content_parse("fixed", &m, &p, err, sizeof(err)), 0);
	CHECK_EQ_U(m, CONTENT_MODE_FIXED);
	content_name(m, p, name, sizeof(name));
	CHECK(strcmp(name, "fixed") == 0);
	CHECK_EQ_U(content_parse("fixed:1", &m, &p, err, sizeof(err)), (uint64_t)-1);
	CHECK_EQ_U(content_parse("auto", &m, &p, err, sizeof(err)), (uint64_t)-1); /* the plan's */

	struct content_key k = mode_key("fixed", 7);
	struct content_key other = {.seed = 99, .fs = 3, .file = 1234, .mode = CONTENT_MODE_FIXED};
	content_fill(a, LEN, &k, 5, 1000);
	content_fill(b, LEN, &other, 77, 1000); /* another tree, file and generation: the same */
	CHECK(memcmp(a, b, LEN) == 0);
	content_fill(b, LEN - 1512, &k, 1, 1512); /* 512 bytes later: the same again */
	CHECK(memcmp(a, b, LEN - 1512) == 0);
	CHECK(memcmp(a, a + 1, 64) != 0); /* not a constant byte */
	for (size_t at = 0, n = 1; at < LEN; at += n, n = n * 3 % 1013 + 1) /* any cut */
		content_fill(b + at, n < LEN - at ? n : LEN - at, &k, 2, 1000 + at);
	CHECK(memcmp(a, b, LEN) == 0);
	struct content_key h = mode_key("header", 7);

	struct content_finding f;
	content_fill(a, LEN, &k, 1, 0);
	CHECK_EQ_U(content_check(a, LEN, &k, 0, 1, 1, &f), 0);
	CHECK_EQ_U(f.verdict, CONTENT_OK);
	CHECK_EQ_U(content_check(a + 13, 3001, &k, 13, 9, 9, &f), 0); /* any generation */
	CHECK_EQ_U(content_newest(a, LEN, &k, 0), 0);
	memset(a + 4096, 0, 512);
	CHECK_EQ_U(content_check(a, LEN, &k, 0, 1, 1, &f), 1);
	CHECK_EQ_U(f.verdict, CONTENT_ZERO);
	CHECK_EQ_U(f.off, 4096);
	CHECK_EQ_U(f.shown, CONTENT_SHOW);
	CHECK_EQ_U(f.found[0], 0);
	content_fill(a, LEN, &k, 1, 0);
	for (size_t q = 40; q < LEN; q += 1499) {
		uint8_t was = (uint8_t)a[q];
		a[q] ^= 0x10;
		CHECK_EQ_U(content_check(a, LEN, &k, 0, 1, 1, &f), 1);
		CHECK_EQ_U(f.verdict, CONTENT_FOREIGN);
		CHECK_EQ_U(f.off, q);
		CHECK_EQ_U(f.expected[0], was);
		CHECK_EQ_U(f.found[0], (uint8_t)(was ^ 0x10));
		a[q] ^= 0x10;
	}
	content_fill(b, LEN, &h, 1, 0); /* header content is not fixed content */
	CHECK_EQ_U(content_check(b, LEN, &k, 0, 1, 1, &f), 1);
	CHECK_EQ_U(f.verdict, CONTENT_FOREIGN);
	CHECK_EQ_U(f.off, 0);
}

/* zero: a block is its 24-byte header and zeros; the header still tells stale and foreign
 * blocks, the payload nothing (a torn block of two generations passes). */
static void test_mode_zero(void)
{
	struct content_key k = mode_key("zero", 7);
	struct content_finding f;
	content_fill(a, LEN, &k, 5, 0);
	for (size_t blk = 0; blk < LEN; blk += 512) {
		uint64_t w0, w1;
		memcpy(&w0, a + blk, 8);
		memcpy(&w1, a + blk + 8, 8);
		CHECK_EQ_U(w0, 7 | (uint64_t)5 << 32);
		CHECK_EQ_U(w1, blk);
		size_t zeros = 0;
		for (size_t q = 24; q < 512; q++)
			zeros += a[blk + q] == 0;
		CHECK_EQ_U(zeros, 488);
	}
	content_fill(a + 2048, 512, &k, 2, 2048); /* an old block */
	CHECK_EQ_U(content_check(a, LEN, &k, 0, 5, 5, &f), 1);
	CHECK_EQ_U(f.verdict, CONTENT_STALE);
	CHECK_EQ_U(f.gen_found, 2);
	/* an old header: the payload cannot say which generation it is */
	content_fill(a, LEN, &k, 5, 0);
	content_fill(a + 2048 + 24, 488, &k, 2, 2048 + 24);
	CHECK_EQ_U(content_check(a, LEN, &k, 0, 5, 5, &f), 0);
	/* zeros in the payload are content, zeros in the header are not */
	memset(a + 3072, 0, 8);
	CHECK_EQ_U(content_check(a, LEN, &k, 0, 1, 5, &f), 1);
	CHECK_EQ_U(f.off, 3072);
	/* random content where zeros belong: torn (the header is good) */
	struct content_key r = mode_key("random", 7);
	content_fill(a, LEN, &k, 5, 0);
	content_fill(a + 1024 + 100, 50, &r, 5, 1024 + 100);
	CHECK_EQ_U(content_check(a, LEN, &k, 0, 1, 5, &f), 1);
	CHECK_EQ_U(f.verdict, CONTENT_TORN);
	CHECK_EQ_U(f.off, 1024 + 100);
}

/* compressible:PCT: the block's first round(64 (100 - PCT) / 100) words (at least the 3 of the
 * header) are header and random payload, the rest zeros. */
static void test_mode_compressible(void)
{
	static const unsigned pcts[] = {0, 10, 25, 50, 75, 90, 100};
	struct content_finding f;
	for (size_t n = 0; n < sizeof(pcts) / sizeof(pcts[0]); n++) {
		char text[32];
		snprintf(text, sizeof(text), "compressible:%u", pcts[n]);
		struct content_key k = mode_key(text, 7);
		content_fill(a, LEN, &k, 3, 0);
		unsigned nr = (64 * (100 - pcts[n]) + 50) / 100;
		if (nr < 3)
			nr = 3;
		size_t zw = 0;
		for (size_t w = 0; w < LEN / 8; w++) {
			uint64_t v;
			memcpy(&v, a + 8 * w, 8);
			zw += v == 0 && w % 64 >= 3;
			if (w % 64 >= nr)
				CHECK_EQ_U(v, 0);
		}
		CHECK_EQ_U(zw, (LEN / 512) * (64 - nr));
		/* the random words still carry the generation: a stale payload word is found */
		if (nr > 4) {
			content_fill(a + 512 + 32, 8, &k, 2, 512 + 32);
			CHECK_EQ_U(content_check(a, LEN, &k, 0, 3, 3, &f), 1);
			CHECK_EQ_U(f.off, 512 + 32);
			CHECK_EQ_U(f.verdict, CONTENT_TORN);
			CHECK_EQ_U(f.gen_found, 2);
		}
	}
}

/* dedupe:PCT: about PCT % of the 4 KiB chunks are one of CONTENT_DEDUPE_POOL pool chunks,
 * whole, the same in every file of the seed and in every generation; the others are random
 * content. */
static void test_mode_dedupe(void)
{
	struct content_finding f;
	static const unsigned pcts[] = {10, 30, 50, 90};
	for (size_t n = 0; n < sizeof(pcts) / sizeof(pcts[0]); n++) {
		char text[32];
		snprintf(text, sizeof(text), "dedupe:%u", pcts[n]);
		struct content_key k = mode_key(text, 7);
		struct content_key r = mode_key("random", 7);
		size_t chunks = 0, dups = 0;
		unsigned char pool[CONTENT_DEDUPE_POOL][4096];
		size_t n_pool = 0;
		for (uint32_t file = 0; file < 8; file++) {
			struct content_key kf = mode_key(text, file), rf = mode_key("random", file);
			content_fill(ma, MLEN, &kf, 1 + file, 0);
			content_fill(mb, MLEN, &rf, 1 + file, 0);
			/* every pool chunk is somewhere in these files, and checks (chunk 0 too) */
			CHECK_EQ_U(content_check(ma, MLEN, &kf, 0, 1 + file, 1 + file, &f), 0);
			for (size_t c = 0; c < MLEN; c += 4096, chunks++) {
				if (!memcmp(ma + c, mb + c, 4096))
					continue; /* the file's own chunk: random content */
				dups++;
				size_t p = 0;
				while (p < n_pool && memcmp(pool[p], ma + c, 4096))
					p++;
				if (p == n_pool && n_pool < CONTENT_DEDUPE_POOL)
					memcpy(pool[n_pool++], ma + c, 4096);
				CHECK(p < CONTENT_DEDUPE_POOL);
			}
		}
		/* 512 chunks: the fraction is binomial, sd 2.2 % at 50 % */
		double pct = 100.0 * (double)dups / (double)chunks;
		CHECK(pct > pcts[n] - 7.0 && pct < pcts[n] + 7.0);
		CHECK_EQ_U(n_pool, CONTENT_DEDUPE_POOL);
		/* duplicates are the same whatever the generation: a chunk of another file's
		 * generation 9 at a duplicate place still checks */
		content_fill(ma, MLEN, &k, 3, 0);
		content_fill(mb, MLEN, &r, 3, 0);
		size_t d = 0;
		while (d < MLEN && !memcmp(ma + d, mb + d, 4096))
			d += 4096;
		CHECK(d < MLEN);
		if (d >= MLEN)
			continue;
		content_fill(ma + d, 4096, &k, 9, d);
		CHECK_EQ_U(content_check(ma, MLEN, &k, 0, 1, 3, &f), 0);
		/* a pool chunk where the file has its own: foreign */
		size_t own = 0;
		while (own < MLEN && memcmp(ma + own, mb + own, 4096))
			own += 4096;
		CHECK(own < MLEN);
		if (own >= MLEN)
			continue;
		memcpy(ma + own, ma + d, 4096);
		CHECK_EQ_U(content_check(ma, MLEN, &k, 0, 1, 3, &f), 1);
		CHECK_EQ_U(f.verdict, CONTENT_FOREIGN);
		CHECK_EQ_U(f.off, own);
		/* and the file's own content where a duplicate belongs: foreign too */
		content_fill(ma, MLEN, &k, 3, 0);
		memcpy(ma + d, mb + d, 4096);
		CHECK_EQ_U(content_check(ma, MLEN, &k, 0, 1, 3, &f), 1);
		CHECK_EQ_U(f.verdict, CONTENT_FOREIGN);
		CHECK_EQ_U(f.off, d);
		/* a zeroed duplicate chunk: zeroed */
		content_fill(ma, MLEN, &k, 3, 0);
		memset(ma + d, 0, 4096);
		CHECK_EQ_U(content_check(ma, MLEN, &k, 0, 1, 3, &f), 1);
		CHECK_EQ_U(f.verdict, CONTENT_ZERO);
		CHECK_EQ_U(f.off, d);
	}
}

/* No false mismatch in any mode: a file rewritten by random writes of 2..5001 bytes (400
 * generations joined anywhere) checks whole and in random sub-ranges; and a flipped byte
 * (outside a block's first word) is found, zeros and duplicate chunks included. */
static void test_mode_random_writes(void)
{
	static const char *const modes[] = {"random",    "zero",       "compressible:50",
	                                    "dedupe:30", "dedupe:100", "header"};
	struct content_finding f;
	uint64_t x = 0x2545f4914f6cdd1dull;
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		struct content_key k = mode_key(modes[m], 11);
		content_fill(ma, 65536, &k, 1, 0);
		uint32_t g = 1;
		for (int n = 0; n < 400; n++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			size_t len = 2 + (size_t)(x % 5000),
			       off = (size_t)((x >> 20) % (65536 - len));
			content_fill(ma + off, len, &k, ++g, off);
		}
		CHECK_EQ_U(content_check(ma, 65536, &k, 0, 1, g, &f), 0);
		for (int n = 0; n < 200; n++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			size_t len = 1 + (size_t)(x % 9000),
			       off = (size_t)((x >> 20) % (65536 - len));
			CHECK_EQ_U(content_check(ma + off, len, &k, off, 1, g, &f), 0);
		}
		size_t found = 0, tried = 0;
		for (size_t q = 5; q < 65536; q += 73) {
			if (q % 512 < 8)
				continue; /* word 0: generations may join in it (docs/output.md,
				           * "Limits") */
			tried++;
			ma[q] ^= 0x04;
			found += content_check(ma, 65536, &k, 0, 1, g, &f) == 1 && f.off == q;
			ma[q] ^= 0x04;
		}
		CHECK(tried > 0);
		if (found * 100 < tried * 95)
			TEST_FAIL("%s: %zu of %zu flips found", modes[m], found, tried);
	}
}

/* header: the payload is one fixed pattern (the seed's, by offset mod 512) in every file and
 * generation; the writers' path (content_pattern once, content_headers per write from
 * pattern + off % 512) gives a fill's bytes; the header tells stale, foreign, misplaced and
 * zeroed blocks; a zeroed payload byte is found; a torn block cannot show. */
static void test_mode_header(void)
{
	struct content_key k = mode_key("header", 7), o = mode_key("header", 8);
	struct content_key s = k;
	s.seed ^= 1;
	struct content_finding f;
	content_fill(a, LEN, &k, 5, 0);
	content_fill(b, LEN, &o, 9, 0);
	for (size_t q = 0; q < LEN; q++) /* the same payload in another file and generation */
		if (q % 512 >= 24 && a[q] != b[q])
			TEST_FAIL("payload byte %zu differs between files", q);
	content_fill(b, LEN, &s, 5, 0); /* ... but not with another seed */
	CHECK(same_bytes(a, b, LEN) < LEN / 8);
	/* the periodic buffer: writes at any offset and length, headers only */
	static unsigned char pat[LEN + 512], got[LEN];
	memset(pat, 0xa5, sizeof(pat));
	content_pattern(pat, sizeof(pat), &k);
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (int n = 0; n < 300; n++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size_t len = 1 + (size_t)(x % LEN);
		uint64_t off = (x >> 20) % 100000;
		uint32_t g = 1 + (uint32_t)(x >> 50) % 1000;
		unsigned char *src = pat + off % 512;
		content_headers(src, len, &k, g, off);
		content_fill(got, len, &k, g, off);
		if (memcmp(src, got, len))
			TEST_FAIL("periodic buffer at %llu+%zu differs from a fill",
			          (unsigned long long)off, len);
	}
	/* ... and at the edges: a header cut at either end, one block, several, none whole */
	static const uint64_t offs[] = {0, 1, 8, 23, 24, 25, 488, 511, 512, 513, 1000, 4096};
	static const size_t lens[] = {1, 8, 23, 24, 25, 511, 512, 513, 536, 1023, 1024, 1048, 5000};
	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
		for (size_t j = 0; j < sizeof(lens) / sizeof(lens[0]); j++) {
			unsigned char *src = pat + offs[i] % 512;
			content_headers(src, lens[j], &k, 77, offs[i]);
			content_fill(got, lens[j], &k, 77, offs[i]);
			if (memcmp(src, got, lens[j]))
				TEST_FAIL("periodic buffer at %llu+%zu differs from a fill",
				          (unsigned long long)offs[i], lens[j]);
		}
	/* pieces concatenate; generations joined anywhere (mid-header too) are accepted */
	content_fill(a, LEN, &k, 3, 0);
	for (size_t q = 1; q < LEN; q += 337) {
		content_fill(a + q, LEN - q, &k, 4, q);
		CHECK_EQ_U(content_check(a, LEN, &k, 0, 3, 4, &f), 0);
		CHECK_EQ_U(content_check(a + q / 2, LEN - q, &k, q / 2, 3, 4, &f), 0);
		content_fill(a, LEN, &k, 3, 0);
	}
	/* a whole stale block, a foreign block, a misplaced block, a zeroed block */
	content_fill(a + 1024, 512, &k, 2, 1024);
	CHECK_EQ_U(content_check(a, LEN, &k, 0, 3, 3, &f), 1);
	CHECK_EQ_U(f.verdict, CONTENT_STALE);
	CHECK_EQ_U(f.off, 1024 + 4); /* the generation's bytes of word 0 */
	content_fill(a, LEN, &k, 3, 0);
	content_fill(a + 1024, 512, &o, 3, 1024);
	CHECK_EQ_U(content_check(a, LEN, &k, 0, 1, 3, &f), 1);
	CHECK_EQ_U(f.off, 1024);
	content_fill(a, LEN, &k, 3, 0);
	content_fill(a + 1024, 512, &k, 3, 2048);
	CHECK_EQ_U(content_check(a, LEN, &k, 0, 1, 3, &f), 1);
	CHECK_EQ_U(f.off, 1024 + 9);
	content_fill(a, LEN, &k, 3, 0);
	memset(a + 3072, 0, 512);
	CHECK_EQ_U(content_check(a, LEN, &k, 0, 1, 3, &f), 1);
	CHECK_EQ_U(f.verdict, CONTENT_ZERO);
	CHECK_EQ_U(f.off, 3072);
	/* a zeroed payload byte, a zeroed header byte, and a partial header at the range's ends */
	content_fill(a, LEN, &k, 3, 0);
	for (size_t q = 30; q < LEN; q += 611) {
		unsigned char save = a[q];
		a[q] = save ? 0 : 1;
		CHECK_EQ_U(content_check(a, LEN, &k, 0, 1, 3, &f), 1);
		CHECK_EQ_U(f.off, q);
		a[q] = save;
	}
	content_fill(a, LEN, &k, 3, 0);
	CHECK_EQ_U(content_check(a + 517, 512 - 5 + 10, &k, 517, 3, 3, &f), 0);
	CHECK_EQ_U(content_check(a + 517, 512 - 5 + 10, &k, 517, 4, 4, &f), 1);
	/* the tail of a block after its header is the same in every generation: a lost write of
	 * it cannot show (docs/output.md, "Content modes") */
	content_fill(a, LEN, &k, 3, 0);
	content_fill(a + 512, 24, &k, 4, 512);
	CHECK_EQ_U(content_check(a + 512, 512, &k, 512, 4, 4, &f), 0);
}

/* The check's fast path for whole blocks (block_whole: header words, then the payload compared
 * with the C library's memcmp in header mode) misses no byte: in every mode, one byte changed
 * (its lowest bit, or its highest) at any position of four whole blocks read at a block
 * boundary, with one generation acceptable, is found, at that byte (or, for a byte of word 0's
 * generation, of the block's header, no later than it). */
static void test_mode_flip_every_byte(void)
{
	static const char *const modes[] = {"header", "random", "zero", "compressible:50",
	                                    "dedupe:30"};
	static const unsigned char flips[] = {0x01, 0x80};
	enum { N = 4 * 512 };
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		struct content_key k = mode_key(modes[m], 7);
		struct content_finding f;
		uint64_t off = 64 * 1024;
		content_fill(a, N, &k, 5, off);
		CHECK_EQ_U(content_check(a, N, &k, off, 5, 5, &f), 0);
		size_t missed = 0, wrong = 0;
		for (size_t q = 0; q < N; q++)
			for (size_t x = 0; x < sizeof(flips); x++) {
				a[q] ^= flips[x];
				if (!content_check(a, N, &k, off, 5, 5, &f))
					missed++;
				else if (f.off > off + q || f.off < off + q - q % 512)
					wrong++;
				a[q] ^= flips[x];
			}
		if (missed || wrong)
			TEST_FAIL("%s: %zu of %d changed bytes missed, %zu found elsewhere",
			          modes[m], missed, 2 * N, wrong);
		CHECK_EQ_U(content_check(a, N, &k, off, 5, 5, &f), 0);
	}
}

int main(void)
{
	RUN(test_deterministic);
	RUN(test_pieces);
	RUN(test_differ);
	RUN(test_ok);
	RUN(test_joins);
	RUN(test_zeroed);
	RUN(test_stale);
	RUN(test_torn);
	RUN(test_foreign);
	RUN(test_bounds);
	RUN(test_mode_parse);
	RUN(test_mode_fill_check);
	RUN(test_mode_zero);
	RUN(test_mode_compressible);
	RUN(test_mode_dedupe);
	RUN(test_mode_random_writes);
	RUN(test_mode_header);
	RUN(test_mode_fixed);
	RUN(test_mode_flip_every_byte);
	return test_summary();
}
