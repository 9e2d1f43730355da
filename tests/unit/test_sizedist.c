/* test_sizedist.c - size distributions: the quantiles of 400 000 draws at a fixed seed against
 * the distribution's own (within 2 %), the mean, the cap, and the special functions behind the
 * figures (known values). */
#include <math.h>
#include <stdlib.h>

#include "sizedist.h"
#include "test.h"

#define DRAWS 400000

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Draws, then compares the 10/25/50/75/90/99th percentiles and the mean. */
static void check_dist(struct sizedist d, uint64_t seed)
{
	uint64_t *v = malloc(DRAWS * sizeof(*v));
	struct rng r;
	rng_seed(&r, seed, 0);
	double sum = 0;
	for (int i = 0; i < DRAWS; i++) {
		v[i] = sizedist_draw(&d, &r);
		sum += (double)v[i];
		if (d.cap)
			CHECK(v[i] <= d.cap);
	}
	qsort(v, DRAWS, sizeof(*v), cmp_u64);
	static const double qs[] = {0.10, 0.25, 0.50, 0.75, 0.90, 0.99};
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		double want = sizedist_quantile(&d, qs[i]);
		double got = (double)v[(size_t)(qs[i] * DRAWS)];
		CHECK_NEAR(got / want, 1.0, 0.02);
	}
	double mean = sizedist_mean(&d);
	CHECK_NEAR(sum / DRAWS / mean, 1.0, 0.02);
	free(v);
}

static void test_distributions(void)
{
	check_dist((struct sizedist){SIZEDIST_LOGNORMAL, 16384, 1.0, 0}, 1);
	check_dist((struct sizedist){SIZEDIST_LOGNORMAL, 4096, 2.0, 1 << 20}, 2);
	check_dist((struct sizedist){SIZEDIST_GAMMA, 65536, 2.5, 0}, 3);
	check_dist((struct sizedist){SIZEDIST_GAMMA, 65536, 0.5, 0}, 4);
	check_dist((struct sizedist){SIZEDIST_EXPONENTIAL, 8192, 0, 0}, 5);
	check_dist((struct sizedist){SIZEDIST_EXPONENTIAL, 8192, 0, 20000}, 6);
	check_dist((struct sizedist){SIZEDIST_UNIFORM, 1000, 9000, 0}, 7);
}

static void test_figures(void)
{
	CHECK_NEAR(sizedist_norm_quantile(0.975), 1.959963985, 1e-8);
	CHECK_NEAR(sizedist_norm_quantile(0.5), 0.0, 1e-12);
	CHECK_NEAR(sizedist_norm_quantile(1e-6), -4.753424309, 1e-7);
	CHECK_NEAR(sizedist_gamma_p(1, 2), 1 - exp(-2), 1e-12);
	CHECK_NEAR(sizedist_gamma_p(3, 30), 1.0, 1e-9);
	CHECK_NEAR(sizedist_gamma_p(0.5, 0.5), erf(sqrt(0.5)), 1e-12);
	struct sizedist ln = {SIZEDIST_LOGNORMAL, 16384, 1.0, 0};
	CHECK_NEAR(sizedist_quantile(&ln, 0.5), 16384, 1e-6);
	CHECK_NEAR(sizedist_mean(&ln), 16384 * exp(0.5), 1e-6);
	struct sizedist ex = {SIZEDIST_EXPONENTIAL, 1000, 0, 0};
	CHECK_NEAR(sizedist_quantile(&ex, 0.5), 1000 * log(2), 1e-6);
	CHECK_NEAR(sizedist_mean(&ex), 1000, 1e-6);
	struct sizedist ga = {SIZEDIST_GAMMA, 5000, 1.0, 0}; /* shape 1: the exponential */
	CHECK_NEAR(sizedist_quantile(&ga, 0.99), 5000 * log(100), 1e-3);
	CHECK_NEAR(sizedist_mean(&ga), 5000, 1e-6);
	struct sizedist capped = {SIZEDIST_EXPONENTIAL, 1000, 0, 1000};
	CHECK_NEAR(sizedist_mean(&capped), 1000 * (1 - exp(-1)), 1e-6);
	CHECK_NEAR(sizedist_quantile(&capped, 0.99), 1000, 1e-9);
	struct sizedist un = {SIZEDIST_UNIFORM, 10, 20, 0};
	CHECK_NEAR(sizedist_mean(&un), 15, 1e-12);
	struct rng r;
	rng_seed(&r, 3, 0);
	for (int i = 0; i < 10000; i++) {
		uint64_t s = sizedist_draw(&un, &r);
		CHECK(s >= 10 && s <= 20);
	}
}

int main(void)
{
	RUN(test_distributions);
	RUN(test_figures);
	return test_summary();
}
