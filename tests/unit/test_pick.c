/* test_pick.c - weighted choice: exact proportions (chi-square at a fixed seed), zero weights
 * never picked, the 2010 profile's op weights, errors. */
#include <errno.h>
#include <math.h>

#include "pick.h"
#include "rng.h"
#include "test.h"

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

int main(void)
{
	RUN(test_ffsb_2010_weights);
	RUN(test_skewed_and_many);
	RUN(test_single_and_errors);
	RUN(test_no_modulo_bias);
	return test_summary();
}
