/* test_content_gens.c - generations have no ceiling (content.h): content_check accepts files
 * rewritten past 65,536 generations (random 512-byte writes at byte offsets, so that remnants of
 * old generations -- a check word whose header a later write overwrote, a few bytes between two
 * later writes -- are everywhere), blocks of generations around 65,536 joined anywhere, and
 * windows that cross the 32-bit wrap; a stale, zeroed, foreign or flipped block is still
 * reported in such windows; and the gen_* helpers count on the circle, 0 skipped. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "content.h"
#include "test.h"

#define FLEN 65536

static unsigned char fa[FLEN];

static struct content_key key_of(uint8_t mode, uint8_t pct)
{
	return (struct content_key){
	    .seed = 0x5eed5eed12345678ull, .fs = 0, .file = 3, .mode = mode, .pct = pct};
}

static uint64_t xs(uint64_t *x)
{
	*x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
	return *x;
}

/* The issue's file: 64 KiB of generation first, then n writes of 512 bytes at random byte
 * offsets, generations first+1.. (skipping 0 past the wrap); returns the last. */
static uint32_t random_writes(const struct content_key *k, uint32_t first, unsigned n,
                              uint64_t seed)
{
	uint64_t x = seed;
	content_fill(fa, FLEN, k, first, 0);
	uint32_t g = first;
	for (unsigned w = 0; w < n; w++) {
		size_t off = (size_t)(xs(&x) % (FLEN - 512 + 1));
		g = gen_next(g);
		content_fill(fa + off, 512, k, g, off);
	}
	return g;
}

static void test_helpers(void)
{
	CHECK_EQ_U(gen_next(1), 2);
	CHECK_EQ_U(gen_next(UINT32_MAX), 1);
	CHECK_EQ_U(gen_add(UINT32_MAX - 1, 1), UINT32_MAX);
	CHECK_EQ_U(gen_add(UINT32_MAX - 1, 2), 1);
	CHECK_EQ_U(gen_add(UINT32_MAX, 8), 8);
	CHECK_EQ_U(gen_add(70000, 8), 70008);
	CHECK(gen_after(65537, 65536));
	CHECK(!gen_after(65536, 65536));
	CHECK(!gen_after(65535, 65536));
	CHECK(gen_after(1, UINT32_MAX));
	CHECK(gen_after(2, 0xfffffffeu));
	CHECK(!gen_after(0xfffffffeu, 2));
	CHECK(gen_in(70000, 1, 72000));
	CHECK(!gen_in(72001, 1, 72000));
	CHECK(gen_in(UINT32_MAX, 0xfffffffeu, 2));
	CHECK(gen_in(1, 0xfffffffeu, 2));
	CHECK(!gen_in(0, 0xfffffffeu, 2)); /* 0 is never written */
	CHECK(!gen_in(3, 0xfffffffeu, 2));
	CHECK(!gen_in(0xfffffffdu, 0xfffffffeu, 2));
	CHECK(gen_in(12345, 5, 4)); /* hi = lo - 1: every generation */
}

/* A block written at 70,000 and blocks of 65,535, 65,536, 65,537 and 70,000 joined at every
 * kind of place (in word 0's generation bytes, in the check word, on a word's edge, in the
 * payload), in every mode: acceptable in any window that holds them. */
static void test_around_65536(void)
{
	static const uint8_t modes[] = {CONTENT_MODE_HEADER, CONTENT_MODE_RANDOM,
	                                CONTENT_MODE_ZERO};
	static const size_t at[] = {5, 6, 13, 16, 17, 19, 21, 24, 27, 300, 509};
	static const uint32_t gens[] = {65535, 65536, 65537, 70000};
	struct content_finding f;
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		struct content_key k = key_of(modes[m], 0);
		content_fill(fa, 4096, &k, 70000, 0);
		CHECK_EQ_U(content_check(fa, 4096, &k, 0, 1, 72000, &f), 0);
		CHECK_EQ_U(content_check(fa, 4096, &k, 0, 70000, 70000, &f), 0);
		for (size_t n = 0; n < sizeof(at) / sizeof(at[0]); n++)
			for (size_t p = 0; p < 4; p++) {
				/* block 1 mixes three generations: p up to 512 + at, p + 1 up
				 * to 512 + at + 3 (a remnant of 3 bytes), p + 2 after */
				uint32_t g0 = gens[p], g1 = gens[(p + 1) % 4],
				         g2 = gens[(p + 2) % 4];
				content_fill(fa, 2048, &k, g0, 0);
				content_fill(fa + 512 + at[n], 1536 - at[n], &k, g1, 512 + at[n]);
				content_fill(fa + 515 + at[n], 1533 - at[n], &k, g2, 515 + at[n]);
				if (content_check(fa, 2048, &k, 0, 1, 70000, &f) ||
				    content_check(fa, 2048, &k, 0, 65535, 70000, &f) ||
				    content_check(fa + 512 + at[n], 100, &k, 512 + at[n], 2, 80000,
				                  &f))
					TEST_FAIL("mode %u, joins at %zu: %s at %llu", modes[m],
					          at[n], content_verdict_name(f.verdict),
					          (unsigned long long)f.off);
			}
		/* the check word of 65,535 under the header of 70,000 that ended at its start */
		content_fill(fa, 1024, &k, 65535, 0);
		content_fill(fa + 400, 528, &k, 70000, 400);
		CHECK_EQ_U(content_check(fa, 1024, &k, 0, 1, 70000, &f), 0);
	}
}

/* The issue's reproduction in memory: 72,000 random 512-byte writes over a 64 KiB file of
 * generation 1, in each mode: every range of it checks in [1, the last], the baseline's
 * "foreign" at a check word whose header a later write overwrote included. */
static void test_issue_72000(void)
{
	static const char *const modes[] = {"header", "random", "zero", "compressible:50",
	                                    "dedupe:30"};
	struct content_finding f;
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		struct content_key k = key_of(0, 0);
		char err[64];
		CHECK_EQ_U(content_parse(modes[m], &k.mode, &k.pct, err, sizeof(err)), 0);
		uint32_t g = random_writes(&k, 1, 72000, 0x9e3779b97f4a7c15ull + m);
		CHECK_EQ_U(g, 72001);
		if (content_check(fa, FLEN, &k, 0, 1, g, &f))
			TEST_FAIL("%s: %s at %llu (found %u)", modes[m],
			          content_verdict_name(f.verdict), (unsigned long long)f.off,
			          f.gen_found);
		uint64_t x = 77;
		for (int n = 0; n < 300; n++) {
			size_t len = 1 + (size_t)(xs(&x) % 5000),
			       off = (size_t)(xs(&x) % (FLEN - len));
			if (content_check(fa + off, len, &k, off, 1, g, &f))
				TEST_FAIL("%s: [%zu, +%zu): %s at %llu", modes[m], off, len,
				          content_verdict_name(f.verdict),
				          (unsigned long long)f.off);
		}
		/* and the window of the whole circle (verify=1 after a wrap) */
		CHECK_EQ_U(content_check(fa, FLEN, &k, 0, g + 1, g, &f), 0);
	}
}

/* Across the wrap: generations 0xfffffffe, 0xffffffff, then 1 and 2 (0 skipped), joined
 * anywhere, are accepted by a window that crosses the wrap; a stale one is reported stale,
 * one above the window foreign. */
static void test_wrap(void)
{
	static const uint8_t modes[] = {CONTENT_MODE_HEADER, CONTENT_MODE_RANDOM};
	struct content_finding f;
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		struct content_key k = key_of(modes[m], 0);
		content_fill(fa, 4096, &k, 0xfffffffeu, 0);
		content_fill(fa + 519, 700, &k, 0xffffffffu, 519);
		content_fill(fa + 1041, 1500, &k, 1, 1041);
		content_fill(fa + 1037, 3, &k, 2, 1037); /* a 3-byte remnant's neighbour */
		content_fill(fa + 3000, 17, &k, 2, 3000);
		CHECK_EQ_U(content_check(fa, 4096, &k, 0, 0xfffffffeu, 2, &f), 0);
		CHECK_EQ_U(content_check(fa, 4096, &k, 0, 0xfff00000u, 5, &f), 0);
		for (uint64_t q = 500; q < 1100; q += 7)
			CHECK_EQ_U(content_check(fa + q, 600, &k, q, 0xfffffffeu, 2, &f), 0);
		/* 0xfffffffe is stale in a window from 0xffffffff */
		CHECK_EQ_U(content_check(fa, 4096, &k, 0, 0xffffffffu, 2, &f), 1);
		CHECK_EQ_U(f.verdict, CONTENT_STALE);
		CHECK_EQ_U(f.off, 4); /* the file id bytes are the same in every generation */
		CHECK_EQ_U(f.gen_found, 0xfffffffeu);
		/* a block stale across the wrap: 0xfffffff0 where [0xfffffffe, 2] is promised */
		content_fill(fa + 2048, 512, &k, 0xfffffff0u, 2048);
		CHECK_EQ_U(content_check(fa, 4096, &k, 0, 0xfffffffeu, 2, &f), 1);
		CHECK_EQ_U(f.verdict, CONTENT_STALE);
		CHECK_EQ_U(f.off, 2048 + 4);
		CHECK_EQ_U(f.gen_found, 0xfffffff0u);
		/* a block of generation 5 where at most 2 was written: above the window */
		content_fill(fa + 2048, 512, &k, 5, 2048);
		CHECK_EQ_U(content_check(fa, 4096, &k, 0, 0xfffffffeu, 2, &f), 1);
		CHECK_EQ_U(f.verdict, CONTENT_FOREIGN);
		CHECK_EQ_U(f.gen_found, 5);
		/* the window of the whole circle accepts it */
		CHECK_EQ_U(content_check(fa, 4096, &k, 0, 3, 2, &f), 0);
	}
	/* the issue's file across the wrap: written from 0xffff0000 on, 72,000 generations */
	struct content_key k = key_of(CONTENT_MODE_HEADER, 0);
	uint32_t g = random_writes(&k, 0xffff0000u, 72000, 42);
	CHECK_EQ_U(g, 0xffff0000u + 72000u + 1u); /* 0 skipped */
	CHECK_EQ_U(content_check(fa, FLEN, &k, 0, 0xffff0000u, g, &f), 0);
}

/* Wide windows still tell what is wrong: a zeroed block, another file's block, a flipped
 * byte in a block of one generation, in windows of 2^20 and of every generation. */
static void test_wide_still_checks(void)
{
	static const uint8_t modes[] = {CONTENT_MODE_HEADER, CONTENT_MODE_RANDOM};
	struct content_finding f;
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		struct content_key k = key_of(modes[m], 0), other = k;
		other.file = 4;
		static const uint32_t lo[] = {1, 1, 0x80000000u};
		static const uint32_t hi[] = {1u << 20, 0, 0x7fffffffu};
		for (int w = 0; w < 3; w++) {
			content_fill(fa, 4096, &k, 70000, 0);
			memset(fa + 1024, 0, 512);
			CHECK_EQ_U(content_check(fa, 4096, &k, 0, lo[w], hi[w], &f), 1);
			CHECK_EQ_U(f.verdict, CONTENT_ZERO);
			content_fill(fa + 1024, 512, &other, 70000, 1024);
			CHECK_EQ_U(content_check(fa, 4096, &k, 0, lo[w], hi[w], &f), 1);
			CHECK_EQ_U(f.verdict, CONTENT_FOREIGN);
			CHECK_EQ_U(f.off, 1024);
			content_fill(fa + 1024, 512, &k, 70000, 1024);
			fa[1024 + 8 + 3] ^=
			    0x10; /* the offset word: the same in every generation */
			CHECK_EQ_U(content_check(fa, 4096, &k, 0, lo[w], hi[w], &f), 1);
			CHECK_EQ_U(f.off, 1024 + 11);
		}
		/* a flipped payload byte (random: a generation's own word) */
		if (modes[m] == CONTENT_MODE_RANDOM) {
			content_fill(fa, 4096, &k, 70000, 0);
			fa[1500] ^= 0x01;
			CHECK_EQ_U(content_check(fa, 4096, &k, 0, 1, 72000, &f), 1);
			CHECK_EQ_U(f.off, 1500);
		}
	}
}

/* Remnants whose first byte happens to equal the next generation's byte there (1 in 256): a
 * remnant of 2 bytes of generation 4185 in a payload word between 4240 and 4254, whose first
 * byte 4254 has too; one across a word's edge (1375's last byte of a word, first of the next,
 * before 1142). With 4,300 writes (a window the search covers whole), the baseline reported
 * both as torn (a lone byte inside one generation's bytes: a flip). */
static void test_remnant_coincidence(void)
{
	static const struct {
		uint64_t seed;
		size_t at; /* the byte the baseline reported */
	} cases[] = {{175, 41645}, {889, 65512}};
	struct content_key k = {.seed = 0x5eed, .fs = 0, .file = 3};
	struct content_finding f;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		uint64_t x = 0x9e3779b97f4a7c15ull * cases[c].seed;
		content_fill(fa, FLEN, &k, 1, 0);
		uint32_t g = 1;
		for (unsigned w = 0; w < 4300; w++) {
			size_t off = (size_t)(xs(&x) % (FLEN - 512 + 1));
			content_fill(fa + off, 512, &k, ++g, off);
		}
		if (content_check(fa, FLEN, &k, 0, 1, g, &f))
			TEST_FAIL("seed %llu: %s at %llu", (unsigned long long)cases[c].seed,
			          content_verdict_name(f.verdict), (unsigned long long)f.off);
		/* a flip there is still caught */
		fa[cases[c].at - 8] ^= 0x04;
		CHECK_EQ_U(content_check(fa, FLEN, &k, 0, 1, g, &f), 1);
		fa[cases[c].at - 8] ^= 0x04;
	}
}

/* A remnant of 2 bytes at a payload word's start, alone in its range (the durability model
 * checks the bytes between two later writes as a range of their own, with the window of the
 * file as built: 1 up to the newest). Where its first byte happens to be the newest
 * generation's there too (1 in 256 of the windows below), the check took that byte for one
 * every generation has, and the second for a lone byte inside one generation's run: foreign.
 * Seen as a `wrong` promise in `fsmix verify` of a clean run of 160,000 random 512-byte
 * writes into one file (generation 1..160001 promised, the remnant of generation 1). */
static void test_remnant_after_shared_byte(void)
{
	struct content_key k = key_of(CONTENT_MODE_RANDOM, 0);
	struct content_finding f;
	const uint64_t at = 4096 + 256; /* a payload word's first byte */
	unsigned bad = 0;
	content_fill(fa, 2, &k, 1, at);
	for (uint32_t hi = 2; hi <= 4000; hi++)
		if (content_check(fa, 2, &k, at, 1, hi, &f) && bad++ < 3)
			TEST_FAIL("window 1..%u: %s at %llu", hi, content_verdict_name(f.verdict),
			          (unsigned long long)f.off);
	CHECK_EQ_U(bad, 0);
}

int main(void)
{
	RUN(test_helpers);
	RUN(test_around_65536);
	RUN(test_issue_72000);
	RUN(test_wrap);
	RUN(test_wide_still_checks);
	RUN(test_remnant_coincidence);
	RUN(test_remnant_after_shared_byte);
	return test_summary();
}
