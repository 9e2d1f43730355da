/* test_pick.c - weighted choice: exact proportions (chi-square at a fixed seed), zero weights
 * never picked, the 2010 profile's op weights, errors. */
#include <errno.h>
#include <math.h>

#include "pick.h"
#include "rng.h"
#include "test.h"

#define OP_SLOTS 15 /* FFSB 6.0's operations, in its order (ops.def) */

/* Draws n picks and returns the chi-square statistic against the weights. */
static double chi_square(const uint64_t *w, uint32_t count, uint64_t n, uint64_t seed,
                         uint64_t *zero_hits)
{
	struct pick_table t;
	struct rng r;
	uint64_t hits[64] = {0}, total = 0;
	CHECK_EQ_I(pick_build(&t, w, count), 0);
	rng_seed(&r, seed, 0);
	for (uint64_t i = 0; i < n; i++)
		hits[pick_one(&t, &r)]++;
	for (uint32_t i = 0; i < count; i++)
		total += w[i];
	double chi = 0;
	*zero_hits = 0;
	for (uint32_t i = 0; i < count; i++) {
		if (!w[i]) {
			*zero_hits += hits[i];
			continue;
		}
		double expect = (double)n * (double)w[i] / (double)total;
		chi += (hits[i] - expect) * (hits[i] - expect) / expect;
	}
	pick_free(&t);
	return chi;
}

static void test_ffsb_2010_weights(void)
{
	/* read readall write create append delete metaop createdir stat writeall writeall_fsync
	 * open_close write_fsync create_fsync append_fsync */
	const uint64_t w[15] = {0, 4, 0, 1, 1, 1, 0, 0, 1, 1, 1, 1, 0, 2, 1};
	uint64_t zero;
	/* 9 degrees of freedom (10 non-zero weights): chi2 critical value at p = 0.001 is 27.9. */
	double chi = chi_square(w, 15, 2000000, 42, &zero);
	CHECK(chi < 27.9);
	CHECK_EQ_U(zero, 0);
}

static void test_skewed_and_many(void)
{
	uint64_t w[40], zero;
	for (int i = 0; i < 40; i++)
		w[i] = (i % 7 == 0) ? 0 : (uint64_t)(i * i + 1);
	w[39] = 1000000; /* one dominant weight */
	/* 33 non-zero weights: 32 degrees of freedom, chi2(0.001) = 62.5 */
	double chi = chi_square(w, 40, 4000000, 7, &zero);
	CHECK(chi < 62.5);
	CHECK_EQ_U(zero, 0);
}

static void test_single_and_errors(void)
{
	struct pick_table t;
	struct rng r;
	const uint64_t one[3] = {0, 5, 0};
	rng_seed(&r, 1, 1);
	CHECK_EQ_I(pick_build(&t, one, 3), 0);
	for (int i = 0; i < 1000; i++)
		CHECK_EQ_U(pick_one(&t, &r), 1);
	pick_free(&t);
	const uint64_t none[2] = {0, 0};
	CHECK_EQ_I(pick_build(&t, none, 2), -EINVAL);
	const uint64_t huge[2] = {UINT64_MAX / 2, UINT64_MAX / 2};
	CHECK_EQ_I(pick_build(&t, huge, 2), -EINVAL);
}

/* The modulo bias FFSB had (256 % 14 = 4 extra slots for readall) would show up here: the
 * observed readall share must be 4/14 within 0.2 percentage points over 2M picks. */
static void test_no_modulo_bias(void)
{
	const uint64_t w[15] = {0, 4, 0, 1, 1, 1, 0, 0, 1, 1, 1, 1, 0, 2, 1};
	struct pick_table t;
	struct rng r;
	uint64_t readall = 0, n = 2000000;
	CHECK_EQ_I(pick_build(&t, w, 15), 0);
	rng_seed(&r, 2010, 0);
	for (uint64_t i = 0; i < n; i++)
		readall += pick_one(&t, &r) == 1;
	CHECK_NEAR(100.0 * (double)readall / (double)n, 100.0 * 4 / 14, 0.2);
	pick_free(&t);
}

/* FFSB 6.0's pick, simulated the slow way the test can trust: every value of the k random bytes
 * getrandom(sum) reads (rand.c:138-162: k = 1 for sum < 2^8, 2 below 2^16), then `num = 1 +
 * value % sum` and the scan `while (weight[cur] < num) num -= weight[cur++]` (ffsb_tg.c:104-110),
 * over the weights in the given order. Counts how often each choice comes out. */
static void ffsb_enumerate(const uint64_t *w, uint32_t count, bool reversed, uint64_t *hits)
{
	uint64_t sum = 0, order[64];
	for (uint32_t i = 0; i < count; i++) {
		order[i] = reversed ? w[count - 1 - i] : w[i];
		sum += w[i];
		hits[i] = 0;
	}
	uint64_t values = sum < 256 ? 256 : 65536;
	for (uint64_t v = 0; v < values; v++) {
		uint64_t num = 1 + v % sum;
		uint32_t cur = 0;
		while (order[cur] < num)
			num -= order[cur++];
		hits[reversed ? count - 1 - cur : cur]++;
	}
}

/* The published profile with create/write/read weights 100/30/100 (43.5/13.0/43.5 %: the lkml
 * profiles of tests/compat): sum 230 < 256, one byte; residues 0..25 come twice, and they all
 * fall into read (first in FFSB's op order), so read gets 126/256 = 49.2 %, write 30/256 =
 * 11.7 %, create 100/256 = 39.1 % (FFSB measured 49.6/11.5/38.9 %). */
static void test_ffsb_weights_profile(void)
{
	uint64_t w[OP_SLOTS] = {0}, out[OP_SLOTS], sim[OP_SLOTS];
	w[0] = 100; /* read */
	w[2] = 30;  /* write */
	w[3] = 100; /* create */
	CHECK_EQ_I(pick_ffsb_weights(w, OP_SLOTS, false, out), 0);
	CHECK_EQ_U(out[0], 126);
	CHECK_EQ_U(out[1], 0);
	CHECK_EQ_U(out[2], 30);
	CHECK_EQ_U(out[3], 100);
	ffsb_enumerate(w, OP_SLOTS, false, sim);
	for (int i = 0; i < OP_SLOTS; i++)
		CHECK_EQ_U(out[i], sim[i]);
	/* The 2010 profile's ops: sum 14, 256 % 14 = 4 extra residues, all readall's. */
	const uint64_t w2010[15] = {0, 4, 0, 1, 1, 1, 0, 0, 1, 1, 1, 1, 0, 2, 1};
	CHECK_EQ_I(pick_ffsb_weights(w2010, 15, false, out), 0);
	CHECK_EQ_U(out[1], 4 * 18 + 4);
	CHECK_EQ_U(out[3], 18);
}

/* The 2010 profile's size_weight lines (1 KB .. 1 MB, weights 10 15 16 16 15 10 8 4 3 2 1, sum
 * 100), stored reversed: the 56 doubled residues go to the large sizes, 1 MB first. */
static void test_ffsb_weights_sizes(void)
{
	const uint64_t w[11] = {10, 15, 16, 16, 15, 10, 8, 4, 3, 2, 1};
	uint64_t out[11], sim[11], total = 0;
	CHECK_EQ_I(pick_ffsb_weights(w, 11, true, out), 0);
	ffsb_enumerate(w, 11, true, sim);
	for (int i = 0; i < 11; i++) {
		CHECK_EQ_U(out[i], sim[i]);
		total += out[i];
	}
	CHECK_EQ_U(total, 256);
	CHECK_EQ_U(out[10], 3); /* 1 MB: 1 residue, doubled */
	CHECK_EQ_U(out[0], 20); /* 1 KB: 10 residues, none doubled (7.8 %, FFSB measured 7.5) */
	CHECK_EQ_U(out[3], 45); /* 8 KB: 13 of its 16 residues below 56 */
	CHECK_EQ_U(out[4], 45); /* 16 KB: all 15 doubled (17.6 %, FFSB measured 18.1) */
}

/* Two-byte sums, many shapes, against the enumeration; and the errors. */
static void test_ffsb_weights_two_bytes(void)
{
	struct rng r;
	rng_seed(&r, 99, 0);
	for (int round = 0; round < 50; round++) {
		uint64_t w[12], out[12], sim[12];
		for (int i = 0; i < 12; i++)
			w[i] = i % 5 == 4 ? 0 : rng_below(&r, 5000);
		w[0] += 300; /* sum >= 256: two bytes */
		bool rev = round & 1;
		CHECK_EQ_I(pick_ffsb_weights(w, 12, rev, out), 0);
		ffsb_enumerate(w, 12, rev, sim);
		for (int i = 0; i < 12; i++)
			CHECK_EQ_U(out[i], sim[i]);
	}
	uint64_t out[2];
	const uint64_t zero[2] = {0, 0}, big[2] = {1ull << 31, 1ull << 31};
	CHECK_EQ_I(pick_ffsb_weights(zero, 2, false, out), -EINVAL);
	CHECK_EQ_I(pick_ffsb_weights(big, 2, false, out), -EINVAL);
}

/* A table built from FFSB's weights draws FFSB's shares: chi-square at a fixed seed against the
 * biased weights passes, against the profile's weights it fails by far. */
static void test_ffsb_table_draws(void)
{
	uint64_t w[4] = {100, 0, 30, 100}, out[4], zero;
	CHECK_EQ_I(pick_ffsb_weights(w, 4, false, out), 0);
	/* 2 degrees of freedom: chi2(0.001) = 13.8 */
	CHECK(chi_square(out, 4, 1000000, 27, &zero) < 13.8);
	struct pick_table t;
	struct rng r;
	uint64_t hits[4] = {0};
	CHECK_EQ_I(pick_build(&t, out, 4), 0);
	rng_seed(&r, 27, 0);
	for (int i = 0; i < 1000000; i++)
		hits[pick_one(&t, &r)]++;
	pick_free(&t);
	CHECK_NEAR(100.0 * (double)hits[0] / 1e6, 100.0 * 126 / 256, 0.2);
	CHECK(fabs(100.0 * (double)hits[0] / 1e6 - 100.0 * 100 / 230) > 5);
}

/* pick_ffsb_mod reproduces getrandom's bias: mod 100 from one byte, residues below 56 come 3
 * times in 256, the rest 2 times; mod 0 and 1 give 0. */
static void test_ffsb_mod(void)
{
	struct rng r;
	uint64_t hits[100] = {0}, n = 2560000;
	rng_seed(&r, 5, 0);
	for (uint64_t i = 0; i < n; i++)
		hits[pick_ffsb_mod(&r, 100)]++;
	double chi = 0;
	for (int v = 0; v < 100; v++) {
		double expect = (double)n * (v < 56 ? 3.0 : 2.0) / 256.0;
		chi += (hits[v] - expect) * (hits[v] - expect) / expect;
	}
	CHECK(chi < 148.2); /* 99 degrees of freedom, p = 0.001 */
	CHECK_EQ_U(pick_ffsb_mod(&r, 0), 0);
	CHECK_EQ_U(pick_ffsb_mod(&r, 1), 0);
	CHECK_EQ_U(pick_ffsb_span(255), 256);
	CHECK_EQ_U(pick_ffsb_span(256), 65536);
	CHECK_EQ_U(pick_ffsb_span(1u << 24), 1ull << 32);
}

int main(void)
{
	RUN(test_ffsb_weights_profile);
	RUN(test_ffsb_weights_sizes);
	RUN(test_ffsb_weights_two_bytes);
	RUN(test_ffsb_table_draws);
	RUN(test_ffsb_mod);
	RUN(test_ffsb_2010_weights);
	RUN(test_skewed_and_many);
	RUN(test_single_and_errors);
	RUN(test_no_modulo_bias);
	return test_summary();
}
